import CFFmpeg
import KioskCore
import KioskRendering

/// One decoded frame of a clip, the decoder's planes at their own size
/// (FFmpeg's reference-counted buffers, released with this), and its time.
final class ClipFrame {
    let frame: UnsafeMutablePointer<AVFrame>
    let path: String
    /// Seconds from the stream's start; NaN when the stream gives no timestamp.
    var time = Double.nan

    init(_ frame: UnsafeMutablePointer<AVFrame>, path: String) {
        self.frame = frame
        self.path = path
    }

    deinit {
        var frame: UnsafeMutablePointer<AVFrame>? = frame
        av_frame_free(&frame)
    }

    var storedSize: PixelSize { PixelSize(width: Int(frame.pointee.width), height: Int(frame.pointee.height)) }

    /// Bits a sample of the frame's pixel format; nil for a format kioskd cannot read.
    var depth: Int? {
        guard let descriptor = av_pix_fmt_desc_get(AVPixelFormat(frame.pointee.format)) else { return nil }
        return Int(kiosk_av_component(descriptor, 0).depth)
    }

    /// The frame as ``YCbCrPicture`` planes, for the formats software
    /// decoders give: planar YCbCr (4:2:0, 4:2:2, 4:4:4) or grey, 8 to 16
    /// bits in native order, and planar GBR (a clip with the identity
    /// matrix, read as AVIF's). Alpha is not shown (a VP9 clip's alpha
    /// plane is in a stream of its own, which FFmpeg's VP9 decoder passes over).
    func planes() throws(ImageFileError) -> YCbCrPicture {
        let format = AVPixelFormat(frame.pointee.format)
        let name = av_get_pix_fmt_name(format).map { String(cString: $0) } ?? "pixel format \(frame.pointee.format)"
        guard let descriptor = av_pix_fmt_desc_get(format) else { throw unreadable(name) }
        let flags = descriptor.pointee.flags
        let count = Int(descriptor.pointee.nb_components)
        let luma = kiosk_av_component(descriptor, 0)
        let depth = Int(luma.depth), bytes = depth > 8 ? 2 : 1
        let rgb = flags & UInt64(AV_PIX_FMT_FLAG_RGB) != 0
        guard flags & UInt64(AV_PIX_FMT_FLAG_PLANAR) != 0, flags & UInt64(AV_PIX_FMT_FLAG_BE) == 0,
              flags & UInt64(AV_PIX_FMT_FLAG_HWACCEL) == 0, flags & UInt64(AV_PIX_FMT_FLAG_PAL) == 0,
              (8...16).contains(depth), Int(luma.step) == bytes, count == 1 || count >= 3, !rgb || count >= 3 else { throw unreadable(name) }
        let size = storedSize
        guard size.width > 0, size.height > 0 else { throw ImageFileError(path: path, reason: .corrupt("a frame with no pixels")) }
        func plane(_ index: Int) throws(ImageFileError) -> YCbCrPicture.Plane {
            let data = withUnsafeBytes(of: frame.pointee.data) { $0.load(fromByteOffset: index * MemoryLayout<UnsafeMutablePointer<UInt8>?>.stride, as: UnsafeMutablePointer<UInt8>?.self) }
            let rowBytes = withUnsafeBytes(of: frame.pointee.linesize) { $0.load(fromByteOffset: index * 4, as: Int32.self) }
            guard let data, rowBytes > 0 else { throw unreadable(name) }
            return YCbCrPicture.Plane(base: UnsafeRawPointer(data), rowBytes: Int(rowBytes))
        }
        var colour = YCbCrPicture.Colour()
        colour.primaries = Int(frame.pointee.color_primaries.rawValue)
        colour.transfer = Int(frame.pointee.color_trc.rawValue)
        colour.matrix = rgb ? 0 : Self.matrix(frame.pointee.colorspace, height: size.height)
        // Video is limited range unless it says otherwise (or is a planar GBR, which is full).
        colour.fullRange = rgb || frame.pointee.color_range == AVCOL_RANGE_JPEG
        // Planar GBR stores G, B and R: read as AVIF's identity matrix reads Y, Cb and Cr.
        let chroma = count >= 3 ? (cb: try plane(1), cr: try plane(2)) : nil
        return YCbCrPicture(
            size: size, luma: try plane(0), chroma: chroma,
            chromaShift: (x: Int(descriptor.pointee.log2_chroma_w), y: Int(descriptor.pointee.log2_chroma_h)), alpha: nil,
            depth: depth, alphaDepth: depth, premultiplied: false, colour: colour, owner: self)
    }

