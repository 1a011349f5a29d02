import KioskCore
import KioskRendering
import SystemCalls

/// The running show: the strip's motion, the pictures, and the frames on
/// the screen. Its one owner is the run loop (through ``ShowController``),
/// which calls it when something happens and asks it when to wake it next;
/// nothing here waits. What it does is told as ``ShowEvent``s through ``emit``.
///
/// Frame pacing: while the strip slides, a frame is drawn as soon as the
/// last one has reached the screen, at the position the strip will have
/// when the new one does (``ShowScreen/nextRefresh(after:)``), so the speed
/// on screen follows the easing even if a frame is late. While a finger
/// holds the strip its next position is not known ahead: that frame is
/// drawn one ``RepaintWindow`` before its refresh, with the newest
/// position, so a move reaches the screen within a refresh and the window.
/// At rest nothing is drawn: the only wake-up is the deadline of the next
/// slide.
final class RunningShow {
    /// The display; a reload that changes it moves the show to a new one (``move(to:assembly:at:)``).
    private(set) var screen: any ShowScreen
    private(set) var layout: ShowLayout
    private(set) var pictures: PictureNeighbourhood
    private(set) var schedule: ShowSchedule
    /// The whole picture the strip last rested on or set off for (a finger's hold aside), for counting slides.
    private var settledTarget: Int
    private(set) var recipe: PictureRecipe
    private let decoder: any PictureDecoder
    /// Where the show's events go; the controller passes them on.
    var emit: (ShowEvent) -> Void = { _ in }

    /// A picture on screen arrived or the playlist changed: draw even at rest.
    private var frameNeeded = true
    /// The position of the last frame presented, and the refresh it was drawn for.
    private var drawnPosition: Double?
    private var drawnFor: Double?
    /// The frame queued on the screen: whether the strip moved for it.
    /// `arrives`: the playlist item it brings to rest in the centre (the
    /// last frame of a slide), decided when drawn: a command that arrives
    /// before its flip completes must not unsay that it came to rest.
    /// `moves`: when the finger moves it is the first to show were sensed.
    /// `sharpAfter`: the frame is the first sharp one since the pinch that ended then.
    private var inFlight: (moving: Bool, position: Double, arrives: Int?, moves: [Double], sharpAfter: Double?, centredPicture: Bool)?
    /// When the finger moves not yet in a frame were sensed (kernel time).
    private var movesSinceDraw: [Double] = []
    /// At most this many are kept (the oldest): a flood of moves between two frames costs no more.
    static let movesKeptPerFrame = 4096
    /// How long before its refresh a finger's frame is drawn.
    private(set) var repaintWindow = RepaintWindow()
    /// Times a draw (the monotonic clock; a test's simulated one draws in no time).
    var drawClock: () -> Double = MonotonicClock.now
    /// When the next frame that follows the finger is drawn, once planned.
    private var fingerFrameAt: Double?
    /// When the last frame of an ongoing slide reached the screen.
    private var lastMotionFrameShown: Double?
    /// What the decoder was last asked for: the slots on screen and the way the strip was going.
    private var requestedFor: (slots: [Int], direction: TravelDirection, destination: Int)?
    private var announced = false
    /// After a failed present: not before this time again (a display that
    /// is gone must not turn the loop into a busy retry).
    private var retryPresentAt: Double?
    /// When the last frame was presented: a flip pending much longer than
    /// that means the screen is stuck (``isStuck(at:)``).
    private var presentedAt: Double?
    /// How long a flip may stay pending before the show counts as stuck:
    /// far beyond any refresh, short of any watchdog interval worth setting.
    static let stuckFlipLimit = 5.0

    /// A playlist change being animated (seed 001), with the pictures of
    /// the ghosts that shrink away.
    private(set) var change: (motion: StripChange, ghosts: [Int: RasterImage])?
    /// Folder news that came while a change was animated: applied together
    /// when it ends, as one more animation, so a burst of copies is never
    /// a burst of animations cutting each other off.
    private var pendingNews: [FolderNews] = []

    /// The animated pictures playing on screen, and what the decoder was last asked to decode for them.
    private var animated = AnimatedPictures()
    private var animationRequests: [String: AnimationRequest] = [:]

    /// The centred picture while fingers zoom it, or it animates back (seed 002).
    private(set) var zoomed: ZoomedPicture?
    /// `max_zoom`: at most this, and never past a photo's own pixels.
    private var maxZoom: Double
    /// The zoom the last frame drew (nil: none).
    private var drawnZoom: PictureZoom?
    /// The sharp region the decoder was last asked for.
    private var requestedRegion: ZoomRegion?
    /// When the last pinch ended (its lift's kernel time), until its sharp frame is drawn.
    private var pinchEndedAt: Double?
    /// The zoomed picture made for the frame being drawn.
    private var zoomedFrame: (unit: Int, picture: RasterImage)?

