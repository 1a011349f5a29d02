import ImageCodecs
import KioskCore
import KioskRendering

/// The show's playlist and the decoded pictures it keeps, within a budget.
///
/// Decoding happens elsewhere (the ``DecodeWorker`` for the display, in line
/// for a snapshot): this says what to decode next and takes in the results.
/// Changes to the playlist go through ``Playlist``, whose rule keeps the
/// centred picture in place; the cache is keyed by file, so it survives them.
///
/// Slots and units: the strip's slot `k` shows unit `k mod index.count`.
/// Without `portrait_pairs` a unit is a playlist item. With it
/// (``pairing``), a unit is one file or two portraits side by side
/// (``PairedStrip``), cached under its ``PictureKey``; the playlist's
/// changes, which work on files, are translated to slots here.
struct DecodedPictures {
    private(set) var playlist: Playlist
    /// `portrait_pairs`: the units over the playlist, and the files' sizes read so far.
    private(set) var pairing: PairedStrip?
    private var cache: ByteBoundedCache<PictureKey, RasterImage>
    /// The frames' schedules of the animated pictures in the cache.
    private var animations: [PictureKey: FrameSchedule] = [:]
    /// What the decoder learnt of the files cached (their upright sizes bound their zoom).
    private var infos: [PictureKey: PictureInfo] = [:]
    /// A missing picture's cost, for planning: a whole slot in XRGB8888.
    private let slotBytes: Int

    init(playlist: Playlist, slot: PixelSize, budget: Int, pairing: PairedStrip? = nil) {
        self.playlist = playlist
        cache = ByteBoundedCache(budget: budget)
        slotBytes = slot.pixelCount * 4
        self.pairing = pairing
        self.pairing?.layOut(playlist)
    }

    /// The strip's units: slot `k` shows unit `index.item(forSlot: k)`.
    var index: CircularIndex { CircularIndex(count: pairing?.unitCount ?? playlist.count) }
    var cachedBytes: Int { cache.bytes }
    /// The pictures the show wants kept: the neighbourhood.
    var wantedKeys: Set<PictureKey> { Set(cache.wanted) }

    /// The playlist items unit `unit` shows, left to right.
    func items(ofUnit unit: Int) -> [Int] { pairing?.items(ofUnit: unit) ?? [unit] }
    /// The first playlist item shown in strip slot `slot` (the left one of a pair).
    func item(forSlot slot: Int) -> Int? { index.item(forSlot: slot).map { items(ofUnit: $0)[0] } }
    /// The unit showing playlist item `item`.
    func unit(ofItem item: Int) -> Int { pairing?.unit(ofItem: item) ?? item }

    /// What unit `unit` is cached and decoded under: its file, or its pair's key.
    func key(_ unit: Int) -> PictureKey {
        let items = items(ofUnit: unit)
        return items.count == 1 ? PictureKey(file: playlist[items[0]]) : PictureKey(pair: playlist[items[0]], playlist[items[1]])
    }

    /// Strip slot `slot` in the playlist's numbering (its first file), and back.
    func itemSlot(ofStripSlot slot: Int) -> Int { pairing?.itemSlot(ofStripSlot: slot) ?? slot }
    func stripSlot(ofItemSlot slot: Int) -> Int { pairing?.stripSlot(ofItemSlot: slot) ?? slot }

    func picture(_ unit: Int) -> RasterImage? { cache[key(unit)] }
    func picture(of path: String) -> RasterImage? { cache[PictureKey(file: path)] }
    /// True when an animated picture is in the cache.
    var hasAnimations: Bool { !animations.isEmpty }
    /// What is known of the cached picture `key` (its original size, its date), when known.
    func info(of key: PictureKey) -> PictureInfo? { infos[key] }

    /// What plays in `key`'s slot once the strip rests on it: a clip
    /// itself, or a motion photo's movie (in its still, or a Live Photo's
    /// MOV beside it) unless `motion_photos` is off; nil for a still, or
    /// before the picture is decoded.
    func movie(of key: PictureKey, motionPhotos: MotionPhotoPlay) -> (source: ClipSource, isMotion: Bool)? {
        guard let file = key.file, let info = info(of: key) else { return nil }
        if info.clip != nil { return (ClipSource(path: file), false) }
        guard motionPhotos != .off else { return nil }
        if let range = info.motion { return (ClipSource(path: file, range: range), true) }
        return playlist.companion(of: file).map { (ClipSource(path: $0), true) }
    }
    /// The schedule of the cached picture `key`, if it is animated.
    func animation(of key: PictureKey) -> FrameSchedule? { animations[key] }

    /// Keeps only `units` (most urgent first) and returns the keys still to
    /// decode, most urgent first, as many as the budget holds. A unit whose
    /// pairing is not settled yet waits for its files' sizes.
    mutating func want(_ units: [Int]) -> [PictureKey] {
        let decided = pairing.map { pairing in units.filter { pairing.isSettled(unit: $0, in: playlist) } } ?? units
        cache.want(decided.map(key))
        if !animations.isEmpty { animations = animations.filter { cache[$0.key] != nil } }
        if infos.count > 2 * cache.count { infos = infos.filter { cache[$0.key] != nil } }
        return cache.missing(estimatedBytes: slotBytes)
    }

    /// What a finished decode brought.
    enum Arrival: Equatable {
        /// The picture is in the cache now.
        case stored(PictureKey)
        /// Finished, but the show no longer wants it (it moved on, or the file left).
        case discarded
        /// The file cannot be shown; it is still in the playlist: the caller removes it.
        case refused(ImageFileError)
    }

