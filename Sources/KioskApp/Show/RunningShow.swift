import ImageCodecs
import KioskCore
import KioskRendering
import LinuxPlatform
import SystemCalls

/// The running show: the strip's motion, the pictures, and the frames on
/// the screen. Its one owner is the run loop (through ``ShowController``),
/// which calls it when something happens and asks it when to wake it next;
/// nothing here waits. What it does is told as ``ShowEvent``s through ``emit``.
///
/// It coordinates four parts, each with one concern: the ``ShowSchedule``
/// (where the strip is and goes), the ``StripContents`` (what it shows),
/// the ``FramePacer`` (when frames are drawn, and the panel), and the
/// ``ShowZoom``. Its own rules are those that join them: the strip moving
/// ends a zoom, a zoom holds automatic slides, a renumbered playlist
/// renumbers every part, and at rest nothing is drawn (the only wake-up is
/// the next slide's).
final class RunningShow {
    // Set only by the show's own files (this one and RunningShow+Changes.swift).
    var layout: ShowLayout
    var schedule: ShowSchedule
    /// The playlist's order (the `order` setting), for `status`.
    var order: PictureOrder
    /// How clips play (`video_max`, `video_repeat`).
    var clipSettings: ClipSettings
    /// The whole picture the strip last rested on or set off for (a finger's hold aside), for counting slides.
    private var settledTarget: Int
    /// ``ShowEvent/ready`` was told for this screen.
    var announced = false
    /// How bright frames are drawn (software dimming, where the panel has
    /// no backlight to turn down): 100 is as composed. Screenshots are not
    /// dimmed: they show the show, not the panel.
    var softwareBrightness = 100 {
        didSet { if softwareBrightness != oldValue { pacer.frameNeeded = true } }
    }
    // The parts; internal for the show's other file (RunningShow+Changes.swift) alone.
    let pacer: FramePacer
    let zoom: ShowZoom
    let strip: StripContents
    let texts: ScreenTexts
    /// Whether frames are panned, and the long buffer on screen.
    var panner = ShowPanner()
    /// Where the show's events go; the controller passes them on.
    var emit: (ShowEvent) -> Void = { _ in }

    init(assembly: ShowAssembly, screen: any ShowScreen, decoder: any PictureDecoder, texts drawer: any TextDrawer, startAt index: Int, now: Double) {
        layout = assembly.layout
        let decoded = assembly.makePictures()
        let start = decoded.stripSlot(ofItemSlot: index)
        strip = StripContents(assembly: assembly, decoder: decoder, startSlot: start, pictures: decoded)
        schedule = ShowSchedule(at: start, pictureCount: decoded.index.count, settings: assembly.settings.motion, now: now)
        settledTarget = schedule.target
        order = assembly.settings.folder.order
        clipSettings = assembly.settings.clips
        var emitted: ((ShowEvent) -> Void)?
        pacer = FramePacer(screen: screen) { emitted?($0) }
        zoom = ShowZoom(maxZoom: assembly.settings.input.maxZoom, decoder: decoder, pacer: pacer)
        texts = ScreenTexts(
            settings: layout.text, screen: layout.geometry.screen, rotation: layout.renderer.rotation, drawer: drawer,
            wallClock: WallClockTimer.preciseNow)
        emitted = { [unowned self] in emit($0) }
        texts.note = { [unowned self] in emit(.textNote($0)) }
        requestPictures(at: Double(start), now: now)
    }

    /// Works out whether frames can be panned on this screen with this
    /// layout (``ShowPanner``), saying so in the log when that changed.
    func configurePanning() {
        if let line = panner.configure(setting: layout.panning, layout: layout, screen: screen.panning) { emit(.panningChanged(line)) }
    }