    /// `order = "shuffle"`: when the next round's order is due.
    private var shuffles: ShuffleRounds?
    private var random = SystemRandomNumberGenerator()

    private(set) var statistics = ShowStatistics()

    init(assembly: ShowAssembly, screen: any ShowScreen, decoder: any PictureDecoder, startAt index: Int, now: Double) {
        self.screen = screen
        self.decoder = decoder
        layout = assembly.layout
        recipe = assembly.recipe
        let decoded = assembly.makePictures()
        let start = decoded.stripSlot(ofItemSlot: index)
        pictures = PictureNeighbourhood(pictures: decoded, geometry: assembly.layout.geometry, position: Double(start))
        schedule = ShowSchedule(at: start, pictureCount: decoded.index.count, settings: assembly.settings.motion, now: now)
        settledTarget = schedule.target
        maxZoom = assembly.settings.input.maxZoom
        shuffles = Self.shuffles(assembly)
        requestPictures(at: Double(start), now: now)
    }

    /// Shuffling keeps the pictures on screen in place, sliding too.
    private static func shuffles(_ assembly: ShowAssembly) -> ShuffleRounds? {
        assembly.settings.folder.order == .shuffle ? ShuffleRounds(margin: assembly.layout.geometry.slotsEitherSide) : nil
    }

    /// The playlist item in the centre, or the one the strip is sliding to
    /// (with `portrait_pairs`, the left one of a pair).
    var centredItem: Int? { pictures.pictures.item(forSlot: schedule.target) }

    /// The files in the centre, or in the slot the strip is sliding to: one, or a pair's two.
    var centredFiles: [String] { files(inSlot: schedule.target) }

    private func files(inSlot slot: Int) -> [String] {
        let decoded = pictures.pictures
        guard let unit = decoded.index.item(forSlot: slot) else { return [] }
        return decoded.items(ofUnit: unit).map { decoded.playlist[$0] }
    }

    // MARK: Events

    /// An operator's command: obeyed at once, mid-slide too. `sensedAt`: when
    /// the kernel stamped the input it comes from (a finger's move), for
    /// ``ShowStatistics/inputToPhoton``.
    func command(_ command: ShowCommand, at now: Double, sensedAt: Double? = nil) {
        if case .zoom(let touch) = command {
            zoomTouched(touch, at: now)
            switch touch {
            case .ended where zoomed?.showsSharp == true:
                // Held still before the lift, it was sharp already: on screen by the lift, or with the frame in flight.
                if inFlight != nil { inFlight?.sharpAfter = sensedAt ?? now } else { statistics.zoomToSharp.record(0) }
                pinchEndedAt = nil
            case .ended where zoomed != nil: pinchEndedAt = sensedAt ?? now
            case .ended: break
            default: pinchEndedAt = nil
            }
            schedule.apply(command, at: now)
            return
        }
        // The strip moving takes the zoomed picture back to 1x at once.
        switch command {
        case .move, .goto, .touch(.dragged), .touch(.released): endZoom()
        default: break
        }
        let paused = schedule.isPaused
        let before = schedule.position(at: now)
        // The schedule counts slots: a file goes to the slot showing it (a pair's, with `portrait_pairs`).
        if case .goto(let item) = command, item < pictures.pictures.playlist.count {
            schedule.apply(.goto(item: pictures.pictures.unit(ofItem: item)), at: now)
        } else {
            schedule.apply(command, at: now)
        }
        // A move the strip follows: counted until the frame that shows it is on screen.
        if let sensedAt, case .touch(.dragged) = command, schedule.isHeld, schedule.position(at: now) != before,
           movesSinceDraw.count < Self.movesKeptPerFrame {
            movesSinceDraw.append(sensedAt)
        }
        // A slide is a new whole picture to rest on: a finger dragging the
        // strip to and fro counts once, when it lets go.
        if !schedule.isHeld {
            if schedule.target != settledTarget { statistics.slides += 1 }
            settledTarget = schedule.target
        }
        if schedule.isPaused != paused { emit(schedule.isPaused ? .paused : .resumed) }
    }

    /// The screen's descriptor is readable: flips completed.
    func screenEvents(at now: Double) {
        for shownAt in screen.handleEvents(at: now) { frameShown(at: shownAt) }
    }