    /// The frame turned upright by `orientation` (to `upright`, its size
    /// as shown) and fitted into `slot`: a poster, or a frame as it plays.
    ///
    /// A frame no smaller than the slot is reduced plane by plane (libyuv's
    /// box filter) and converted by libyuv's SIMD code when its format
    /// allows (``YCbCrPicture/convertedBySIMD(reusing:)``): a clip's frames come 30
    /// a second. Anything else takes the photos' exact path.
    ///
    /// `memory`: where a playing clip's frames are made, frame after frame
    /// (``ClipFrameMemory``); without it, in memory of their own.
    func fitted(
        upright: PixelSize, into slot: PixelSize, turning orientation: ImageOrientation, background: RGBColor, memory: ClipFrameMemory? = nil
    ) throws(ImageFileError) -> RasterImage {
        let stored = storedSize, fit = aspectFitSize(of: upright, in: slot)
        let whole = PixelRect(x: 0, y: 0, width: stored.width, height: stored.height)
        let planes = try planes()
        let storedFit = orientation.uprightSize(of: fit)
        // Reduced first only when libyuv converts the result: the exact
        // path (10 bits, HDR) reduces as it converts.
        if storedFit.width <= stored.width && storedFit.height <= stored.height && planes.simdConversion != nil {
            let storage = memory?.reduction ?? YCbCrPicture.PlaneStorage()
            storage.reuse()
            let reduced = storedFit == stored ? planes : planes.reduced(cropping: whole, to: storedFit, in: storage)
            if orientation == .upright {
                if let converted = reduced.convertedBySIMD(reusing: memory?.letGo() ?? []) {
                    memory?.handOut(converted.pixels)
                    return converted
                }
            } else if let converted = reduced.convertedBySIMD() {
                return resample(converted, to: fit, turning: orientation)
            }
        }
        return planes.resampled(cropping: whole, to: fit, turning: orientation, background: background)
    }

    /// The CICP matrix: the clip's own, or, when it says none, BT.709 for
    /// HD and larger and BT.601 below, as players guess (mpv does so).
    static func matrix(_ space: AVColorSpace, height: Int) -> Int {
        space == AVCOL_SPC_UNSPECIFIED ? (height >= 720 ? 1 : 6) : Int(space.rawValue)
    }

    private func unreadable(_ name: String) -> ImageFileError {
        ImageFileError(path: path, reason: .corrupt("the decoder gave frames in \(name), which kioskd cannot read"))
    }
}

/// Where a playing clip's frames are made (``ClipPlayer``): the planes
/// each is reduced into, used again for the next, and the last few
/// pictures given out, whose pixels the next frames are written over once
/// the show has let them go.
///
/// Without it each frame took a fresh `mmap` of the slot's size (and its
/// reduced planes another), whose pages the kernel faulted in and cleared:
/// a fifth of kioskd's CPU time playing a 1080p clip. While the next frame
/// is made the show holds at most ``kept`` - 1 of the others
/// (``PlayingClip``: the one decoded ahead, the one on screen, and the one
/// the screen's other buffer still holds), so the oldest given out is no
/// one's by the time it comes round again. Were it still held, Swift
/// copies it before it is written (an array is copied on write while
/// shared), and the show never sees a frame change under it.
final class ClipFrameMemory {
    let reduction = YCbCrPicture.PlaneStorage()
    private var givenOut: [[UInt32]] = []

    /// Frames given out before the oldest is written over.
    static let kept = 4

    /// The oldest frame's pixels, once ``kept`` frames are out; else none.
    func letGo() -> [UInt32] {
        givenOut.count >= Self.kept ? givenOut.removeFirst() : []
    }

    func handOut(_ pixels: [UInt32]) {
        givenOut.append(pixels)
    }
}