    /// The display; a reload that changes it moves the show to a new one (``move(to:assembly:at:announce:)``).
    var screen: any ShowScreen { pacer.screen }
    var pictures: PictureNeighbourhood { strip.pictures }
    var recipe: PictureRecipe { strip.recipe }
    var change: (motion: StripChange, ghosts: [Int: RasterImage])? { strip.change }
    var statistics: ShowStatistics { pacer.statistics }
    var repaintWindow: RepaintWindow { pacer.repaintWindow }
    /// Times a draw (the monotonic clock; a test's simulated one draws in no time).
    var drawClock: () -> Double {
        get { pacer.drawClock }
        set { pacer.drawClock = newValue }
    }
    var panel: PanelState { pacer.blocks.panel }
    var asleep: Bool { pacer.blocks.contains(.asleep) }
    var displayReleased: Bool { pacer.blocks.contains(.elsewhere) }
    var disconnected: Bool { pacer.blocks.contains(.disconnected) }
    /// True while the centred picture is zoomed (or going back to 1x): one finger pans it.
    var isZoomed: Bool { zoom.isZoomed }

    /// The playlist item in the centre, or the one the strip is sliding to
    /// (with `portrait_pairs`, the left one of a pair).
    var centredItem: Int? { strip.decoded.item(forSlot: schedule.target) }
    /// The files in the centre, or in the slot the strip is sliding to: one, or a pair's two.
    var centredFiles: [String] { strip.files(inSlot: schedule.target) }

    // MARK: Events

    /// An operator's command: obeyed at once, mid-slide too. `sensedAt`: when
    /// the kernel stamped the input it comes from (a finger's move), for
    /// ``ShowStatistics/inputToPhoton``.
    func command(_ command: ShowCommand, at now: Double, sensedAt: Double? = nil) {
        if case .zoom(let touch) = command {
            zoom.touched(touch, at: now, sensedAt: sensedAt, start: { startZoom(at: now) }, schedule: schedule, window: layout.geometry.slotSize)
            schedule.apply(command, at: now)
            return
        }
        // The strip moving takes the zoomed picture back to 1x at once.
        switch command {
        case .move, .goto, .touch(.dragged), .touch(.released), .hold: zoom.end()
        default: break
        }
        let paused = schedule.isPaused
        let before = schedule.position(at: now)
        // The schedule counts slots: a file goes to the slot showing it (a pair's, with `portrait_pairs`).
        if case .goto(let item) = command, item < strip.decoded.playlist.count {
            schedule.apply(.goto(item: strip.decoded.unit(ofItem: item)), at: now)
        } else {
            schedule.apply(command, at: now)
        }
        // A move the strip follows: counted until the frame that shows it is on screen.
        if let sensedAt, case .touch(.dragged) = command, schedule.isHeld, schedule.position(at: now) != before {
            pacer.moveSensed(at: sensedAt)
        }
        // A slide is a new whole picture to rest on: a finger dragging the
        // strip to and fro counts once, when it lets go.
        if !schedule.isHeld {
            if schedule.target != settledTarget { pacer.count { $0.slides += 1 } }
            settledTarget = schedule.target
        }
        if schedule.isPaused != paused {
            // A clip in the centre pauses with the show; resumed, its rest is what it has left to play.
            apply(strip.pauseClip(schedule.isPaused, at: now), at: now)
            emit(schedule.isPaused ? .paused : .resumed)
        }
        switch command {
        case .move, .goto: if schedule.isMoving(at: now) { pacer.commandedMove() }
        default: break
        }
    }

    /// The screen's descriptor is readable: flips completed.
    func screenEvents(at now: Double) {
        for arrival in pacer.screenEvents(at: now) { centred(arrival, now: now) }
    }

    /// A frame brought an item to rest in the centre. When, on the wall
    /// clock: the show's clock is the monotonic one, `now` on it is the
    /// wall clock's now.
    private func centred(_ arrival: FrameArrival?, now: Double) {
        let decoded = strip.decoded
        guard let arrival, arrival.item < decoded.playlist.count else { return }
        let item = arrival.item, pair = decoded.items(ofUnit: decoded.unit(ofItem: item))
        emit(.pictureCentred(
            item: item, file: decoded.playlist[item], pairedWith: pair.count == 2 ? decoded.playlist[pair[1]] : nil,
            shownAt: WallClockTimer.preciseNow() - (now - arrival.shownAt)))
    }