    /// The decoder's descriptor is readable: pictures finished.
    func picturesReady(at now: Double) {
        var stills: [DecodeOutcome] = []
        var sizes: [MeasuredSize] = []
        for outcome in decoder.takeFinished() {
            switch outcome {
            case .measured(let measured):
                sizes += measured
            case .frame(let path, let playback, let number, let picture):
                animated.take(path: path, playback: playback, number: number, picture: picture)
            case .animationStopped(let error, let playback):
                animated.stop(path: error.path, playback: playback)
                emit(.animationStopped(file: error.path, reason: error.why))
            case .region(let region, let picture):
                zoomed?.arrived(region, picture, window: layout.geometry.slotSize)
                frameNeeded = true
            case .regionFailed(let region, let error):
                // The scaled-up picture stays; the same region is not asked for again.
                if region == requestedRegion { emit(.zoomNotSharp(file: error.path, reason: error.why)) }
            case .decoded, .failed:
                stills.append(outcome)
            }
        }
        if !sizes.isEmpty { measured(sizes, at: now) }
        let arrivals = pictures.take(stills)
        if arrivals.onScreen { frameNeeded = true }
        guard !arrivals.refused.isEmpty else { return }
        endChange(at: now)
        for error in arrivals.refused {
            emit(.pictureRefused(file: error.path, reason: error.why))
            if let slot = pictures.pictures.remove(error.path, keepingSlot: schedule.target) { renumber(as: slot) }
        }
        playlistChanged(at: now, removed: arrivals.refused.count)
    }

    /// Files' sizes were read (`portrait_pairs`): pairs may form; the file
    /// in the centre keeps its place, and the next sizes are asked for.
    private func measured(_ sizes: [MeasuredSize], at now: Double) {
        if let slot = pictures.pictures.measured(sizes, keepingSlot: schedule.target) {
            endChange(at: now)
            renumber(as: slot)
            frameNeeded = true
        }
        requestPictures(at: drawnPosition ?? Double(schedule.target), now: now, always: true)
    }

    /// The picture folder changed (news from the ``FolderWatcher``, in the
    /// order it happened): the playlist follows, the centred picture keeps
    /// its place (or the next one takes it), and rewritten files are
    /// decoded again. Pictures that leave or arrive on screen shrink away
    /// or grow in (``StripChange``). News that comes while that animation
    /// runs waits for its end (at most a `transition`); a folder that is
    /// gone does not wait: the playlist empties and the background shows
    /// until it is back.
    func folderChanged(_ news: [FolderNews], at now: Double) {
        pendingNews += news
        let folderGone = news.contains { if case .folderGone = $0 { true } else { false } }
        if change != nil && !folderGone { return }
        change = nil
        applyPendingNews(at: now)
    }

    private func applyPendingNews(at now: Double) {
        let news = pendingNews
        pendingNews = []
        guard !news.isEmpty else { return }
        let centredBefore = centredItem.map { pictures.pictures.playlist.entry($0) }
        var added = 0, removed = 0
        // What left and what arrived over the whole batch, by file: a file
        // that arrives and leaves again within it was never shown.
        var leaving: [String: (entry: PlaylistEntry, picture: RasterImage?)] = [:]
        var arriving: Set<String> = []
        for item in news {
            var decoded = pictures.pictures
            let before = decoded.playlist
            let edit: PlaylistEdit
            switch item {
            case .changes(let change):
                decoder.forget(Set(change.added.map(\.path)))
                animated.forget(Set(change.added.map(\.path)))
                edit = decoded.apply(change, keepingSlot: schedule.target)
            case .listing(let entries, _):
                edit = decoded.replacePlaylist(with: entries, keepingSlot: schedule.target)
            case .folderLeft(let folder):
                edit = decoded.apply(PlaylistChange(removed: decoded.playlist.files(under: folder)), keepingSlot: schedule.target)
            case .folderGone:
                edit = decoded.replacePlaylist(with: [], keepingSlot: schedule.target)
            case .note:
                continue
            }
            for item in edit.removed {
                let entry = before.entry(item)
                if arriving.remove(entry.path) == nil {
                    leaving[entry.path] = (entry, pictures.pictures.picture(of: entry.path))
                }
            }
            for item in edit.added { arriving.insert(decoded.playlist[item]) }
            pictures.pictures = decoded
            renumber(as: edit.slot)
            added += edit.added.count
            removed += edit.removed.count
        }
        guard added + removed > 0 else { return }
        // A file rewritten in place, or moved by its new date, shows where it now sorts, at once.
        let moved = arriving.filter { leaving[$0] != nil }
        // With `portrait_pairs` the strip is laid out again at once: a change can re-pair slots far from the files that came or went.
        if pictures.pictures.pairing == nil && !moved.contains(where: { $0 == centredBefore?.path }) {
            animate(leaving: leaving.values.filter { !moved.contains($0.entry.path) }, arriving: arriving.subtracting(moved),
                    centredBefore: centredBefore, at: now)
        }
        playlistChanged(at: now, added: added, removed: removed)
    }

