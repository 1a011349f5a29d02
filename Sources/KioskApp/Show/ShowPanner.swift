import KioskCore
import KioskRendering

/// Whether the show's frames are panned, and the long buffer on screen.
///
/// When the strip starts to move (a slide, a finger's drag) the stretch it
/// will cross is drawn once into a buffer longer than the screen
/// (``PannedBuffer``), and each frame after is shown by moving the
/// display's window over it, drawing nothing, for as long as the frame is
/// exactly a window of it. Everything else is composed as before: a fixed
/// overlay on screen (the clock, a message), a zoom, a playlist change
/// animating, pictures that changed since the buffer was drawn (an
/// animation's frame, one that arrived), another brightness, and with
/// `align = inner` a picture narrower than its slot (it leans as it moves). Both paths
/// give the same pixels (``PannedBuffer/origin(of:brightness:overlays:caption:picture:)``
/// checks it, cell by cell); the statistics count each.
struct ShowPanner {
    /// Why frames are not panned at all, or nil when they are where they can be: `status`'s `panning_off_reason`.
    private(set) var offReason: String? = "not yet shown"
    /// How the screen pans, for the log.
    private(set) var how = ""
    /// ``configure(setting:layout:screen:)`` has been called: the first frame calls it.
    private(set) var configured = false
    /// The long buffer queued or on screen; nil after a composed frame.
    private var onScreen: PannedBuffer?
    /// The long buffer drawn ahead into the buffer not on screen, while the
    /// strip rested before a slide (``bufferAhead(of:at:layout:playlist:brightness:overlays:plain:caption:picture:)``).
    private var ahead: PannedBuffer?
    /// The positions of the last long buffer drawn, until the strip stops:
    /// a moving frame inside them that could not be a window (an animated
    /// picture's new frame, the clock turning) is composed, and so are the
    /// rest of that motion's frames there; a long buffer drawn again for
    /// each would cost more than composing.
    private var drawnRange: ClosedRange<Double>?
    /// What the log last said of panning.
    private var lastLine: String?
    /// The buffer's largest length along the strip.
    private var maximumLength = 0

    /// What to do with one frame.
    enum Plan {
        /// Show this window of the long buffer on screen.
        case pan(PixelRect)
        /// Draw this long buffer and show this window of it.
        case drawLong(PannedBuffer, PixelRect)
        /// Show this window of the long buffer drawn ahead.
        case showAhead(PannedBuffer, PixelRect)
        /// Compose the frame.
        case compose
    }

    /// Works out whether panning can be used with this setting, layout and
    /// screen. Returns the log line when that changed.
    mutating func configure(setting: PanningSetting, layout: ShowLayout, screen: ScreenPanning) -> String? {
        configured = true
        forget()
        let rotation = layout.renderer.rotation
        switch screen {
        case _ where setting == .off: offReason = "panning = off"
        case .unavailable(let reason): offReason = reason
        case .available(let largest, let how):
            self.how = how
            maximumLength = rotation == .quarter || rotation == .threeQuarters ? largest.height : largest.width
            if let needed = PannedStrip(geometry: layout.geometry, covering: 0...1, maximumLength: .max)?.length, needed > maximumLength {
                offReason = "a slide needs a \(needed) px buffer, the display takes \(maximumLength) px"
            } else {
                offReason = nil
            }
        }
        let line = offReason.map { "panning: off (\($0))" } ?? "panning: on (\(how))"
        guard line != lastLine else { return nil }
        lastLine = line
        return line
    }

    /// The display refused to show a long buffer it said it could: frames
    /// are composed from now on. Returns the log line.
    mutating func refused(_ screen: ScreenPanning) -> String {
        onScreen = nil
        ahead = nil
        if case .unavailable(let reason) = screen { offReason = reason } else { offReason = "the display refused a long buffer" }
        lastLine = "panning: off (\(offReason!))"
        return lastLine!
    }