    /// The decoder's descriptor is readable: pictures finished.
    func picturesReady(at now: Double) {
        var stills: [DecodeOutcome] = []
        var sizes: [MeasuredSize] = []
        for outcome in strip.decoder.takeFinished() {
            switch outcome {
            case .measured(let measured): sizes += measured
            case .frame(let path, let playback, let number, let picture): strip.take(frame: path, playback: playback, number: number, picture: picture)
            case .animationStopped(let error, let playback):
                strip.stop(animation: error.path, playback: playback)
                emit(.animationStopped(file: error.path, reason: error.why))
            case .region(let region, let picture): zoom.arrived(region, picture, window: layout.geometry.slotSize)
            case .regionFailed(let region, let error):
                if zoom.failed(region) { emit(.zoomNotSharp(file: error.path, reason: error.why)) }
            case .decoded, .failed: stills.append(outcome)
            }
        }
        if !sizes.isEmpty { measured(sizes, at: now) }
        for case .decoded(let key, let picture, _, let info) in stills { texts.wantCaption(for: key, picture: picture, info: info) }
        let arrivals = strip.pictures.take(stills)
        texts.keepCaptions(of: strip.decoded.wantedKeys)
        for (file, note) in arrivals.notes { emit(.pictureNote(file: file, note: note)) }
        if arrivals.onScreen { pacer.frameNeeded = true }
        guard !arrivals.refused.isEmpty else { return }
        endChange(at: now)
        for error in arrivals.refused {
            emit(.pictureRefused(file: error.path, reason: error.why))
            if let slot = strip.pictures.pictures.remove(error.path, keepingSlot: schedule.target) { renumber(as: slot) }
        }
        playlistChanged(at: now, removed: arrivals.refused.count)
    }

    /// Files' sizes were read (`portrait_pairs`): pairs may form; the file
    /// in the centre keeps its place, and the next sizes are asked for.
    private func measured(_ sizes: [MeasuredSize], at now: Double) {
        if let slot = strip.pictures.pictures.measured(sizes, keepingSlot: schedule.target) {
            endChange(at: now)
            renumber(as: slot)
            pacer.frameNeeded = true
        }
        requestPictures(at: pacer.drawnPosition ?? Double(schedule.target), now: now, always: true)
    }

    /// A frame queued on a screen that will not show it is forgotten.
    func forgetFrames() {
        strip.stopAnimations()
        zoom.end()
        pacer.forgetFrames()
    }

    /// Ends a change's animation at once (the playlist is about to change
    /// under it), applying any news that waited for it.
    func endChange(at now: Double) {
        guard strip.change != nil else { return }
        strip.change = nil
        pacer.frameNeeded = true
        applyPendingNews(at: now)
    }

    /// The slot numbers changed under the strip (a file left or arrived):
    /// the same picture keeps its place on screen under its new number.
    func renumber(as slot: Int) {
        // The units' numbers change: a zoom ends (the picture stays, at 1x).
        if slot != schedule.target { zoom.end() }
        let delta = Double(slot - schedule.target)
        schedule.renumber(slot: schedule.target, as: slot, pictureCount: strip.decoded.index.count)
        strip.renumberClip(by: Int(delta))
        settledTarget += Int(delta)
        pacer.renumber(by: delta, arrives: centredItem)
        strip.pictures.position += delta
        strip.change?.motion.renumber(by: Int(delta))
    }

    func playlistChanged(at now: Double, added: Int = 0, removed: Int = 0, announce: Bool = true) {
        zoom.end()
        pacer.frameNeeded = true
        if announce { emit(.playlistChanged(count: strip.decoded.playlist.count, added: added, removed: removed)) }
        requestPictures(at: pacer.drawnPosition ?? Double(schedule.target), now: now, always: true)
    }