    /// Plans the animation of a change: the ghosts of `leaving`, the growth
    /// of `arriving`, about the seam left by the picture that was centred.
    private func animate(
        leaving: [(entry: PlaylistEntry, picture: RasterImage?)], arriving: Set<String>,
        centredBefore: PlaylistEntry?, at now: Double
    ) {
        let playlist = pictures.pictures.playlist
        let ghosts = leaving.sorted { PlaylistEntry.precedes($0.entry, $1.entry) }
        let frameTime = screen.nextRefresh(after: now)
        guard let motion = StripChange(
            geometry: layout.geometry, playlist: playlist, position: schedule.position(at: frameTime),
            seamSlot: schedule.target, removed: ghosts.map(\.entry),
            centredRemoved: ghosts.firstIndex { $0.entry.path == centredBefore?.path },
            added: Set(arriving.compactMap(playlist.item(of:))),
            start: frameTime, duration: schedule.motion.duration, easing: schedule.motion.easing)
        else { return }
        var pictures: [Int: RasterImage] = [:]
        for ghost in motion.shrinkingGhosts { pictures[ghost] = ghosts[ghost].picture }
        change = (motion, pictures)
        statistics.changesAnimated += 1
    }
    /// New settings or a new folder listing (a reload): the layout, the
    /// motion, the pictures' recipe and the playlist change; the centred
    /// picture stays in the centre if it is still in the playlist, else the
    /// next one takes its place. The screen stays.
    func reassemble(_ assembly: ShowAssembly, at now: Double, announce: Bool = true) {
        endChange(at: now)
        schedule.apply(assembly.settings.motion)
        let edit = pictures.pictures.replacePlaylist(with: assembly.playlist.entries, keepingSlot: schedule.target)
        renumber(as: edit.slot)
        if assembly.recipe != recipe || assembly.layout.cacheBudget != layout.cacheBudget {
            // Pictures fitted to the old slot or made the old way are stale.
            recipe = assembly.recipe
            decoder.use(recipe)
            stopAnimations()
            // Pairs are laid out anew for the new slot (the files' sizes are kept); the centred file keeps the centre.
            let itemSlot = pictures.pictures.itemSlot(ofStripSlot: schedule.target)
            let decoded = DecodedPictures(
                playlist: pictures.pictures.playlist, slot: recipe.slot, budget: assembly.layout.cacheBudget,
                pairing: assembly.pairing(keepingSizesOf: pictures.pictures.pairing))
            pictures = PictureNeighbourhood(pictures: decoded, geometry: assembly.layout.geometry, position: pictures.position)
            renumber(as: decoded.stripSlot(ofItemSlot: itemSlot))
        } else {
            pictures = PictureNeighbourhood(pictures: pictures.pictures, geometry: assembly.layout.geometry, position: pictures.position)
        }
        layout = assembly.layout
        maxZoom = assembly.settings.input.maxZoom
        if (shuffles == nil) != (assembly.settings.folder.order != .shuffle) { shuffles = Self.shuffles(assembly) }
        if announce { emit(.settingsApplied) }
        // A hotplug's move keeps the playlist: no playlist event unless a file came or went meanwhile.
        playlistChanged(
            at: now, added: edit.added.count, removed: edit.removed.count,
            announce: announce || !edit.added.isEmpty || !edit.removed.isEmpty)
    }

    /// A reload changed the display (device, connector, mode, rotation):
    /// the show goes on on `newScreen`, laid out for it by `assembly`, at
    /// the same place and time. The old screen's frames are forgotten; the
    /// first frame on the new one is drawn at once (a full mode set), and
    /// ``ShowEvent/ready`` comes again once its pictures are all drawn.
    /// `announce`: a reload's move says the settings were applied; a hotplug's does not.
    func move(to newScreen: any ShowScreen, assembly: ShowAssembly, at now: Double, announce: Bool = true) {
        screen = newScreen
        // A screen that comes while the display is off stays dark.
        if asleep { try? newScreen.powerOff() }
        if disconnected {
            disconnected = false
            emit(.panelChanged(panel, why: "a screen is back: \(newScreen.summary)"))
        }
        forgetFrames()
        drawAgain()
        reassemble(assembly, at: now, announce: announce)
        // Once every picture on the new screen is drawn, the log says so again ("showing N picture(s), ...").
        announced = false
    }

    /// True while the seat is another session's: nothing is drawn, the
    /// show's time goes on (``releaseDisplay(at:)``).
    private(set) var displayReleased = false
    /// True while the connector in use has no screen (``disconnect(at:why:)``).
    private(set) var disconnected = false
    /// True while the display is switched off (``sleep(at:why:)``).
    private(set) var asleep = false

    /// What the panel is doing, for `status`.
    var panel: PanelState {
        if asleep { return .off }
        if disconnected { return .disconnected }
        return displayReleased ? .elsewhere : .active
    }

    /// True when no frame can be drawn now.
    private var unseen: Bool { displayReleased || disconnected || asleep }

    /// The display is switched off (`kioskctl display off`, the schedule):
    /// the panel goes dark (``ShowScreen/powerOff()``), a slide or a
    /// change under way ends where it was going, and until ``wake(at:why:)``
    /// nothing slides, is drawn or is decoded: the show asks for no
    /// wake-up at all. Returns why the panel could not be switched off, if it could not.
    @discardableResult
    func sleep(at now: Double, why: String) -> String? {
        guard !asleep else { return nil }
        if change != nil {
            change = nil
            frameNeeded = true
        }
        schedule.sleep(at: now)
        var failure: String?
        if !displayReleased && !disconnected {
            do { try screen.powerOff() } catch { failure = "\(error)" }
        }
        asleep = true
        forgetFrames()
        emit(.panelChanged(.off, why: why + (failure.map { "; the panel could not be switched off: \($0)" } ?? "")))
        return failure
    }

