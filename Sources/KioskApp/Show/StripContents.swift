import KioskCore
import KioskRendering

/// What the strip shows: the playlist and its decoded neighbourhood, the
/// recipe pictures are decoded by and what the decoder was asked for, a
/// playlist change being animated (seed 001) and the folder news waiting
/// for it, the animated pictures playing, and the shuffle's rounds.
///
/// It never moves the strip: a change that renumbers the slots returns the
/// slot the centred picture now has, and the show renumbers everything
/// that counts slots (``RunningShow``'s `renumber(as:)`), then goes on.
final class StripContents {
    var pictures: PictureNeighbourhood
    /// How files become pictures; a reload that changes it makes every held picture stale.
    private(set) var recipe: PictureRecipe
    let decoder: any PictureDecoder
    /// A playlist change being animated, with the pictures of the ghosts that shrink away.
    var change: (motion: StripChange, ghosts: [Int: RasterImage])?
    /// Folder news that came while a change was animated: applied together
    /// when it ends, as one more animation, so a burst of copies is never
    /// a burst of animations cutting each other off.
    private var pendingNews: [(item: FolderNews, scope: String?)] = []
    /// The animated pictures playing on screen, and what the decoder was last asked to decode for them.
    private var animated = AnimatedPictures()
    private var animationRequests: [String: AnimationRequest] = [:]
    /// The clip playing in the centre (or holding its last frame as the strip slides away), and what its decoder was asked for.
    private(set) var clip: PlayingClip?
    private var clipPlaybacks = 0
    private var clipRequest: ClipRequest?
    /// `order = "shuffle"`: when the next round's order is due.
    private var shuffles: ShuffleRounds?
    private var random = SystemRandomNumberGenerator()
    /// What the decoder was last asked for: the slots on screen and the way the strip was going.
    private var requestedFor: (slots: [Int], direction: TravelDirection, destination: Int)?

    init(assembly: ShowAssembly, decoder: any PictureDecoder, startSlot: Int, pictures decoded: DecodedPictures) {
        recipe = assembly.recipe
        self.decoder = decoder
        pictures = PictureNeighbourhood(pictures: decoded, geometry: assembly.layout.geometry, position: Double(startSlot))
        shuffles = Self.shuffles(assembly)
    }

    /// Shuffling keeps the pictures on screen in place, sliding too.
    private static func shuffles(_ assembly: ShowAssembly) -> ShuffleRounds? {
        assembly.settings.folder.order == .shuffle ? ShuffleRounds(margin: assembly.layout.geometry.slotsEitherSide) : nil
    }

    var decoded: DecodedPictures { pictures.pictures }

    /// The files strip slot `slot` shows: one, or a pair's two, left to right.
    func files(inSlot slot: Int) -> [String] {
        guard let unit = decoded.index.item(forSlot: slot) else { return [] }
        return decoded.items(ofUnit: unit).map { decoded.playlist[$0] }
    }

    // MARK: What a slot shows

    /// The picture to draw for `unit`: the centred one zoomed, an
    /// animation's frame, or its still (``pictureShown(forUnit:in:zoomed:frame:)``).
    func shownPicture(_ unit: Int, zoomed: (unit: Int, picture: RasterImage)?) -> RasterImage? {
        pictureShown(forUnit: unit, in: decoded, zoomed: zoomed) { file in
            if let clip, clip.path == file, let frame = clip.current { return frame }
            return animated.isEmpty ? nil : animated.frame(of: file)
        }
    }

    // MARK: Folder news

    /// Queues news from a library (the one whose ids begin with `scope`;
    /// nil: the only one); true when it is to be applied now: no change is
    /// being animated, or the folder is gone (that does not wait).
    func queue(_ news: [FolderNews], within scope: String? = nil) -> Bool {
        pendingNews += news.map { ($0, scope) }
        let folderGone = news.contains { if case .folderGone = $0 { true } else { false } }
        if change != nil && !folderGone { return false }
        change = nil
        return true
    }

    var hasPendingNews: Bool { !pendingNews.isEmpty }

    /// The news waiting, with the scope of the library it came from, taken
    /// to be applied one at a time (``apply(_:within:keepingSlot:into:)``).
    func takePendingNews() -> [(item: FolderNews, scope: String?)] {
        defer { pendingNews = [] }
        return pendingNews
    }

    /// What left and what arrived over a batch of news, by file: a file
    /// that arrives and leaves again within it was never shown.
    struct NewsBatch {
        var centredBefore: PlaylistEntry?
        var added = 0, removed = 0
        var leaving: [String: (entry: PlaylistEntry, picture: RasterImage?)] = [:]
        var arriving: Set<String> = []
    }