    // MARK: Frames

    /// Starts a due slide and draws a frame if one is wanted and the screen
    /// can take it. The run loop calls this after every batch of events.
    func update(at now: Double) {
        // A message expires while the display is off too: the state says so at once.
        if texts.expireMessage(at: now) {
            pacer.frameNeeded = true
            emit(.messageChanged(text: nil))
        }
        guard !asleep else { return }
        if !panner.configured { configurePanning() }
        if texts.update(at: now) { pacer.frameNeeded = true }
        if strip.change == nil && strip.hasPendingNews { applyPendingNews(at: now) }
        zoom.update(at: now, schedule: schedule, window: layout.geometry.slotSize)
        // While the centred picture is zoomed, automatic slides wait.
        if !zoom.isZoomed, schedule.advanceIfDue(at: now) {
            pacer.count { $0.slides += 1 }
            settledTarget = schedule.target
        }
        // A new half round of the shuffle: nothing on screen moves, so nothing is drawn; the preload follows the new order.
        if strip.change == nil, let slots = strip.reshuffleIfDue(keepingSlot: schedule.target) {
            for slot in slots where slot != schedule.target { renumber(as: slot) }
            requestPictures(at: pacer.drawnPosition ?? Double(schedule.target), now: now, always: true)
        }
        if pacer.unseen {
            strip.stopAnimations()
        } else if strip.playAnimations(geometry: layout.geometry, at: schedule.position(at: now), now: now) {
            pacer.frameNeeded = true
        }
        playClip(at: now)
        guard !pacer.unseen, !screen.flipPending else { return }
        guard let position = positionToDraw(at: now) else {
            pacer.nothingToDraw(moving: schedule.isMoving(at: now))
            return drawAheadOfTheNextSlide(at: now)
        }
        guard let lateness = pacer.drawingAllowed(at: now, held: schedule.isHeld) else { return }
        draw(at: position, moving: pacer.drawnPosition.map { $0 != position } ?? false, now: now, lateBy: lateness)
    }

    /// The clip in the centre plays once the strip has come to rest on it,
    /// the panel showing and nothing zoomed; it stops when any of that ends
    /// (``StripContents/followClip(centre:canPlay:moving:settings:)``).
    /// Its frames go on screen at the refresh nearest their time on its
    /// clock, and the automatic slide waits for its end, up to `video_max`.
    private func playClip(at now: Double) {
        let moving = schedule.isMoving(at: now)
        let canPlay = !pacer.unseen && !moving && !schedule.isHeld && !zoom.isZoomed && schedule.position(at: now) == Double(schedule.target)
        if strip.followClip(centre: schedule.target, canPlay: canPlay, moving: moving, paused: schedule.isPaused, settings: clipSettings, at: now) {
            pacer.frameNeeded = true
        }
        guard strip.clip != nil, !pacer.unseen else { return }
        apply(strip.advanceClip(refresh: screen.nextRefresh(after: now), period: screen.refreshPeriod), at: now)
    }

    /// What a step of the clip changed: its rest, the frame, the log.
    private func apply(_ news: StripContents.ClipNews, at now: Double) {
        if let end = news.restUntil { schedule.restUntil(end) }
        if let end = news.restAtLeast { schedule.restAtLeastUntil(end) }
        if news.released { schedule.restUntil(now + schedule.interval) }
        if news.frameChanged { pacer.frameNeeded = true }
        if news.shown != 0 || news.dropped != 0 || news.startLatency != nil {
            pacer.count {
                $0.clipFramesShown += news.shown
                $0.clipFramesDropped += news.dropped
                if let latency = news.startLatency { $0.clipStart.record(latency) }
            }
        }
        pacer.clipPlaying = strip.clip?.clock != nil
        for event in news.events { emit(event) }
    }

    /// The clip decoder's descriptor is readable: frames arrived.
    func clipFramesReady(at now: Double) {
        apply(strip.takeClipFrames(), at: now)
    }