    /// The display is switched on again: the next wake-up sets the mode in
    /// full with the centred picture, which rests a whole `interval`.
    func wake(at now: Double, why: String) {
        guard asleep else { return }
        asleep = false
        screen.powerOn()
        schedule.wake(at: now)
        drawAgain()
        if change == nil && !pendingNews.isEmpty { applyPendingNews(at: now) }
        requestPictures(at: Double(schedule.target), now: now, always: true)
        emit(.panelChanged(panel, why: why))
    }

    /// The connector in use lost its screen (a hotplug): nothing is drawn,
    /// the show keeps its time, until a screen is back (``move(to:assembly:at:)``).
    func disconnect(at now: Double, why: String) {
        guard !disconnected else { return }
        if !displayReleased { screen.release() }
        disconnected = true
        forgetFrames()
        emit(.panelChanged(.disconnected, why: why))
    }

    /// A frame queued on a screen that will not show it is forgotten.
    private func forgetFrames() {
        stopAnimations()
        endZoom()
        inFlight = nil
        fingerFrameAt = nil
        lastMotionFrameShown = nil
        movesSinceDraw = []
    }

    /// The next frame is drawn in full, wherever the strip is.
    private func drawAgain() {
        drawnPosition = nil
        frameNeeded = true
        retryPresentAt = nil
        repaintWindow = RepaintWindow()
    }

    /// The seat is going to another session: a pending flip is finished
    /// or abandoned, and no frame is drawn until ``retakeDisplay(at:)``.
    /// Slides still happen on time, unseen.
    func releaseDisplay(at now: Double) {
        if !disconnected && !asleep { screen.release() }
        displayReleased = true
        forgetFrames()
    }

    /// The seat is back: the next wake-up draws the strip where it now is,
    /// with a full mode set, as for a new screen.
    func retakeDisplay(at now: Double) {
        screen.retake()
        // A panel switched off while the seat was away is switched off now.
        if asleep { try? screen.powerOff() }
        displayReleased = false
        drawAgain()
    }

    /// Starts a due slide and draws a frame if one is wanted and the screen
    /// can take it. The run loop calls this after every batch of events.
    func update(at now: Double) {
        guard !asleep else { return }
        if change == nil && !pendingNews.isEmpty { applyPendingNews(at: now) }
        updateZoom(at: now)
        // While the centred picture is zoomed, automatic slides wait.
        if zoomed == nil, schedule.advanceIfDue(at: now) {
            statistics.slides += 1
            settledTarget = schedule.target
        }
        if change == nil { reshuffleIfDue(at: now) }
        if unseen { stopAnimations() } else { playAnimations(at: now) }
        guard !unseen, !screen.flipPending else { return }
        guard let position = positionToDraw(at: now) else {
            if !schedule.isMoving(at: now) { lastMotionFrameShown = nil }
            fingerFrameAt = nil
            return
        }
        if let allowed = screen.nextPresentAllowed, allowed > now { return }
        if let retry = retryPresentAt, retry > now { return }
        if schedule.isHeld {
            let due = fingerFrameAt ?? repaintWindow.drawTime(
                at: now, nextRefresh: screen.nextRefresh(after: now), refreshPeriod: screen.refreshPeriod)
            fingerFrameAt = due
            if due > now { return }
        }
        // A frame planned for a moment: the timer's lateness eats into the window as drawing does.
        let lateness = fingerFrameAt.map { now - $0 } ?? 0
        fingerFrameAt = nil
        draw(at: position, moving: drawnPosition.map { $0 != position } ?? false, now: now, lateBy: lateness)
    }

    /// A new half round of the loop began: the pictures off screen are
    /// shuffled among their places (``ShuffleRounds``). Nothing on screen
    /// moves, so nothing is drawn; the preload follows the new order.
    private func reshuffleIfDue(at now: Double) {
        guard var rounds = shuffles else { return }
        let due = rounds.due(at: pictures.pictures.itemSlot(ofStripSlot: schedule.target), count: pictures.pictures.playlist.count)
        shuffles = rounds
        guard !due.isEmpty else { return }
        for places in due {
            let slot = pictures.pictures.shuffle(places, keepingSlot: schedule.target, using: &random)
            if slot != schedule.target { renumber(as: slot) }
        }
        requestPictures(at: drawnPosition ?? Double(schedule.target), now: now, always: true)
    }