    /// The frame of `cells` at `position` (drawn with these pictures,
    /// captions, overlays and brightness): panned, drawn long, or composed.
    /// `towards`: where the strip is going (a slide's end), nil while a
    /// finger holds it; `still`: the strip has not moved since the last frame.
    func plan(
        cells: [StripCell], at position: Double, towards target: Double?, still: Bool, layout: ShowLayout, playlist: CircularIndex,
        brightness: Int, overlays: [PlacedOverlay], plain: Bool, caption: (StripCell.Content) -> OverlayLayer?,
        picture: (StripCell.Content) -> RasterImage?
    ) -> Plan {
        guard offReason == nil, plain, overlays.isEmpty else { return .compose }
        let panel = layout.renderer.panel
        func window(_ origin: (x: Int, y: Int)) -> PixelRect { PixelRect(x: origin.x, y: origin.y, width: panel.width, height: panel.height) }
        if let onScreen, let origin = onScreen.origin(of: cells, brightness: brightness, overlays: overlays, caption: caption, picture: picture) {
            return .pan(window(origin))
        }
        if let ahead, let origin = ahead.origin(of: cells, brightness: brightness, overlays: overlays, caption: caption, picture: picture) {
            return .showAhead(ahead, window(origin))
        }
        // A new buffer only for a strip that moves out of the last one drawn.
        guard !still, drawnRange.map({ !$0.contains(position) }) ?? true else { return .compose }
        let reach: ClosedRange<Double>
        switch target {
        case nil: reach = (position - 0.5)...(position + 0.5)
        case let target? where target >= position: reach = position...min(target, position + 1)
        case let target?: reach = max(target, position - 1)...position
        }
        guard let strip = PannedStrip(geometry: layout.geometry, covering: reach, maximumLength: maximumLength) else { return .compose }
        let buffer = PannedBuffer(strip: strip, screen: layout.renderer, playlist: playlist, brightness: brightness, caption: caption, picture: picture)
        guard let origin = buffer.origin(of: cells, brightness: brightness, overlays: overlays, caption: caption, picture: picture) else { return .compose }
        return .drawLong(buffer, window(origin))
    }

    /// The frame planned was shown as planned; `still`: the strip had not
    /// moved since the frame before (the next move may draw a long buffer again).
    mutating func shown(_ plan: Plan, still: Bool) {
        switch plan {
        case .pan: break
        case .drawLong(let buffer, _), .showAhead(let buffer, _):
            onScreen = buffer
            drawnRange = buffer.strip.positions
            ahead = nil
        case .compose:
            onScreen = nil
            ahead = nil
        }
        if still { drawnRange = nil }
    }

    /// The long buffer to draw now, while the strip rests at `position`
    /// (the frame of `cells` on screen), for the slide to `position + 1`
    /// that comes next: the automatic slide, or a `next`. Drawn ahead into
    /// the buffer not on screen, it makes that slide's first frame a window
    /// like the rest: a long buffer takes more than a refresh to draw on a
    /// small board at 4K (6608x2160 on a Pi 4: about two frames' worth of
    /// composition), and drawn as the slide starts it cost the slide its
    /// first refreshes. Nil when there is nothing to draw: panning is off,
    /// the frame at rest is not a window of it (an overlay, a picture that
    /// leans), or the same buffer is drawn ahead already.
    func bufferAhead(
        of cells: [StripCell], at position: Double, layout: ShowLayout, playlist: CircularIndex, brightness: Int,
        overlays: [PlacedOverlay], plain: Bool, caption: (StripCell.Content) -> OverlayLayer?, picture: (StripCell.Content) -> RasterImage?
    ) -> PannedBuffer? {
        guard offReason == nil, plain, overlays.isEmpty,
              let strip = PannedStrip(geometry: layout.geometry, covering: position...(position + 1), maximumLength: maximumLength) else { return nil }
        let buffer = PannedBuffer(strip: strip, screen: layout.renderer, playlist: playlist, brightness: brightness, caption: caption, picture: picture)
        if let ahead, ahead.isSameDrawing(as: buffer) { return nil }
        guard buffer.origin(of: cells, brightness: brightness, overlays: overlays, caption: caption, picture: picture) != nil else { return nil }
        return buffer
    }

    /// `buffer` was drawn ahead (``bufferAhead(of:at:layout:playlist:brightness:overlays:plain:caption:picture:)``).
    mutating func drewAhead(_ buffer: PannedBuffer) { ahead = buffer }

    /// The screen no longer shows what it did (a new screen, a mode set to come): the next frame starts afresh.
    mutating func forget() {
        onScreen = nil
        drawnRange = nil
        ahead = nil
    }
}