    /// When the run loop must call ``update(at:)`` if nothing else happens
    /// first: the next frame's moment, a retry of a display that failed, or
    /// the next automatic slide. Nil: only an event can change anything.
    func nextWakeUp(at now: Double) -> Double? {
        let messageExpires = texts.message?.expires
        if asleep { return messageExpires }
        if displayReleased || disconnected { return [schedule.nextAdvance, messageExpires].compactMap { $0 }.min() }
        if screen.flipPending { return nil }
        if positionToDraw(at: now) != nil { return pacer.nextFrameTime(at: now) }
        if schedule.isMoving(at: now) { return screen.nextRefresh(after: now) }
        // At rest: the next slide (not while zoomed), an animation's next frame, or the zoom's.
        let wakeUps = [
            zoom.isZoomed ? nil : schedule.nextAdvance, strip.nextFrameDue, strip.nextClipFrameDue(period: screen.refreshPeriod),
            texts.nextWakeUp(at: now),
        ].compactMap { $0 }
        return (wakeUps + zoom.nextWakeUps(at: now, resumeAfter: schedule.resumeAfter)).min()
    }

    /// Where the strip will be when a frame presented now is shown, if that
    /// frame is worth drawing: the strip moved, or a picture changed.
    private func positionToDraw(at now: Double) -> Double? {
        let refresh = screen.nextRefresh(after: now)
        let position = schedule.position(at: refresh)
        return pacer.frameNeeded || strip.change != nil || pacer.drawnPosition != position || zoom.changed(at: refresh) ? position : nil
    }

    private func draw(at position: Double, moving: Bool, now: Double, lateBy lateness: Double) {
        let sharpBefore = zoom.showsSharp
        let presented = present(at: position, moving: moving, now: now, lateBy: lateness)
        guard let shownAt = presented else { return }
        let animating = strip.change != nil
        if let motion = strip.change?.motion, motion.isOver(at: shownAt) { strip.change = nil }
        let decoded = strip.decoded
        let frame = FrameInFlight(
            moving: moving || animating, position: position, arrives: moving && position == Double(schedule.target) ? centredItem : nil,
            sharpAfter: zoom.drew(for: shownAt, sharpBefore: sharpBefore),
            centredPicture: decoded.index.item(forSlot: schedule.target).map { decoded.picture($0) != nil } == true)
        centred(pacer.queued(frame, for: shownAt, at: now), now: now)
        requestPictures(at: position, now: now)
        if !announced && strip.pictures.allOnScreen {
            announced = true
            emit(.ready(pictureCount: strip.decoded.playlist.count, centred: centredItem, file: centredItem.map { strip.decoded.playlist[$0] }))
        }
    }

    /// At rest, unpaused, with nothing to draw: the next slide's long
    /// buffer is drawn now into the buffer not on screen
    /// (``ShowPanner/bufferAhead(of:at:layout:playlist:brightness:overlays:plain:caption:picture:)``),
    /// once for what is on screen, so the slide's first frame is a window
    /// of it. Not while an animation or a clip plays (its frames would draw over it),
    /// zoomed, or while a finger holds the strip.
    private func drawAheadOfTheNextSlide(at now: Double) {
        guard !schedule.isPaused, !schedule.isHeld, !schedule.isMoving(at: now), strip.nextFrameDue == nil, strip.clip == nil, !zoom.isZoomed,
              let position = pacer.drawnPosition, position == Double(schedule.target),
              let buffer = panner.bufferAhead(
                of: cells(at: position, shownAt: now), at: position, layout: layout, playlist: strip.decoded.index,
                brightness: softwareBrightness, overlays: texts.overlays(), plain: strip.change == nil, caption: caption(of:), picture: picture(of:))
        else { return }
        let drawn = pacer.drawAhead { () throws(ScreenError) -> Bool in
            try screen.drawLongAhead(size: buffer.panelSize) { surface in buffer.draw(into: surface) }
        }
        if drawn {
            panner.drewAhead(buffer)
        } else if case .unavailable = screen.panning {
            emit(.panningChanged(panner.refused(screen.panning)))
        }
    }

