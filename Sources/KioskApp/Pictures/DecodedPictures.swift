import ImageCodecs
import KioskCore
import KioskRendering

/// The show's playlist and the decoded pictures it keeps, within a budget.
///
/// Decoding happens elsewhere (the ``DecodeWorker`` for the display, in line
/// for a snapshot): this says what to decode next and takes in the results.
/// Changes to the playlist go through ``Playlist``, whose rule keeps the
/// centred picture in place; the cache is keyed by file, so it survives them.
struct DecodedPictures {
    private(set) var playlist: Playlist
    private var cache: ByteBoundedCache<String, RasterImage>
    /// The frames' schedules of the animated pictures in the cache.
    private var animations: [String: FrameSchedule] = [:]
    /// A missing picture's cost, for planning: a whole slot in XRGB8888.
    private let slotBytes: Int

    init(playlist: Playlist, slot: PixelSize, budget: Int) {
        self.playlist = playlist
        cache = ByteBoundedCache(budget: budget)
        slotBytes = slot.pixelCount * 4
    }

    var index: CircularIndex { playlist.index }
    var cachedBytes: Int { cache.bytes }

    func picture(_ item: Int) -> RasterImage? { cache[playlist[item]] }
    func picture(of path: String) -> RasterImage? { cache[path] }
    /// True when an animated picture is in the cache.
    var hasAnimations: Bool { !animations.isEmpty }
    /// The schedule of the cached picture at `path`, if it is animated.
    func animation(of path: String) -> FrameSchedule? { animations[path] }

    /// Keeps only `items` (most urgent first) and returns the files still to
    /// decode, most urgent first, as many as the budget holds.
    mutating func want(_ items: [Int]) -> [String] {
        cache.want(items.map { playlist[$0] })
        if !animations.isEmpty { animations = animations.filter { cache[$0.key] != nil } }
        return cache.missing(estimatedBytes: slotBytes)
    }

    /// What a finished decode brought.
    enum Arrival: Equatable {
        /// The picture is in the cache now.
        case stored(path: String)
        /// Finished, but the show no longer wants it (it moved on, or the file left).
        case discarded
        /// The file cannot be shown; it is still in the playlist: the caller removes it.
        case refused(ImageFileError)
    }

    mutating func accept(_ outcome: DecodeOutcome) -> Arrival {
        switch outcome {
        case .decoded(let path, let picture, let animation):
            guard cache.insert(picture, bytes: picture.pixels.count * 4, for: path) else { return .discarded }
            animations[path] = animation
            return .stored(path: path)
        case .failed(let error):
            return playlist.contains(error.path) ? .refused(error) : .discarded
        case .frame, .animationStopped:
            return .discarded   // the show's animations take these
        }
    }

    /// Removes `path` from the playlist; returns the slot that now shows what
    /// `slot` showed, or nil if the file was not in it.
    mutating func remove(_ path: String, keepingSlot slot: Int) -> Int? {
        guard let item = playlist.item(of: path) else { return nil }
        return playlist.remove(at: item, keepingSlot: slot)
    }

    /// Files that arrived, were rewritten or left (``Playlist/apply(_:keepingSlot:)``).
    /// A rewritten file's picture is stale: it is dropped, to be decoded again.
    mutating func apply(_ change: PlaylistChange, keepingSlot slot: Int) -> PlaylistEdit {
        for entry in change.added {
            cache.forget(entry.path)
            animations[entry.path] = nil
        }
        return playlist.apply(change, keepingSlot: slot)
    }

    /// Shuffles the files at `places` among themselves (``Playlist/shuffle(_:using:)``); the pictures stay cached.
    mutating func shuffle(_ places: Range<Int>, using random: inout some RandomNumberGenerator) {
        playlist.shuffle(places, using: &random)
    }

    /// A new list of files (a rescan, a reload); returns the slot that now shows what `slot` showed.
    mutating func replacePlaylist(with entries: [PlaylistEntry], keepingSlot slot: Int) -> PlaylistEdit {
        playlist.replace(with: entries, keepingSlot: slot)
    }

    /// Decodes in line until every picture in `items` is held: what a
    /// snapshot does, where nothing else is waiting. A file that fails
    /// leaves the playlist as if it had never been in the folder (later
    /// items move down). Returns the files refused. Each round stores a
    /// picture or drops a file, so it ends.
    mutating func loadNow(_ items: (CircularIndex) -> [Int], with recipe: PictureRecipe) -> [ImageFileError] {
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
