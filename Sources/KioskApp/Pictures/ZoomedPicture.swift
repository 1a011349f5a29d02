import KioskCore
import KioskRendering

/// The centred picture while it is zoomed (``CentredZoom``), as the
/// compositor draws it: a picture the size of its slot, the zoomed photo
/// where it covers the slot, the background elsewhere (the neighbours
/// still peek in beside the slot).
///
/// While fingers move it, or it animates, the slot's own picture is
/// scaled up (one resample of the part on screen). Once it is still, the
/// part on screen is decoded again from the file at the screen's
/// resolution on the worker (``sharpWanted(at:window:)``), and shown
/// from then on while the zoom stays there. Memory: one slot-sized
/// picture and the sharp region, never the whole photo zoomed.
struct ZoomedPicture {
    /// The unit zoomed (one file) and its file.
    let unit: Int
    let path: String
    var zoom: CentredZoom
    /// The sharp region arrived for the zoom at rest, if it did.
    private(set) var sharp: (region: ZoomRegion, picture: RasterImage)?
    /// The last picture made, and the zoom it shows.
    private var made: (zoom: PictureZoom, sharp: Bool, picture: RasterImage)?
    /// True when the last picture made shows the sharp region.
    var showsSharp: Bool { made?.sharp == true }

    init(unit: Int, path: String, zoom: CentredZoom) {
        self.unit = unit
        self.path = path
        self.zoom = zoom
    }

    /// What the zoom shows at `shown` through a slot of `window`: where on
    /// the slot, and the part of the file, at that many pixels.
    func view(_ shown: PictureZoom, window: PixelSize) -> (onScreen: PixelRect, region: ZoomRegion) {
        let view = shown.view(in: window, limits: zoom.limits)
        return (view.onScreen, ZoomRegion(path: path, region: view.region, size: view.onScreen.size))
    }

    /// The sharp region to decode now: the one on screen, once the zoom is
    /// still and zoomed, or held still by the fingers (``CentredZoom/isSettling(at:)``).
    func sharpWanted(at time: Double, window: PixelSize) -> ZoomRegion? {
        guard zoom.isSettling(at: time), zoom.destination.isZoomed else { return nil }
        return view(zoom.destination, window: window).region
    }

    /// A sharp region decoded: kept if it is still the one on screen.
    mutating func arrived(_ region: ZoomRegion, _ picture: RasterImage, window: PixelSize) {
        guard picture.size == region.size, region == view(zoom.destination, window: window).region else { return }
        sharp = (region, picture)
    }

    /// The slot's picture at `time`: the sharp region when it is the one
    /// shown, else `fitted` (the slot's own picture) scaled up.
    mutating func picture(at time: Double, fitted: RasterImage, window: PixelSize, background: RGBColor) -> RasterImage {
        let shown = zoom.zoom(at: time)
        let view = view(shown, window: window)
        let sharpPicture = sharp.flatMap { $0.region == view.region ? $0.picture : nil }
        if let made, made.zoom == shown, made.sharp == (sharpPicture != nil) { return made.picture }
        // The part on screen is scaled up where it lies in the slot's
        // picture (no copy of it first); zoomed in, it usually covers the
        // whole slot and is then the slot's picture itself, written over
        // the last frame's (`zoom_frame_ms`): the caller holds this zoom
        // alone, and a drawn frame is held by nothing else.
        let coversSlot = view.onScreen == PixelRect(x: 0, y: 0, width: window.width, height: window.height)
        let reusable = coversSlot && sharpPicture == nil && made?.sharp == false ? made.take()?.picture.pixels : nil
        let part = sharpPicture ?? resample(fitted, cropping: view.region.region.pixels(of: fitted.size), to: view.onScreen.size, reusing: reusable)
        let picture = coversSlot ? part : Self.slotPicture(window: window, background: background, showing: part, at: view.onScreen)
        made = (shown, sharpPicture != nil, picture)
        return picture
    }

    /// A slot-sized picture with `part` at `onScreen`, the background elsewhere
    /// (also what `kioskd snapshot --zoom` draws).
    static func slotPicture(window: PixelSize, background: RGBColor, showing part: RasterImage, at onScreen: PixelRect) -> RasterImage {
        var picture = RasterImage(size: window, filledWith: background)
        picture.place(part, x: onScreen.x, y: onScreen.y)
        return picture
    }
}