    /// Shows the frame at `position`: a window of the long buffer on
    /// screen, a long buffer drawn, or the frame composed (``ShowPanner``).
    /// Returns the refresh it is for, or nil when the screen failed.
    private func present(at position: Double, moving: Bool, now: Double, lateBy lateness: Double) -> Double? {
        let shownAt = screen.nextRefresh(after: now)
        let plan = composing(at: shownAt) {
            panner.plan(
                cells: cells(at: position, shownAt: shownAt), at: position, towards: schedule.isHeld ? nil : Double(schedule.target),
                still: !moving, layout: layout, playlist: strip.decoded.index, brightness: softwareBrightness, overlays: texts.overlays(),
                plain: strip.change == nil && !zoom.isZoomed, caption: caption(of:), picture: picture(of:))
        }
        var presented = FramePacer.Presented.declined
        switch plan {
        case .pan(let window):
            presented = pacer.present(at: now, lateBy: lateness, way: .panned) { () throws(ScreenError) -> Bool in
                try screen.pan(at: now, to: window)
            }
        case .drawLong(let buffer, let window):
            presented = pacer.present(at: now, lateBy: lateness, way: .drawnLong) { () throws(ScreenError) -> Bool in
                try screen.presentLong(at: now, size: buffer.panelSize, window: window) { surface in
                    let drawing = drawClock()
                    buffer.draw(into: surface)
                    pacer.recordComposeTime(drawClock() - drawing)
                }
            }
            // Refused for good (a test commit failed): composed from now on.
            if presented == .declined, case .unavailable = screen.panning { emit(.panningChanged(panner.refused(screen.panning))) }
        case .showAhead(_, let window):
            presented = pacer.present(at: now, lateBy: lateness, way: .panned) { () throws(ScreenError) -> Bool in
                try screen.presentDrawnAhead(at: now, window: window)
            }
        case .compose:
            break
        }
        switch presented {
        case .shown(let refresh):
            panner.shown(plan, still: !moving)
            return refresh
        case .failed:
            return nil
        case .declined:
            // Composed: the first frame after a mode set, or a pan the screen could not make.
            let composed = pacer.present(at: now, lateBy: lateness) { surface, contents, shownAt in
                render(into: surface, contents: &contents, position: position, shownAt: shownAt, brightness: softwareBrightness)
            }
            if composed != nil { panner.shown(.compose, still: !moving) }
            return composed
        }
    }

    /// Composes the strip at `position` as it is at `shownAt` (a change's
    /// animation, the zoom, the animations' frames) into `surface`.
    private func render(into surface: PixelSurface, contents: inout BufferContents, position: Double, shownAt: Double, brightness: Int) {
        composing(at: shownAt) {
            layout.renderer.draw(
                into: surface, cells: cells(at: position, shownAt: shownAt), brightness: brightness, overlays: texts.overlays(),
                caption: caption(of:), contents: &contents, picture: picture(of:))
        }
    }

    /// Runs `body` with the zoom's picture for `shownAt` made, and forgets it after.
    private func composing<Result>(at shownAt: Double, _ body: () -> Result) -> Result {
        zoom.makeFrame(
            at: shownAt, fitted: { strip.decoded.picture($0) }, window: layout.geometry.slotSize, background: layout.renderer.compositor.background)
        defer { zoom.frameComposed() }
        return body()
    }

    /// The cells on screen at `position`: a change's, as it is at `shownAt`, else the still strip's.
    private func cells(at position: Double, shownAt: Double) -> [StripCell] {
        strip.change?.motion.cells(at: position, time: shownAt) ?? layout.renderer.compositor.geometry.cells(at: position, playlist: strip.decoded.index)
    }

