import KioskCore
import KioskRendering

/// What a running show has done so far: for the log on exit and the benchmark.
public struct ShowStatistics: Equatable, Sendable {
    public var framesShown = 0
    /// Refreshes during a slide that showed no new frame: the composition
    /// (or the loop) missed them.
    public var refreshesMissed = 0
    /// Slides begun, by the timer or by a command.
    public var slides = 0
    /// True when the strip is still (no slide in progress).
    public var atRest = true
}

/// Something that decodes pictures off the run loop: the ``DecodeWorker``,
/// or in tests a decoder that finishes at once so time can be simulated.
protocol PictureDecoder: AnyObject {
    /// Replaces the list of files to decode, most urgent first.
    func request(_ paths: [String])
    /// The outcomes finished since the last call; never waits.
    func takeFinished() -> [DecodeOutcome]
}

extension DecodeWorker: PictureDecoder {}

/// The running show: the strip's motion, the pictures, and the frames on
/// the screen. Its one owner is the run loop (``ShowLoop``), which calls it
/// when something happens and asks it when to wake it next; nothing here
/// waits.
///
/// Frame pacing: while the strip moves, a frame is drawn as soon as the last
/// one has reached the screen, at the position the strip will have when the
/// new one does (``ShowScreen/nextRefresh(after:)``), so the speed on screen
/// follows the easing even if a frame is late. At rest nothing is drawn: the
/// only wake-up is the timer for the next slide.
final class RunningShow {
    let screen: any ShowScreen
    let layout: ShowLayout
    private(set) var pictures: ShowOnScreen
    private(set) var schedule: ShowSchedule
    private let decoder: any PictureDecoder
    private let log: (String) -> Void
    /// Log each picture the strip comes to rest on (`--verbose`).
    private let logEachPicture: Bool

    private var scratch = RasterImage(size: PixelSize(width: 1, height: 1), filledWith: .black)
    /// A picture on screen arrived or the playlist changed: draw even at rest.
    private var frameNeeded = true
    /// The position of the last frame presented.
    private var drawnPosition: Double?
    /// The frame queued on the screen: whether the strip moved for it.
    private var inFlight: (moving: Bool, position: Double)?
    /// When the last frame of an ongoing slide reached the screen.
    private var lastMotionFrameShown: Double?
    /// What the decoder was last asked for: the slots on screen and the way the strip was going.
    private var requestedFor: (slots: [Int], direction: TravelDirection)?
    private var announced = false
    /// After a failed present: not before this time again (a display that
    /// is gone must not turn the loop into a busy retry).
    private var retryPresentAt: Double?

    private(set) var statistics = ShowStatistics()

    init(
        screen: any ShowScreen, layout: ShowLayout, playlist: [String], decoder: any PictureDecoder,
        motion: MotionSettings, startAt index: Int, now: Double, logEachPicture: Bool = false,
        log: @escaping (String) -> Void
    ) {
        self.screen = screen
        self.layout = layout
        self.decoder = decoder
        self.log = log
        self.logEachPicture = logEachPicture
        pictures = ShowOnScreen(
            pictures: ShowPictures(playlist: playlist, layout: layout), layout: layout, position: Double(index))
        schedule = ShowSchedule(at: index, pictureCount: playlist.count, settings: motion, now: now)
        requestPictures(at: Double(index), now: now)
    }

    /// The playlist item in the centre, or the one the strip is sliding to.
    var centredItem: Int? { pictures.pictures.index.item(forSlot: schedule.target) }

    // MARK: Events

    /// An operator's command: obeyed at once, mid-slide too.
    func command(_ command: ShowCommand, at now: Double) {
        let before = schedule.target
        schedule.apply(command, at: now)
        if schedule.target != before { statistics.slides += 1 }
    }

    /// The screen's descriptor is readable: flips completed.
    func screenEvents(at now: Double) {
        for shownAt in screen.handleEvents(at: now) { frameShown(at: shownAt) }
    }

    /// The decoder's descriptor is readable: pictures finished.
    func picturesReady(at now: Double) {
        let countBefore = pictures.pictures.playlist.count
        let change = pictures.take(decoder.takeFinished())
        change.log.forEach(log)
        // Keep the centred picture where it is when files before it drop out.
        var count = countBefore
        for item in change.removed {
            let slot = CircularIndex(count: count).slotKeepingItem(atSlot: schedule.target, afterRemoving: item)
            let delta = Double(slot - schedule.target)
            schedule.renumber(slot: schedule.target, as: slot, pictureCount: count - 1)
            drawnPosition = drawnPosition.map { $0 + delta }
            count -= 1
        }
        if change.onScreen { frameNeeded = true }
        if change.playlist { requestPictures(at: drawnPosition ?? Double(schedule.target), now: now, always: true) }
        if change.playlist && pictures.pictures.playlist.isEmpty { log("no picture in the folder could be shown: showing the background only") }
    }