    /// Starts, holds and stops the animated pictures as the strip moves
    /// (``AnimatedPictures``), shows their frames that are due, and asks the
    /// decoder for the next ones.
    private func playAnimations(at now: Double) {
        guard pictures.pictures.hasAnimations || !animated.isEmpty else { return }
        let position = schedule.position(at: now)
        let decoded = pictures.pictures
        let index = decoded.index
        var running: [String: FrameSchedule] = [:]
        for slot in layout.geometry.slotsHalfVisible(at: position) {
            guard let unit = index.item(forSlot: slot.index) else { continue }
            let key = decoded.key(unit)
            if let file = key.file, let animation = decoded.animation(of: key) { running[file] = animation }
        }
        let onScreen = Set(layout.geometry.visibleSlots(at: position).compactMap { index.item(forSlot: $0.index).flatMap { decoded.key($0).file } })
        animated.follow(running: running, onScreen: onScreen, at: now)
        if animated.advance(at: now) { frameNeeded = true }
        let requests = animated.requests
        if requests != animationRequests {
            animationRequests = requests
            decoder.animate(requests)
        }
    }

    /// No animation plays: nothing decoded, no wake-up for a frame.
    private func stopAnimations() {
        animated.stopAll()
        if !animationRequests.isEmpty {
            animationRequests = [:]
            decoder.animate([:])
        }
    }

    /// The picture to draw for `unit` (a playlist item without pairs): the
    /// centred one zoomed, an animation's frame, or its still.
    private func shownPicture(_ unit: Int) -> RasterImage? {
        if let zoomedFrame, zoomedFrame.unit == unit { return zoomedFrame.picture }
        if !animated.isEmpty, let file = pictures.pictures.key(unit).file, let frame = animated.frame(of: file) { return frame }
        return pictures.pictures.picture(unit)
    }

    /// The statistics, with whether the strip is still at `now`.
    func progress(at now: Double) -> ShowStatistics {
        var progress = statistics
        progress.atRest = !schedule.isMoving(at: now)
        return progress
    }

    /// True when a frame's flip has been pending for longer than
    /// ``stuckFlipLimit``: the screen stopped answering, and only a restart
    /// can be expected to help (the watchdog stops pinging).
    func isStuck(at now: Double) -> Bool {
        guard screen.flipPending, let presentedAt else { return false }
        return now - presentedAt > Self.stuckFlipLimit
    }

    /// When the run loop must call ``update(at:)`` if nothing else happens
    /// first: the next frame's moment, a retry of a display that failed, or
    /// the next automatic slide. Nil: only an event can change anything.
    func nextWakeUp(at now: Double) -> Double? {
        if asleep { return nil }
        if displayReleased || disconnected { return schedule.nextAdvance }
        // A pending flip's completion wakes the loop through the screen's descriptor.
        if screen.flipPending { return nil }
        if positionToDraw(at: now) != nil {
            return max(now, screen.nextPresentAllowed ?? now, retryPresentAt ?? now, fingerFrameAt ?? now)
        }
        if schedule.isMoving(at: now) { return screen.nextRefresh(after: now) }
        // At rest: the next slide (not while zoomed), an animation's next frame, or the zoom going back.
        let zoomBack = zoomed?.zoom.zoomBackDue(after: schedule.resumeAfter)
        // Fingers holding the zoom still: its sharp region is asked for once they have held it long enough.
        let held = zoomed.flatMap { $0.zoom.settlesAt }.flatMap { $0 > now ? $0 : nil }
        return [zoomed == nil ? schedule.nextAdvance : nil, animated.nextDue, zoomBack, held].compactMap { $0 }.min()
    }

    /// Where the strip will be when a frame presented now is shown, if that
    /// frame is worth drawing: the strip moved, or a picture changed.
    private func positionToDraw(at now: Double) -> Double? {
        let refresh = screen.nextRefresh(after: now)
        let position = schedule.position(at: refresh)
        return frameNeeded || change != nil || drawnPosition != position || zoomed?.zoom.zoom(at: refresh) != drawnZoom ? position : nil
    }

    /// Ends a change's animation at once (the playlist is about to change
    /// under it), applying any news that waited for it.
    private func endChange(at now: Double) {
        guard change != nil else { return }
        change = nil
        frameNeeded = true
        applyPendingNews(at: now)
    }

    /// The slot numbers changed under the strip (a file left or arrived):
    /// the same picture keeps its place on screen under its new number.
    private func renumber(as slot: Int) {
        // The units' numbers change: a zoom ends (the picture stays, at 1x).
        if slot != schedule.target { endZoom() }
        let delta = Double(slot - schedule.target)
        schedule.renumber(slot: schedule.target, as: slot, pictureCount: pictures.pictures.index.count)
        settledTarget += Int(delta)
        drawnPosition = drawnPosition.map { $0 + delta }
        inFlight = inFlight.map { ($0.moving, $0.position + delta, $0.arrives.flatMap { _ in centredItem }, $0.moves, $0.sharpAfter, $0.centredPicture) }
        pictures.position += delta
        change?.motion.renumber(by: Int(delta))
    }

