import ArgumentParser
import ImageCodecs
import KioskCore
import KioskRendering

/// `kioskd-bench profile`: where a picture's time goes on its way to the
/// screen, stage by stage, each the median of `rounds` in one run: a 24 Mpx
/// camera JPEG (EXIF 6, the costlier case) decoded at its DCT scale,
/// resampled and turned upright in one pass to a 1920x1080 screen's 1344x1080 slot, then a frame
/// composed mid-slide (a whole frame, and a reused buffer's). When a figure
/// in `make bench` gets worse, this says which stage did. The wait for the
/// flip (present) is the display's, not the program's: the VM and DRM
/// figures (`hotplug_recovery_ms`, `input_to_photon_ms`) cover it.
struct StageProfile: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "profile", abstract: "Print a per-stage breakdown: decode, turn, resample, compose.")

    @Option(help: "Timed rounds per stage (the median is printed).")
    var rounds = 9

    func run() throws { try stageProfile(rounds: rounds) }
}

/// The stages' figures (`make bench` prints them after the decode figures).
func stageProfile(rounds: Int) throws {
    let jpeg = try GeneratedPictures.cameraJPEG(GeneratedPictures.photo(photoSize), orientation: 6, quality: 90)
    let orientation = EXIFOrientation.read(jpeg)
    let fitted = aspectFitSize(of: orientation.uprightSize(of: photoSize), in: slot)
    let minimum = orientation.uprightSize(of: fitted)
    var decoded = RasterImage(size: PixelSize(width: 1, height: 1), filledWith: .black)
    let decode = try (0..<rounds).map { _ in
        try time { decoded = try JPEGCodec.decode(jpeg, path: "profile.jpg", minimumSize: minimum, maximumPixels: 1 << 24) }
    }
    // The turn is done by the resampler as it writes: its cost is the
    // difference from resampling the same pixels to the same size unturned.
    var shown = decoded
    let scale = try (0..<rounds).map { _ in try time { shown = resample(decoded, to: fitted, turning: orientation) } }
    let unturned = try (0..<rounds).map { _ in try time { _ = resample(decoded, to: minimum) } }
    // What the show does: both at once, each row resampled as it is decoded.
    let fused = try (0..<rounds).map { _ in
        try time { _ = try JPEGCodec.decode(jpeg, path: "profile.jpg", fittedTo: fitted, turning: orientation, maximumPixels: 1 << 24) }
    }
    // A pinch's moving frame: the slot's picture (3:2, 1344x896) zoomed
    // 1.9x, the part on screen scaled up to the whole slot.
    let slotPicture = resample(decoded, to: PixelSize(width: 1344, height: 896))
    let zoomed = PixelRect(x: 300, y: 200, width: 707, height: 568)
    let zoomUp = try (0..<rounds).map { _ in try time { _ = resample(slotPicture, cropping: zoomed, to: slot) } }
    let screen = PixelSize(width: 1920, height: 1080)
    let geometry = try CarouselGeometry(screen: screen, settings: LayoutSettings())
    let compositor = StripCompositor(geometry: geometry, background: .black)
    let playlist = CircularIndex(count: 3)
    var buffer = RasterImage(size: screen, filledWith: .black)
    var contents = BufferContents()
    let whole = try (0..<rounds).map { round in
        try time { buffer.withSurface { compositor.compose(into: $0, position: 0.03 + 0.01 * Double(round), playlist: playlist) { _ in shown } } }
    }
    let reused = try (0..<rounds).map { round in
        try time {
            buffer.withSurface {
                compositor.compose(into: $0, position: 0.03 + 0.01 * Double(round), playlist: playlist, contents: &contents) { _ in shown }
            }
        }
    }
    print("profile_decode_ms \(format(median(decode))) ms (24 Mpx EXIF 6 JPEG to \(decoded.size), DCT-scaled)")
    print("profile_decode_to_slot_ms \(format(median(fused))) ms (the same decode and resample row by row, as the show does: \(format(median(fused) - median(decode) - median(scale))) ms against the two apart)")
    print("profile_resample_ms \(format(median(scale))) ms (\(decoded.size) to \(fitted), turned upright as it writes)")
    print("profile_turn_ms \(format(median(scale) - median(unturned))) ms (the turn's share: the same resample unturned, to \(minimum), took \(format(median(unturned))) ms)")
    print("profile_zoom_upscale_ms \(format(median(zoomUp))) ms (a pinch's moving frame: \(zoomed.size) of the slot's picture scaled up to \(slot), on the run loop)")
    print("profile_compose_ms \(format(median(whole))) ms (a whole 1920x1080 frame mid-slide; \(format(median(reused))) ms into a reused buffer)")
}
