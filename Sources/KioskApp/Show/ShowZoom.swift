import KioskCore
import KioskRendering

/// The centred picture zoomed by fingers (seed 002): the zoom itself
/// (``ZoomedPicture``), the sharp region asked of the decoder once it is
/// still, and the pinch whose sharp frame is timed (`zoom_sharp_ms`).
/// While a picture is zoomed automatic slides wait, and the strip moving
/// takes it back to 1x at once (the show's rules, in ``RunningShow``).
final class ShowZoom {
    /// The centred picture while fingers zoom it, or it animates back.
    private(set) var zoomed: ZoomedPicture?
    /// `max_zoom`: at most this, and never past a photo's own pixels.
    var maxZoom: Double
    /// The zoom the last frame drew (nil: none).
    private var drawnZoom: PictureZoom?
    /// The sharp region the decoder was last asked for.
    private var requestedRegion: ZoomRegion?
    /// When the last pinch ended (its lift's kernel time), until its sharp frame is drawn.
    private var pinchEndedAt: Double?
    /// The zoomed picture made for the frame being drawn (``makeFrame(at:fitted:window:background:)``).
    private(set) var frame: (unit: Int, picture: RasterImage)?
    private let decoder: any PictureDecoder
    private let pacer: FramePacer

    init(maxZoom: Double, decoder: any PictureDecoder, pacer: FramePacer) {
        self.maxZoom = maxZoom
        self.decoder = decoder
        self.pacer = pacer
    }

    /// True while the centred picture is zoomed (or going back to 1x): one finger pans it.
    var isZoomed: Bool { zoomed != nil }

    /// The zoom of the picture in strip slot `target` (the strip resting
    /// on it), if it can zoom: one file (not a pair, not an animation
    /// playing) whose picture and size are known, `max_zoom` above 1 and
    /// the photo larger than its slot.
    func start(slot target: Int, of decoded: DecodedPictures, geometry: CarouselGeometry, at now: Double) -> ZoomedPicture? {
        guard maxZoom > 1, let unit = decoded.index.item(forSlot: target) else { return nil }
        let key = decoded.key(unit)
        guard let file = key.file, decoded.animation(of: key) == nil, let fitted = decoded.picture(unit),
              let original = decoded.info(of: key)?.originalSize else { return nil }
        let limits = PictureZoom.Limits(fitted: fitted.size, original: original, maximumZoom: maxZoom)
        guard limits.maximumScale > 1 else { return nil }
        let centre = ScreenPoint(
            x: Double(geometry.slotLeft(target, at: Double(target))) + Double(geometry.slotWidth) / 2,
            y: Double(geometry.slotTop) + Double(geometry.slotHeight) / 2)
        return ZoomedPicture(unit: unit, path: file, zoom: CentredZoom(limits: limits, centre: centre, at: now))
    }

    /// Fingers zoom the centred picture: a pinch or a double tap starts a
    /// zoom (`start`, when the picture can zoom); the lift is timed until
    /// its sharp frame is on screen.
    func touched(_ touch: ZoomTouch, at now: Double, sensedAt: Double?, start: () -> ZoomedPicture?, schedule: ShowSchedule, window: PixelSize) {
        applied: if zoomed == nil {
            switch touch {
            case .pinchBegan, .doubleTapped: break
            default: break applied
            }
            guard let started = start() else { break applied }
            zoomed = started
        }
        if zoomed != nil {
            zoomed?.zoom.apply(touch, at: now)
            update(at: now, schedule: schedule, window: window)
        }
        switch touch {
        case .ended where zoomed?.showsSharp == true:
            // Held still before the lift, it was sharp already: on screen by the lift, or with the frame in flight.
            pacer.sharpBeforeTheLift(at: sensedAt ?? now)
            pinchEndedAt = nil
        case .ended where zoomed != nil: pinchEndedAt = sensedAt ?? now
        case .ended: break
        default: pinchEndedAt = nil
        }
    }