    /// What a cell shows: an item's picture (zoomed, or an animation's frame), or a ghost leaving.
    private func picture(of content: StripCell.Content) -> RasterImage? {
        switch content {
        case .item(let item): strip.shownPicture(item, zoomed: zoom.frame)
        case .ghost(let ghost): strip.change?.ghosts[ghost]
        }
    }

    private func caption(of content: StripCell.Content) -> OverlayLayer? {
        if case .item(let unit) = content { texts.caption(for: strip.decoded.key(unit)) } else { nil }
    }

    // MARK: Text

    /// New text settings or a new screen: the captions of the pictures held
    /// are asked for again (each decoded picture's is asked for as it arrives).
    func configureTexts() {
        texts.configure(settings: layout.text, screen: layout.geometry.screen, rotation: layout.renderer.rotation)
        let decoded = strip.decoded
        for key in decoded.wantedKeys {
            guard let file = key.file, let picture = decoded.picture(of: file) else { continue }
            texts.wantCaption(for: key, picture: picture, info: decoded.info(of: key))
        }
    }

    /// The text worker's descriptor is readable: layers finished.
    func textsReady(at now: Double) {
        if texts.takeFinished() { pacer.frameNeeded = true }
    }

    /// Shows or clears the message.
    func message(_ request: MessageRequest, at now: Double) {
        switch request {
        case .show(let text, let seconds):
            texts.show(ScreenMessage(text: text, expires: seconds.map { now + $0 }))
            emit(.messageChanged(text: texts.messageWords))
        case .clear:
            guard texts.clearMessage() else { return }
            pacer.frameNeeded = true
            emit(.messageChanged(text: nil))
        }
    }

    /// The makings of the frame last drawn, to be composed again in
    /// ordinary memory off the loop (`screenshot`, the MQTT picture): a
    /// display's buffer may be mapped write-combined, where reading a frame
    /// back takes far longer than composing it, so it is never read. Nil
    /// before the first frame, and while the panel shows nothing.
    func frameRecipe() -> FrameRecipe? {
        guard !pacer.unseen, let position = pacer.drawnPosition, let shownAt = pacer.drawnFor else { return nil }
        return composing(at: shownAt) {
            FrameRecipe(
                renderer: layout.renderer, cells: cells(at: position, shownAt: shownAt), overlays: texts.overlays(), caption: caption(of:),
                picture: picture(of:))
        }
    }

    /// The statistics, with whether the strip is still at `now`.
    func progress(at now: Double) -> ShowStatistics {
        var progress = statistics
        progress.atRest = !schedule.isMoving(at: now)
        return progress
    }

    /// True when a frame's flip has been pending too long (``FramePacer/isStuck(at:)``): the watchdog stops pinging.
    func isStuck(at now: Double) -> Bool { pacer.isStuck(at: now) }

    // MARK: Zoom and decoding

    /// The zoom for `status`.
    func zoomStatus(at now: Double) -> ZoomStatus? { zoom.status(at: now, window: layout.geometry.slotSize) }

    /// The zoom of the centred picture, if it can zoom now: the strip at
    /// rest on a whole slot, no change animating, the panel showing
    /// (``ShowZoom/start(slot:of:geometry:at:)`` says what else it needs).
    private func startZoom(at now: Double) -> ZoomedPicture? {
        guard strip.change == nil, !pacer.unseen, schedule.position(at: now) == Double(schedule.target) else { return nil }
        return zoom.start(slot: schedule.target, of: strip.decoded, geometry: layout.geometry, at: now)
    }

    /// Tells the decoder what to prepare, when the slots on screen, the
    /// direction of travel or the destination changed. Off, nothing is
    /// decoded: waking asks for the pictures again.
    func requestPictures(at position: Double, now: Double, always: Bool = false) {
        guard !asleep else { return }
        strip.request(
            slots: layout.geometry.visibleSlots(at: position).map(\.index), at: position, direction: schedule.direction(at: now),
            destination: schedule.target, always: always)
    }
}
