import CWebP
import KioskCore
import SystemCalls
import KioskRendering

/// An animated WebP played frame by frame, as animated GIFs are (the same
/// ``PictureAnimation`` seam, the same ``FrameSchedule``): libwebp's
/// `WebPAnimDecoder` composes each frame onto the canvas (the file's
/// blending and disposal), kioskd composites it over the background and
/// fits it to the slot.
///
/// Memory: libwebp keeps the file, the canvas and the canvas before the
/// last frame (two canvases: 8 bytes a canvas pixel). The canvas is
/// bounded as a GIF's screen is (``DecodeOptions/maximumGIFPixels``,
/// refused from the header): 16 Mpx, 128 MiB at the very most; a phone's
/// 1080p animation costs 16 MiB. After the last frame the decoder starts
/// again, so frames are numbered across plays.
public final class WebPAnimation {
    public let path: String
    /// The animation's canvas, from its header.
    public let canvas: PixelSize
    /// The size of each frame returned: the canvas fitted to the slot.
    public let size: PixelSize
    /// The number of the frame ``decodeNext()`` returns next, counted across plays.
    public private(set) var nextFrame = 0
    private let background: RGBColor
    /// libwebp reads the file from here for as long as the decoder lives.
    private let file: UnsafeMutableBufferPointer<UInt8>
    private let decoder: OpaquePointer

    /// Plays the animated WebP in `bytes`, fitted to `slot` (nil: the canvas's own size).
    public init(bytes: [UInt8], path: String, background: RGBColor, fittedTo slot: PixelSize?, maximumPixels: Int) throws(ImageFileError) {
        // The canvas is checked from the header before libwebp allocates its two.
        let features = try WebPCodec.features(of: bytes, path: path)
        let canvas = PixelSize(width: Int(features.width), height: Int(features.height))
        guard canvas.pixelCount <= maximumPixels else { throw ImageFileError(path: path, reason: .tooLarge(canvas)) }
        var options = WebPAnimDecoderOptions()
        guard WebPAnimDecoderOptionsInit(&options) != 0 else {
            throw ImageFileError(path: path, reason: .corrupt("libwebp's version does not match its headers"))
        }
        options.color_mode = MODE_BGRA
        options.use_threads = 0
        self.path = path
        self.background = background
        self.canvas = canvas
        size = slot.map { aspectFitSize(of: canvas, in: $0) } ?? canvas
        file = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: max(1, bytes.count))
        _ = file.initialize(from: bytes)
        var data = WebPData(bytes: file.baseAddress, size: bytes.count)
        // Until the decoder is stored the object is not whole: a throw here runs no deinit.
        guard let decoder = WebPAnimDecoderNew(&data, &options) else {
            file.deallocate()
            throw ImageFileError(path: path, reason: .corrupt("an animated WebP libwebp cannot read"))
        }
        self.decoder = decoder
    }

    deinit {
        WebPAnimDecoderDelete(decoder)
        file.deallocate()
    }

    /// Composes the next frame and returns it fitted to ``size``.
    public func decodeNext() throws(ImageFileError) -> RasterImage {
        var pixels = Array(UnsafeBufferPointer(start: try composeNext(), count: canvas.pixelCount))
        WebPCodec.composite(&pixels, over: background)
        let frame = RasterImage(size: canvas, pixels: pixels)
        return frame.size == size ? frame : resample(frame, to: size)
    }

    /// Composes the next frame without returning it (catching up to a frame).
    public func advance() throws(ImageFileError) {
        _ = try composeNext()
    }

    /// libwebp's canvas after the next frame (BGRA words, alpha on top).
    private func composeNext() throws(ImageFileError) -> UnsafePointer<UInt32> {
        if WebPAnimDecoderHasMoreFrames(decoder) == 0 { WebPAnimDecoderReset(decoder) }
        var output: UnsafeMutablePointer<UInt8>?
        var timestamp: Int32 = 0
        guard WebPAnimDecoderGetNext(decoder, &output, &timestamp) != 0, let output else {
            throw ImageFileError(path: path, reason: .corrupt("frame \(nextFrame) of the animated WebP cannot be decoded"))
        }
        nextFrame += 1
        return UnsafeRawPointer(output).assumingMemoryBound(to: UInt32.self)
    }

    /// The frames' durations and the loop count, from the container alone
    /// (nothing decoded): a loop count of 0 plays for ever, n plays n times.
    public static func schedule(of bytes: [UInt8], path: String) throws(ImageFileError) -> FrameSchedule {
        try OnDemandLibrary.open(.webP, .webPDemux, reading: path)
        let schedule: FrameSchedule? = bytes.withUnsafeBufferPointer { buffer in
            var data = WebPData(bytes: buffer.baseAddress, size: buffer.count)
            guard let demux = WebPDemux(&data) else { return nil }
            defer { WebPDemuxDelete(demux) }
            let loops = Int(WebPDemuxGetI(demux, WEBP_FF_LOOP_COUNT))
            var frame = WebPIterator()
            guard WebPDemuxGetFrame(demux, 1, &frame) != 0 else { return nil }
            defer { WebPDemuxReleaseIterator(&frame) }
            var delays: [Double] = []
            repeat { delays.append(Double(frame.duration) / 1000) } while WebPDemuxNextFrame(&frame) != 0
            return FrameSchedule(delays: delays, plays: loops == 0 ? nil : loops)
        }
        guard let schedule else { throw ImageFileError(path: path, reason: .corrupt("an animated WebP whose frames cannot be listed")) }
        return schedule
    }
}

extension WebPAnimation: PictureAnimation {}