    /// Zooms back when nobody touched it for `resume_after`; ends a zoom
    /// back at 1x; asks the decoder for the sharp region once it is still.
    func update(at now: Double, schedule: ShowSchedule, window: PixelSize) {
        guard var zoomed else { return }
        if let due = zoomed.zoom.zoomBackDue(after: schedule.resumeAfter), now >= due {
            zoomed.zoom.zoomBack(at: now, duration: schedule.motion.duration, easing: schedule.motion.easing)
        }
        self.zoomed = zoomed
        if zoomed.zoom.isOver(at: now) { return end() }
        let wanted = zoomed.sharpWanted(at: now, window: window)
        let ask = wanted == zoomed.sharp?.region ? nil : wanted
        if ask != requestedRegion && (ask != nil || requestedRegion != nil) {
            requestedRegion = ask
            decoder.zoom(ask)
        }
    }

    /// The picture is at 1x again: the frame shows it as the strip does.
    func end() {
        guard zoomed != nil else { return }
        zoomed = nil
        pinchEndedAt = nil
        pacer.frameNeeded = true
        if requestedRegion != nil {
            requestedRegion = nil
            decoder.zoom(nil)
        }
    }

    /// A sharp region arrived from the decoder.
    func arrived(_ region: ZoomRegion, _ picture: RasterImage, window: PixelSize) {
        zoomed?.arrived(region, picture, window: window)
        pacer.frameNeeded = true
    }

    /// The region could not be decoded: true when it was the one asked for
    /// (the scaled-up picture stays; the same region is not asked for again).
    func failed(_ region: ZoomRegion) -> Bool { region == requestedRegion }

    /// The zoom for `status`.
    func status(at now: Double, window: PixelSize) -> ZoomStatus? {
        guard let zoomed else { return nil }
        let shown = zoomed.zoom.zoom(at: now)
        return ZoomStatus(shown, limits: zoomed.zoom.limits, sharp: zoomed.sharp?.region == zoomed.view(shown, window: window).region)
    }

    /// True when a frame for `refresh` would show another zoom than the last one drawn.
    func changed(at refresh: Double) -> Bool { zoomed?.zoom.zoom(at: refresh) != drawnZoom }

    /// When the zoom next needs the loop at rest: going back after
    /// `resumeAfter`, or its sharp region once fingers held it still long enough.
    func nextWakeUps(at now: Double, resumeAfter: Double) -> [Double] {
        guard let zoomed else { return [] }
        let held = zoomed.zoom.settlesAt.flatMap { $0 > now ? $0 : nil }
        return [zoomed.zoom.zoomBackDue(after: resumeAfter), held].compactMap { $0 }
    }

    /// Makes the zoomed picture for a frame shown at `shownAt` from
    /// `fitted`, the unit's own picture. The zoom is taken out while it
    /// makes it, so it holds its last frame alone and can draw the next over it.
    func makeFrame(at shownAt: Double, fitted: (Int) -> RasterImage?, window: PixelSize, background: RGBColor) {
        guard let unit = zoomed?.unit, let picture = fitted(unit), var zoomed = self.zoomed.take() else { return }
        frame = (zoomed.unit, zoomed.picture(at: shownAt, fitted: picture, window: window, background: background))
        self.zoomed = zoomed
    }

    /// The frame is composed: its zoomed picture is not kept beside the zoom's own.
    func frameComposed() { frame = nil }

    /// Whether the last picture made showed the sharp region (nil: no zoom), before a frame is drawn.
    var showsSharp: Bool? { zoomed?.showsSharp }

    /// A frame for `shownAt` is on its way: returns when the pinch it is
    /// the first sharp frame after ended, if it is (`sharpBefore`: ``showsSharp`` before it was drawn).
    func drew(for shownAt: Double, sharpBefore: Bool?) -> Double? {
        drawnZoom = zoomed?.zoom.zoom(at: shownAt)
        let sharpAfter = sharpBefore != nil && zoomed?.showsSharp == true ? pinchEndedAt : nil
        if sharpAfter != nil { pinchEndedAt = nil }
        return sharpAfter
    }
}
