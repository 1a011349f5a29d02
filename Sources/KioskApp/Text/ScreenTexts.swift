import ImageCodecs
import KioskCore
import KioskRendering

/// The words on the screen for the run loop: each picture's caption, the
/// clock and the message, as layers the compositor blends in. Layers are
/// asked of a ``TextDrawer`` (the worker) when their words change, and
/// used when they arrive; nothing here draws or waits.
///
/// The clock's layer for the next minute is drawn ahead, so the frame at
/// the minute's turn has it; the show wakes for the turn only while the
/// display is on (``nextWakeUp(at:)``), so a display that is off costs no
/// wake-ups.
final class ScreenTexts {
    private(set) var settings: TextSettings
    /// The screen as the viewer sees it (upright), and how the panel is turned.
    private(set) var screen: PixelSize
    private(set) var rotation: Rotation
    let drawer: any TextDrawer
    /// The wall clock (seconds since the epoch), for the clock's minutes; a test's simulated one.
    var wallClock: () -> Double
    /// Log lines, each said once (a font substituted, no fonts, a locale missing).
    var note: (String) -> Void = { _ in }

    private var wanted: [TextKey: TextJob] = [:]
    private var layers: [TextKey: (job: TextJob, layer: OverlayLayer?)] = [:]
    /// Clock layers by minute: this one's, and the next drawn ahead (nil: the pattern wrote nothing).
    private var clockLayers: [Int64: (layer: OverlayLayer?, words: String)] = [:]
    /// The minute whose clock the drawer is drawing.
    private var clockAsked: Int64?
    /// The minute the clock on screen shows; set when a frame takes its overlays.
    private var shownClockMinute: Int64?
    private(set) var message: ScreenMessage?
    /// The words of the layers on screen, for `status` and tests.
    private(set) var shownWords: [TextKey: String] = [:]

    init(settings: TextSettings, screen: PixelSize, rotation: Rotation, drawer: any TextDrawer, wallClock: @escaping () -> Double) {
        self.settings = settings
        self.screen = screen
        self.rotation = rotation
        self.drawer = drawer
        self.wallClock = wallClock
    }

    /// New settings or a new screen: layers drawn otherwise are dropped
    /// as their replacements arrive (captions), or at once (clock, message).
    func configure(settings: TextSettings, screen: PixelSize, rotation: Rotation) {
        guard settings != self.settings || screen != self.screen || rotation != self.rotation else { return }
        self.settings = settings
        self.screen = screen
        self.rotation = rotation
        clockLayers = [:]
        clockAsked = nil
        if let message { show(message) }
    }

    // MARK: Captions

    /// The caption the decoded `picture` (with its `info`) should have;
    /// asked of the drawer when it changed. A pair of portraits has none:
    /// two photos share one slot.
    func wantCaption(for key: PictureKey, picture: RasterImage, info: PictureInfo?) {
        guard let template = settings.caption, let file = key.file else { return }
        let appearance = settings.captionAppearance(screenHeight: screen.height, pictureWidth: picture.width)
        let job = TextJob(words: .caption(template, CaptionFacts(path: file, info: info)), appearance: appearance, rotation: rotation, locale: settings.locale)
        ask(job, for: .caption(key))
    }

    /// The caption layer to draw on `key`'s picture, if there is one and it is current.
    func caption(for key: PictureKey) -> OverlayLayer? {
        guard settings.caption != nil, let drawn = layers[.caption(key)], drawn.job.rotation == rotation else { return nil }
        return drawn.layer
    }

    /// Only the captions of `keys` are kept (the pictures still cached).
    func keepCaptions(of keys: Set<PictureKey>) {
        let gone: (TextKey) -> Bool = { if case .caption(let key) = $0 { !keys.contains(key) } else { false } }
        for key in layers.keys where gone(key) { layers[key] = nil }
        for key in wanted.keys where gone(key) { wanted[key] = nil }
    }

    // MARK: Messages

    /// Shows `message` from now (in place of any other).
    func show(_ message: ScreenMessage) {
        self.message = message
        ask(TextJob(words: .plain(message.text), appearance: settings.messageAppearance(screen: screen), rotation: rotation, locale: nil), for: .message)
    }