    mutating func accept(_ outcome: DecodeOutcome) -> Arrival {
        switch outcome {
        case .decoded(let key, let picture, let animation, let info):
            guard cache.insert(picture, bytes: picture.pixels.count * 4, for: key) else { return .discarded }
            animations[key] = animation
            infos[key] = info
            return .stored(key)
        case .failed(let error):
            return playlist.contains(error.path) ? .refused(error) : .discarded
        case .frame, .animationStopped, .measured, .region, .regionFailed:
            return .discarded   // the show's animations, its pairing and its zoom take these
        }
    }

    /// Removes `path` from the playlist; returns the slot that now shows what
    /// `slot` showed, or nil if the file was not in it.
    mutating func remove(_ path: String, keepingSlot slot: Int) -> Int? {
        guard let item = playlist.item(of: path) else { return nil }
        let itemSlot = playlist.remove(at: item, keepingSlot: itemSlot(ofStripSlot: slot))
        return laidOut(itemSlot, after: PlaylistEdit(slot: itemSlot, removed: [item]))
    }

    /// Files that arrived, were rewritten or left (``Playlist/apply(_:keepingSlot:)``).
    /// A rewritten file's picture is stale: it is dropped, to be decoded
    /// again (with its pair, if it was in one), and its size read again.
    mutating func apply(_ change: PlaylistChange, keepingSlot slot: Int) -> PlaylistEdit {
        for entry in change.added {
            if pairing != nil, let item = playlist.item(of: entry.path) { cache.forget(key(unit(ofItem: item))) }
            cache.forget(PictureKey(file: entry.path))
            animations[PictureKey(file: entry.path)] = nil
            pairing?.forget(entry.path)
        }
        var edit = playlist.apply(change, keepingSlot: itemSlot(ofStripSlot: slot))
        edit.slot = laidOut(edit.slot, after: edit)
        return edit
    }

    /// Shuffles the files at `places` among themselves (``Playlist/shuffle(_:using:)``);
    /// the pictures stay cached. Returns the slot that now shows what `slot` showed.
    mutating func shuffle(_ places: Range<Int>, keepingSlot slot: Int, using random: inout some RandomNumberGenerator) -> Int {
        let itemSlot = itemSlot(ofStripSlot: slot)
        playlist.shuffle(places, using: &random)
        return laidOut(itemSlot)
    }

    /// A new list of files (a rescan, a reload); returns the slot that now shows what `slot` showed.
    mutating func replacePlaylist(with entries: [PlaylistEntry], within scope: String? = nil, keepingSlot slot: Int) -> PlaylistEdit {
        var edit = playlist.replace(with: entries, keepingSlot: itemSlot(ofStripSlot: slot), within: scope)
        edit.slot = laidOut(edit.slot, after: edit)
        return edit
    }

    /// Pairs laid over the playlist again after a change (`edit`, when
    /// known): the strip slot of playlist slot `itemSlot`.
    private mutating func laidOut(_ itemSlot: Int, after edit: PlaylistEdit? = nil) -> Int {
        pairing?.layOut(playlist, after: edit)
        return stripSlot(ofItemSlot: itemSlot)
    }

    // MARK: Sizes (`portrait_pairs`)

    /// Up to `limit` files whose sizes are still to be read, nearest strip slot `slot` first.
    func toMeasure(around slot: Int, limit: Int) -> [String] {
        guard let pairing, let item = item(forSlot: slot) else { return [] }
        return pairing.unmeasured(around: item, in: playlist, limit: limit)
    }

    /// True when unit `unit`'s pictures are decided (always, without pairs).
    func isSettled(_ unit: Int) -> Bool { pairing?.isSettled(unit: unit, in: playlist) ?? true }

    /// True while a file's size is still to be read.
    var measuring: Bool { !(pairing?.allMeasured ?? true) }

    /// Takes in files' sizes; when that pairs pictures differently, returns
    /// the slot that now shows the file `slot` showed (the strip renumbers;
    /// the file in the centre stays there).
    mutating func measured(_ sizes: [MeasuredSize], keepingSlot slot: Int) -> Int? {
        guard pairing != nil else { return nil }
        let itemSlot = itemSlot(ofStripSlot: slot)
        for size in sizes where playlist.contains(size.path) { pairing?.measured(size.path, size: size.size) }
        guard pairing?.layOut(playlist) == true else { return nil }
        return stripSlot(ofItemSlot: itemSlot)
    }

    /// Reads every file's size now: a snapshot, where nothing else waits.
    mutating func measureAll(with recipe: PictureRecipe) {
        guard pairing != nil else { return }
        while case let paths = toMeasure(around: 0, limit: 256), !paths.isEmpty {
            guard case .measured(let sizes) = recipe.measure(paths) else { return }
            _ = measured(sizes, keepingSlot: 0)
        }
    }

    /// Decodes in line until every picture in `items` is held: what a
    /// snapshot does, where nothing else is waiting. A file that fails
    /// leaves the playlist as if it had never been in the folder (later
    /// items move down). Returns the files refused. Each round stores a
    /// picture or drops a file, so it ends.
    mutating func loadNow(_ items: (CircularIndex) -> [Int], with recipe: PictureRecipe) -> [ImageFileError] {
        measureAll(with: recipe)
        var refused: [ImageFileError] = []
        while let path = want(items(index)).first {
            switch accept(recipe.outcome(of: path)) {
            case .stored: continue
            case .discarded: return refused   // cannot happen: planned within the budget
            case .refused(let error):
                refused.append(error)
                _ = remove(error.path, keepingSlot: 0)
            }
        }
        return refused
    }
}