    private func playlistChanged(at now: Double, added: Int = 0, removed: Int = 0, announce: Bool = true) {
        endZoom()
        frameNeeded = true
        if announce { emit(.playlistChanged(count: pictures.pictures.playlist.count, added: added, removed: removed)) }
        requestPictures(at: drawnPosition ?? Double(schedule.target), now: now, always: true)
    }

    // MARK: Drawing

    /// Composes the strip at `position` as it is at `shownAt` (a change's
    /// animation, the zoom, the animations' frames) into `surface`.
    private func render(into surface: PixelSurface, contents: inout BufferContents, position: Double, shownAt: Double) {
        // Taken out while it makes its picture, so it holds its last frame
        // alone and can draw the next one over it.
        if let unit = zoomed?.unit, let fitted = pictures.pictures.picture(unit), var zoomed = self.zoomed.take() {
            zoomedFrame = (zoomed.unit, zoomed.picture(
                at: shownAt, fitted: fitted, window: layout.geometry.slotSize, background: layout.renderer.compositor.background))
            self.zoomed = zoomed
        }
        defer { zoomedFrame = nil }
        if let change {
            layout.renderer.draw(
                into: surface, cells: change.motion.cells(at: position, time: shownAt), contents: &contents
            ) { content in
                switch content {
                case .item(let item): shownPicture(item)
                case .ghost(let ghost): change.ghosts[ghost]
                }
            }
        } else {
            layout.renderer.draw(
                into: surface, position: position, playlist: pictures.pictures.index, contents: &contents
            ) { shownPicture($0) }
        }
    }

    /// The frame last drawn, composed again in ordinary memory (`screenshot`):
    /// a display's buffer may be mapped write-combined, where reading a
    /// frame back takes far longer than composing it, so it is never read.
    /// Nil before the first frame, and while the panel shows nothing (off,
    /// disconnected, or the seat elsewhere).
    func frameNow() -> RasterImage? {
        guard !unseen, let position = drawnPosition, let shownAt = drawnFor else { return nil }
        var frame = RasterImage(size: layout.renderer.panel, filledWith: layout.renderer.compositor.background)
        frame.withSurface { surface in
            var fresh = BufferContents()
            render(into: surface, contents: &fresh, position: position, shownAt: shownAt)
        }
        return frame
    }

    private func draw(at position: Double, moving: Bool, now: Double, lateBy lateness: Double = 0) {
        let shownAt = screen.nextRefresh(after: now)
        let started = drawClock()
        let sharpBefore = zoomed?.showsSharp
        do {
            try screen.present(at: now) { surface, contents in
                let composing = drawClock()
                render(into: surface, contents: &contents, position: position, shownAt: shownAt)
                statistics.composeTime.record(drawClock() - composing)
            }
            repaintWindow.drew(taking: lateness + drawClock() - started, at: now)
        } catch {
            // A display that fails mid-show (unplugged, lost master) is not
            // something to crash on: say so once per run of failures, retry
            // each second, and keep the show's time going meanwhile.
            if retryPresentAt == nil { emit(.displayLost(reason: "\(error)")) }
            retryPresentAt = now + 1
            return
        }
        presentedAt = now
        if retryPresentAt != nil {
            retryPresentAt = nil
            emit(.displayBack)
        }
        let animating = change != nil
        if let motion = change?.motion, motion.isOver(at: shownAt) { change = nil }
        drawnPosition = position
        drawnFor = shownAt
        drawnZoom = zoomed?.zoom.zoom(at: shownAt)
        frameNeeded = false
        let sharpAfter = sharpBefore != nil && zoomed?.showsSharp == true ? pinchEndedAt : nil
        if sharpAfter != nil { pinchEndedAt = nil }
        // The first frame with the centred picture (`first_picture_ms`).
        let centredPicture = statistics.firstPictureShownAt == nil
            && pictures.pictures.index.item(forSlot: schedule.target).map { pictures.pictures.picture($0) != nil } == true
        inFlight = (moving || animating, position, moving && position == Double(schedule.target) ? centredItem : nil, movesSinceDraw, sharpAfter,
                    centredPicture)
        movesSinceDraw = []
        // Screens without flip events (the first mode set) show the frame at once.
        if !screen.flipPending { frameShown(at: screen.nextRefresh(after: now)) }
        requestPictures(at: position, now: now)
        if !announced && pictures.allOnScreen {
            announced = true
            emit(.ready(
                pictureCount: pictures.pictures.playlist.count, centred: centredItem,
                file: centredItem.map { pictures.pictures.playlist[$0] }))
        }
    }