    /// Applies one piece of news to the playlist, the centred picture (in
    /// `slot`) keeping its place, and counts it in `batch`; returns the
    /// slot it now has, or nil for news that changes nothing (a note).
    /// Rewritten files are decoded again. `scope`: the library it came
    /// from; a listing replaces, and a folder gone removes, only its pictures.
    func apply(_ item: FolderNews, within scope: String? = nil, keepingSlot slot: Int, into batch: inout NewsBatch) -> Int? {
        var decoded = pictures.pictures
        let before = decoded.playlist
        let edit: PlaylistEdit
        switch item {
        case .changes(let change):
            decoder.forget(Set(change.added.map(\.path)))
            animated.forget(Set(change.added.map(\.path)))
            if let playing = clip, change.added.contains(where: { $0.path == playing.path }) { stopClip() }
            edit = decoded.apply(change, keepingSlot: slot)
        case .listing(let entries, _):
            edit = decoded.replacePlaylist(with: entries, within: scope, keepingSlot: slot)
        case .folderLeft(let folder):
            edit = decoded.apply(PlaylistChange(removed: decoded.playlist.files(under: folder)), keepingSlot: slot)
        case .folderGone:
            edit = decoded.replacePlaylist(with: [], within: scope, keepingSlot: slot)
        case .note:
            return nil
        }
        for item in edit.removed {
            let entry = before.entry(item)
            if batch.arriving.remove(entry.path) == nil {
                batch.leaving[entry.path] = (entry, pictures.pictures.picture(of: entry.path))
            }
        }
        for item in edit.added { batch.arriving.insert(decoded.playlist[item]) }
        pictures.pictures = decoded
        batch.added += edit.added.count
        batch.removed += edit.removed.count
        return edit.slot
    }

    /// Plans the animation of a batch's change: the ghosts of what left,
    /// the growth of what arrived, about the seam left by the picture that
    /// was centred (the strip at `position`, resting on or sliding to
    /// `target`). A file rewritten in place, or moved by its new date,
    /// shows where it now sorts, at once; with `portrait_pairs` the strip is
    /// laid out again at once (a change can re-pair slots far from the files
    /// that came or went). Returns true when an animation starts.
    func animate(_ batch: NewsBatch, geometry: CarouselGeometry, position: Double, target: Int, motion: StripMotion, start: Double) -> Bool {
        let moved = batch.arriving.filter { batch.leaving[$0] != nil }
        guard pictures.pictures.pairing == nil && !moved.contains(where: { $0 == batch.centredBefore?.path }) else { return false }
        let playlist = pictures.pictures.playlist
        let ghosts = batch.leaving.values.filter { !moved.contains($0.entry.path) }.sorted { PlaylistEntry.precedes($0.entry, $1.entry) }
        guard let motion = StripChange(
            geometry: geometry, playlist: playlist, position: position,
            seamSlot: target, removed: ghosts.map(\.entry),
            centredRemoved: ghosts.firstIndex { $0.entry.path == batch.centredBefore?.path },
            added: Set(batch.arriving.subtracting(moved).compactMap(playlist.item(of:))),
            start: start, duration: motion.duration, easing: motion.easing)
        else { return false }
        var pictures: [Int: RasterImage] = [:]
        for ghost in motion.shrinkingGhosts { pictures[ghost] = ghosts[ghost].picture }
        change = (motion, pictures)
        return true
    }

    // MARK: A reload

    /// New settings or a new folder listing: the playlist is replaced (the
    /// centred picture in `slot` keeping its place), and pictures fitted to
    /// the old slot or made the old way are dropped. Returns what came and went.
    /// `budget`: the old layout's cache budget; `renumber` renumbers the show to a slot.
    func reassemble(_ assembly: ShowAssembly, keepingSlot slot: Int, budget: Int, renumber: (Int) -> Void) -> PlaylistEdit {
        let edit = pictures.pictures.replacePlaylist(with: assembly.playlist.entries, keepingSlot: slot)
        renumber(edit.slot)
        if assembly.recipe != recipe || assembly.layout.cacheBudget != budget {
            recipe = assembly.recipe
            decoder.use(recipe)
            stopAnimations()
            // Pairs are laid out anew for the new slot (the files' sizes are kept); the centred file keeps the centre.
            let itemSlot = pictures.pictures.itemSlot(ofStripSlot: edit.slot)
            let decoded = DecodedPictures(
                playlist: pictures.pictures.playlist, slot: recipe.slot, budget: assembly.layout.cacheBudget,
                pairing: assembly.pairing(keepingSizesOf: pictures.pictures.pairing))
            pictures = PictureNeighbourhood(pictures: decoded, geometry: assembly.layout.geometry, position: pictures.position)
            renumber(decoded.stripSlot(ofItemSlot: itemSlot))
        } else {
            pictures = PictureNeighbourhood(pictures: pictures.pictures, geometry: assembly.layout.geometry, position: pictures.position)
        }
        if (shuffles == nil) != (assembly.settings.folder.order != .shuffle) { shuffles = Self.shuffles(assembly) }
        return edit
    }