    /// The message's words as they are drawn (cleaned of what cannot be
    /// shown), from the moment it is asked for: nil with no message.
    var messageWords: String? {
        guard let message else { return nil }
        let words = DisplayText.cleaned(message.text)
        return words.isEmpty ? nil : words
    }

    /// Takes the message away once it has expired at `now`; true when it did.
    func expireMessage(at now: Double) -> Bool {
        guard let message, !message.isShown(at: now) else { return false }
        return clearMessage()
    }

    /// Takes the message away; true when there was one.
    @discardableResult
    func clearMessage() -> Bool {
        defer { message = nil; layers[.message] = nil; wanted[.message] = nil; shownWords[.message] = nil }
        return message != nil
    }

    // MARK: The run loop

    /// Brings the clock and the message up to `now`: true when the frame must be drawn again.
    func update(at now: Double) -> Bool {
        // Layers drawn in line (a snapshot, a test) arrive here; the worker's also wake the loop.
        var changed = takeFinished()
        if let pattern = settings.clock {
            // This minute's layer, else the next minute's, drawn ahead: one at a time.
            let minute = MinuteTurns.minute(of: wallClock())
            if let missing = [minute, minute + 1].first(where: { clockLayers[$0] == nil }), clockAsked != missing {
                clockAsked = missing
                drawer.draw(clockJob(pattern, minute: missing), key: .clock)
            }
            if shownClockMinute != minute && clockLayers[minute] != nil { changed = true }
        }
        return changed
    }

    /// When the show must wake for the text if nothing else wakes it: the
    /// minute's turn with a clock, a message's end. Only asked while the display is on.
    func nextWakeUp(at now: Double) -> Double? {
        var wakeUps: [Double] = []
        if let expires = message?.expires { wakeUps.append(expires) }
        if settings.clock != nil {
            let wall = wallClock()
            wakeUps.append(now + (MinuteTurns.next(after: wall) - wall))
        }
        return wakeUps.min()
    }

    /// Collects finished layers: true when one shows on the screen now.
    func takeFinished() -> Bool {
        var onScreen = false
        for outcome in drawer.takeFinished() {
            for line in outcome.notes { note(line) }
            switch outcome.key {
            case .clock:
                guard case .clock(let pattern, let minute) = outcome.job.words, settings.clock == pattern,
                      outcome.job == clockJob(pattern, minute: minute) else { continue }
                let now = MinuteTurns.minute(of: wallClock())
                clockLayers[minute] = (outcome.layer, outcome.words)
                clockLayers = clockLayers.filter { $0.key >= now }
                if clockAsked == minute { clockAsked = nil }
                onScreen = onScreen || minute == now
            default:
                guard wanted[outcome.key] == outcome.job else { continue }
                layers[outcome.key] = (outcome.job, outcome.layer)
                shownWords[outcome.key] = outcome.words
                onScreen = true
            }
        }
        return onScreen
    }

    /// The clock and the message, placed on the screen for a frame now.
    func overlays() -> [PlacedOverlay] {
        var placed: [PlacedOverlay] = []
        let margin = settings.margin(screenHeight: screen.height)
        if settings.clock != nil {
            let minute = MinuteTurns.minute(of: wallClock())
            shownClockMinute = minute
            if let layer = clockLayers[minute]?.layer, layer.rotation == rotation {
                let at = settings.clockCorner.origin(of: layer.size, on: screen, margin: margin)
                placed.append(PlacedOverlay(layer, x: at.x, y: at.y))
            }
        }
        if message != nil, let layer = layers[.message]?.layer, layer.rotation == rotation {
            placed.append(PlacedOverlay(layer, x: (screen.width - layer.size.width) / 2, y: margin))
        }
        return placed
    }

    /// The clock's words on screen, for `status`; nil without a clock or before its layer is drawn.
    var clockWords: String? { shownClockMinute.flatMap { clockLayers[$0]?.words } }

    // MARK: Private

    private func ask(_ job: TextJob, for key: TextKey) {
        if wanted[key] == job || (wanted[key] == nil && layers[key]?.job == job) { return }
        wanted[key] = job
        drawer.draw(job, key: key)
    }

    private func clockJob(_ pattern: StrftimePattern, minute: Int64) -> TextJob {
        TextJob(words: .clock(pattern, minute: minute), appearance: settings.clockAppearance(screen: screen), rotation: rotation, locale: settings.locale)
    }

}