    private func frameShown(at shownAt: Double) {
        guard let frame = inFlight else { return }
        inFlight = nil
        statistics.framesShown += 1
        if frame.centredPicture && statistics.firstPictureShownAt == nil { statistics.firstPictureShownAt = shownAt }
        for sensed in frame.moves { statistics.inputToPhoton.record(shownAt - sensed) }
        if let ended = frame.sharpAfter { statistics.zoomToSharp.record(shownAt - ended) }
        if frame.moving {
            if let last = lastMotionFrameShown {
                statistics.refreshesMissed += max(0, Int(((shownAt - last) / screen.refreshPeriod).rounded()) - 1)
            }
            lastMotionFrameShown = shownAt
            if let item = frame.arrives, item < pictures.pictures.playlist.count {
                let decoded = pictures.pictures
                let pair = decoded.items(ofUnit: decoded.unit(ofItem: item))
                emit(.pictureCentred(item: item, file: decoded.playlist[item], pairedWith: pair.count == 2 ? decoded.playlist[pair[1]] : nil))
            }
        }
    }

    // MARK: Zoom

    /// True while the centred picture is zoomed (or going back to 1x): one finger pans it.
    var isZoomed: Bool { zoomed != nil }

    /// The zoom for `status`.
    func zoomStatus(at now: Double) -> ZoomStatus? {
        guard let zoomed else { return nil }
        let shown = zoomed.zoom.zoom(at: now)
        let window = layout.geometry.slotSize
        return ZoomStatus(shown, limits: zoomed.zoom.limits, sharp: zoomed.sharp?.region == zoomed.view(shown, window: window).region)
    }

    /// Fingers zoom the centred picture: a pinch or a double tap starts a
    /// zoom when the strip rests on one file's picture that can be zoomed.
    private func zoomTouched(_ touch: ZoomTouch, at now: Double) {
        if zoomed == nil {
            switch touch {
            case .pinchBegan, .doubleTapped: break
            default: return
            }
            guard let started = startZoom(at: now) else { return }
            zoomed = started
        }
        zoomed?.zoom.apply(touch, at: now)
        updateZoom(at: now)
    }

    /// The zoom of the centred picture, if it can zoom: the strip at rest
    /// on a whole slot, no change animating, one file (not a pair, not an
    /// animation playing) whose picture and size are known, `max_zoom`
    /// above 1 and the photo larger than its slot.
    private func startZoom(at now: Double) -> ZoomedPicture? {
        let target = schedule.target
        guard maxZoom > 1, change == nil, !unseen, schedule.position(at: now) == Double(target) else { return nil }
        let decoded = pictures.pictures
        guard let unit = decoded.index.item(forSlot: target) else { return nil }
        let key = decoded.key(unit)
        guard let file = key.file, decoded.animation(of: key) == nil, let fitted = decoded.picture(unit), let original = decoded.info(of: key)?.originalSize else { return nil }
        let limits = PictureZoom.Limits(fitted: fitted.size, original: original, maximumZoom: maxZoom)
        guard limits.maximumScale > 1 else { return nil }
        let geometry = layout.geometry
        let centre = ScreenPoint(
            x: Double(geometry.slotLeft(target, at: Double(target))) + Double(geometry.slotWidth) / 2,
            y: Double(geometry.slotTop) + Double(geometry.slotHeight) / 2)
        return ZoomedPicture(unit: unit, path: file, zoom: CentredZoom(limits: limits, centre: centre, at: now))
    }

    /// Zooms back when nobody touched it for `resume_after`; ends a zoom
    /// back at 1x; asks the decoder for the sharp region once it is still.
    private func updateZoom(at now: Double) {
        guard var zoomed else { return }
        if let due = zoomed.zoom.zoomBackDue(after: schedule.resumeAfter), now >= due {
            zoomed.zoom.zoomBack(at: now, duration: schedule.motion.duration, easing: schedule.motion.easing)
        }
        self.zoomed = zoomed
        if zoomed.zoom.isOver(at: now) { return endZoom() }
        let wanted = zoomed.sharpWanted(at: now, window: layout.geometry.slotSize)
        let ask = wanted == zoomed.sharp?.region ? nil : wanted
        if ask != requestedRegion && (ask != nil || requestedRegion != nil) {
            requestedRegion = ask
            decoder.zoom(ask)
        }
    }

    /// The picture is at 1x again: the frame shows it as the strip does.
    private func endZoom() {
        guard zoomed != nil else { return }
        zoomed = nil
        pinchEndedAt = nil
        frameNeeded = true
        if requestedRegion != nil {
            requestedRegion = nil
            decoder.zoom(nil)
        }
    }

    /// Tells the decoder what to prepare, when the slots on screen, the
    /// direction of travel or the destination changed.
    private func requestPictures(at position: Double, now: Double, always: Bool = false) {
        // Off, nothing is decoded: waking asks for the pictures again.
        guard !asleep else { return }
        let direction = schedule.direction(at: now)
        let slots = layout.geometry.visibleSlots(at: position).map(\.index)
        let destination = schedule.target
        if !always, let last = requestedFor, last.slots == slots, last.direction == direction, last.destination == destination { return }
        requestedFor = (slots, direction, destination)
        pictures.position = position
        pictures.direction = direction
        pictures.destination = Double(destination)
        decoder.request(pictures.wanted())
        if pictures.pictures.pairing != nil { decoder.measure(pictures.toMeasure) }
    }
}