    // MARK: Shuffle

    /// A new half round of the loop began (the strip at `slot`): the
    /// pictures off screen are shuffled among their places
    /// (``ShuffleRounds``). Returns the slots the centred picture went
    /// through (nothing on screen moves, so nothing is drawn).
    func reshuffleIfDue(keepingSlot slot: Int) -> [Int]? {
        guard var rounds = shuffles else { return nil }
        let due = rounds.due(at: pictures.pictures.itemSlot(ofStripSlot: slot), count: pictures.pictures.playlist.count)
        shuffles = rounds
        guard !due.isEmpty else { return nil }
        var target = slot, slots: [Int] = []
        for places in due {
            target = pictures.pictures.shuffle(places, keepingSlot: target, using: &random)
            slots.append(target)
        }
        return slots
    }

    // MARK: Animated pictures

    /// A frame of an animation arrived, or it stopped.
    func take(frame path: String, playback: Int, number: Int, picture: RasterImage) {
        animated.take(path: path, playback: playback, number: number, picture: picture)
    }

    func stop(animation path: String, playback: Int) { animated.stop(path: path, playback: playback) }

    /// Starts, holds and stops the animated pictures as the strip moves
    /// (``AnimatedPictures``) and asks the decoder for the next frames.
    /// Returns true when a frame is due on screen.
    func playAnimations(geometry: CarouselGeometry, at position: Double, now: Double) -> Bool {
        guard pictures.pictures.hasAnimations || !animated.isEmpty else { return false }
        let decoded = pictures.pictures
        let index = decoded.index
        var running: [String: FrameSchedule] = [:]
        for slot in geometry.slotsHalfVisible(at: position) {
            guard let unit = index.item(forSlot: slot.index) else { continue }
            let key = decoded.key(unit)
            if let file = key.file, let animation = decoded.animation(of: key) { running[file] = animation }
        }
        let onScreen = Set(geometry.visibleSlots(at: position).compactMap { index.item(forSlot: $0.index).flatMap { decoded.key($0).file } })
        animated.follow(running: running, onScreen: onScreen, at: now)
        let due = animated.advance(at: now)
        let requests = animated.requests
        if requests != animationRequests {
            animationRequests = requests
            decoder.animate(requests)
        }
        return due
    }

    /// No animation plays, nor a clip: nothing decoded, no wake-up for a frame.
    func stopAnimations() {
        animated.stopAll()
        if !animationRequests.isEmpty {
            animationRequests = [:]
            decoder.animate([:])
        }
        stopClip()
    }

    /// When an animation's next frame is due.
    var nextFrameDue: Double? { animated.nextDue }

    // MARK: The clip in the centre

    /// What a step of the clip in the centre tells the show.
    struct ClipNews {
        var events: [ShowEvent] = []
        /// The rest now ends here: the clip's end, or `video_max`.
        var restUntil: Double?
        /// The rest lasts at least until here: one play of a motion photo's movie.
        var restAtLeast: Double?
        /// The clip broke: the rest is the show's own again.
        var released = false
        /// A new frame is on screen.
        var frameChanged = false
        /// Frames shown and let go unseen in this step.
        var shown = 0, dropped = 0
        /// The clip's first frame went on screen this long after the strip came to rest on it.
        var startLatency: Double?
    }

    /// Starts the clip in the centre's slot `slot` when `canPlay` (the
    /// strip at rest there, the panel showing, nothing zoomed), and stops
    /// one that cannot play on: its slot shows its first frame again. A
    /// clip that played its time keeps its last frame while the strip
    /// slides away from it; alone in the playlist (nothing to slide to), it
    /// starts again. `paused`: the show is paused, and a new clip starts so.
    /// Returns true when what a slot shows changed.
    ///
    /// A motion photo's movie (in its still, or a Live Photo's MOV) plays
    /// the same way, as `motion_photos` says.
    func followClip(centre slot: Int, canPlay: Bool, moving: Bool, paused: Bool, settings: ClipSettings, at now: Double) -> Bool {
        let decoded = pictures.pictures
        var wanted: String?, movie: ClipSource?
        if canPlay, let unit = decoded.index.item(forSlot: slot) {
            let key = decoded.key(unit)
            if let found = decoded.movie(of: key, motionPhotos: settings.motionPhotos) {
                wanted = key.file
                if found.isMotion { movie = found.source }
            }
        }
        var changed = false
        if let playing = clip {
            let over = playing.isOver(at: now)
            let leaving = playing.path != wanted || playing.slot != slot
            if (leaving && !(over && moving)) || (over && !moving && decoded.index.count < 2 && !playing.isMotion) {
                clip = nil
                changed = playing.current != nil
            }
        }
        if clip == nil, let wanted {
            clipPlaybacks += 1
            var playing = settings
            if movie != nil { playing.repeats = settings.motionPhotos.repeats }
            clip = PlayingClip(
                path: wanted, movie: movie, slot: slot, playback: clipPlaybacks, settings: playing, fitted: recipe.slot, paused: paused, at: now)
        }
        sendClipRequest()
        return changed
    }