    /// Starts a due slide and draws a frame if one is wanted and the screen
    /// can take it. The run loop calls this after every batch of events.
    func update(at now: Double) {
        if schedule.advanceIfDue(at: now) { statistics.slides += 1 }
        guard !screen.flipPending else { return }
        guard let position = positionToDraw(at: now) else {
            if !schedule.isMoving(at: now) { lastMotionFrameShown = nil }
            return
        }
        if let allowed = screen.nextPresentAllowed, allowed > now { return }
        if let retry = retryPresentAt, retry > now { return }
        draw(at: position, moving: drawnPosition.map { $0 != position } ?? false, now: now)
    }

    /// The statistics, with whether the strip is still at `now`.
    func progress(at now: Double) -> ShowStatistics {
        var progress = statistics
        progress.atRest = !schedule.isMoving(at: now)
        return progress
    }

    /// When the run loop must call ``update(at:)`` if nothing else happens
    /// first; nil: only an event can change anything.
    func nextWakeUp(at now: Double) -> Double? {
        // A pending flip's completion wakes the loop through the screen's descriptor.
        if screen.flipPending { return nil }
        if positionToDraw(at: now) != nil {
            return max(now, screen.nextPresentAllowed ?? now, retryPresentAt ?? now)
        }
        if schedule.isMoving(at: now) { return screen.nextRefresh(after: now) }
        return schedule.nextAdvance
    }

    /// Where the strip will be when a frame presented now is shown, if that
    /// frame is worth drawing: the strip moved, or a picture changed.
    private func positionToDraw(at now: Double) -> Double? {
        let position = schedule.position(at: screen.nextRefresh(after: now))
        return frameNeeded || drawnPosition != position ? position : nil
    }

    // MARK: Drawing

    private func draw(at position: Double, moving: Bool, now: Double) {
        let playlist = pictures.pictures.index
        do {
            try screen.present(at: now) { surface, contents in
                layout.renderer.draw(
                    into: surface, position: position, playlist: playlist, contents: &contents, scratch: &scratch
                ) { pictures.pictures.picture($0) }
            }
            retryPresentAt = nil
        } catch {
            // A display that fails mid-show (unplugged, lost master) is not
            // something to crash on: say so once per run of failures, retry
            // each second, and keep the show's time going meanwhile.
            if retryPresentAt == nil { log("cannot present a frame: \(error); retrying every second") }
            retryPresentAt = now + 1
            return
        }
        drawnPosition = position
        frameNeeded = false
        inFlight = (moving, position)
        // Screens without flip events (the first mode set) show the frame at once.
        if !screen.flipPending { frameShown(at: screen.nextRefresh(after: now)) }
        requestPictures(at: position, now: now)
        if !announced && pictures.allOnScreen {
            announced = true
            log("showing \(pictures.pictures.playlist.count) picture(s), picture "
                + "\(centredItem.map(String.init) ?? "none") in the centre")
        }
    }

    private func frameShown(at shownAt: Double) {
        guard let frame = inFlight else { return }
        inFlight = nil
        statistics.framesShown += 1
        if frame.moving {
            if let last = lastMotionFrameShown {
                statistics.refreshesMissed += max(0, Int(((shownAt - last) / screen.refreshPeriod).rounded()) - 1)
            }
            lastMotionFrameShown = shownAt
            if logEachPicture, frame.position == Double(schedule.target), let item = centredItem {
                log("picture \(item) in the centre: \(pictures.pictures.playlist[item])")
            }
        }
    }

    /// Tells the decoder what to prepare, when the slots on screen or the
    /// direction of travel changed.
    private func requestPictures(at position: Double, now: Double, always: Bool = false) {
        let direction = schedule.direction(at: now)
        let slots = layout.geometry.visibleSlots(at: position).map(\.index)
        if !always, let last = requestedFor, last.slots == slots, last.direction == direction { return }
        requestedFor = (slots, direction)
        pictures.position = position
        pictures.direction = direction
        decoder.request(pictures.wanted())
    }
}