    /// The strip's slots were renumbered by `delta`: the clip plays on in its slot's new number.
    func renumberClip(by delta: Int) { clip?.renumber(by: delta) }

    /// Takes the clip decoder's outcomes for the clip playing.
    func takeClipFrames() -> ClipNews {
        var news = ClipNews()
        // Frames the worker passed over, late, count as dropped here, as they arrive.
        let before = clip.map { (playback: $0.playback, dropped: $0.dropped) }
        for outcome in decoder.clips.takeFinished() {
            guard clip?.playback == outcome.playback else { continue }
            if let error = clip?.take(outcome) {
                news.events.append(.clipStopped(file: error.path, reason: error.why))
                news.released = true
                news.frameChanged = true
            }
            if case .ended = outcome, let playing = clip, let end = playing.endsAt {
                if playing.isMotion { news.restAtLeast = end } else { news.restUntil = end }
            }
        }
        if let before, let playing = clip, playing.playback == before.playback { news.dropped = max(0, playing.dropped - before.dropped) }
        sendClipRequest()
        return news
    }

    /// Puts on screen the clip's frame for the refresh at `refresh`.
    func advanceClip(refresh: Double, period: Double) -> ClipNews {
        var news = ClipNews()
        guard var playing = clip else { return news }
        let (shownBefore, droppedBefore) = (playing.shown, playing.dropped)
        let step = playing.advance(refresh: refresh, period: period)
        clip = playing
        if step.started {
            // Why not in hardware, said each time: an operator reading one line needs no other.
            let path = "software decoding (hardware decoding, VAAPI or V4L2, is not built into this kioskd)"
            let words = playing.info.map { "\($0), \(path)" } ?? path
            news.events.append(.clipStarted(file: playing.movie.path, words: words))
            news.startLatency = max(0, refresh - playing.restedAt)
            if playing.isMotion { news.restAtLeast = playing.onePlayEndsAt } else { news.restUntil = playing.endsAt }
        }
        news.frameChanged = step.changed
        news.shown = playing.shown - shownBefore
        news.dropped = playing.dropped - droppedBefore
        sendClipRequest()
        return news
    }

    /// Pauses or resumes the clip's clock with the show; returns what its rest now is.
    func pauseClip(_ paused: Bool, at now: Double) -> ClipNews {
        if paused { clip?.pause(at: now) } else { clip?.resume(at: now) }
        var news = ClipNews()
        if let playing = clip {
            if playing.isMotion { news.restAtLeast = playing.onePlayEndsAt } else { news.restUntil = playing.endsAt }
        }
        return news
    }

    /// The clip stops; its slot shows its first frame.
    func stopClip() {
        clip = nil
        sendClipRequest()
    }

    /// When the clip's next frame is due.
    func nextClipFrameDue(period: Double) -> Double? { clip?.nextDue(period: period) }

    /// Asks the clip decoder for what the clip playing wants, when that changed.
    private func sendClipRequest() {
        let request = clip?.request(options: recipe.loader.options)
        guard request != clipRequest else { return }
        clipRequest = request
        decoder.clips.play(request)
    }

    // MARK: Decoding

    /// Tells the decoder what to prepare, when the slots on screen
    /// (`slots`), the direction of travel or the destination changed.
    func request(slots: [Int], at position: Double, direction: TravelDirection, destination: Int, always: Bool) {
        if !always, let last = requestedFor, last.slots == slots, last.direction == direction, last.destination == destination { return }
        requestedFor = (slots, direction, destination)
        pictures.position = position
        pictures.direction = direction
        pictures.destination = Double(destination)
        decoder.request(pictures.wanted())
        if pictures.pictures.pairing != nil { decoder.measure(pictures.toMeasure) }
    }
}

/// Which picture a slot shows for `unit` of `pictures`: the centred one
/// zoomed, an animation's frame (`frame`, by file), or its still. The one
/// rule the running show and the snapshot both draw by.
func pictureShown(
    forUnit unit: Int, in pictures: DecodedPictures, zoomed: (unit: Int, picture: RasterImage)?, frame: (String) -> RasterImage?
) -> RasterImage? {
    if let zoomed, zoomed.unit == unit { return zoomed.picture }
    if let file = pictures.key(unit).file, let shown = frame(file) { return shown }
    return pictures.picture(unit)
}
