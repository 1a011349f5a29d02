import CFFmpeg
import KioskCore
import KioskRendering
import SystemCalls

/// A clip's video demuxed and decoded by FFmpeg (libavformat, libavcodec),
/// in software, one frame at a time: the frames stay the decoder's, at
/// their own size, until ``ClipFrame/picture(fittedTo:background:)``
/// reduces and converts one for its slot.
///
/// What is read is bounded before anything large is allocated:
/// - only the MP4/QuickTime and Matroska/WebM demuxers (`format_whitelist`),
///   reading only through ``ClipInput``;
/// - only H.264, HEVC, VP9 and AV1;
/// - the size the container declares, and the decoder's own `max_pixels`,
///   at most ``DecodeOptions/maximumClipPixels``;
/// - at most ``packetsPerFrame`` packets read for one frame (a stream of
///   packets that never make a picture ends).
///
/// `avformat_find_stream_info` is never called: the two containers carry
/// the codec's parameters in their headers, and that call would decode
/// frames with a decoder of its own, before the size was checked.
final class ClipStream {
    let path: String
    private let input: ClipInput
    private var format: UnsafeMutablePointer<AVFormatContext>?
    private var decoder: UnsafeMutablePointer<AVCodecContext>?
    private var packet: UnsafeMutablePointer<AVPacket>?
    private let stream: UnsafeMutablePointer<AVStream>
    /// What the container says: the codec, the size (turned), the length, the rate.
    private(set) var info: ClipInfo
    /// How the stored frames are turned upright (the display matrix of a phone's clip).
    let orientation: ImageOrientation
    private var draining = false
    private var finished = false

    /// The most packets read for one frame: a minute of 30 fps video with
    /// every packet refused, or a stream of empty packets.
    static let packetsPerFrame = 2000
    /// The codecs kioskd plays, as an operator knows them.
    static func played(_ codec: AVCodecID) -> String? {
        switch codec {
        case AV_CODEC_ID_H264: "H.264"
        case AV_CODEC_ID_HEVC: "HEVC"
        case AV_CODEC_ID_VP9: "VP9"
        case AV_CODEC_ID_AV1: "AV1"
        default: nil
        }
    }
    /// The demuxers FFmpeg may choose between (each name as libavformat lists it).
    static let demuxers = "mov,mp4,m4a,3gp,3g2,mj2,matroska,webm"

    /// Opens the clip in `input` and its decoder; `threads` decode at once
    /// (1 for a poster, which is one frame).
    init(_ input: ClipInput, path: String, maximumPixels: Int, threads: Int = 1) throws(ImageFileError) {
        self.path = path
        self.input = input
        _ = Self.quietFFmpeg
        var format = try Self.openContainer(input, path: path)
        let index = av_find_best_stream(format, AVMEDIA_TYPE_VIDEO, -1, -1, nil, 0)
        guard index >= 0, let stream = format?.pointee.streams[Int(index)] else {
            avformat_close_input(&format)
            throw ImageFileError(path: path, reason: .corrupt("the file holds no video"))
        }
        self.format = format
        self.stream = stream
        let parameters = stream.pointee.codecpar.pointee
        let stored = PixelSize(width: Int(parameters.width), height: Int(parameters.height))
        orientation = Self.orientation(of: stream)
        let rate = stream.pointee.avg_frame_rate, base = stream.pointee.time_base
        var length: Double?
        if stream.pointee.duration > 0, base.den > 0 {
            length = Double(stream.pointee.duration) * Double(base.num) / Double(base.den)
        } else if let format, format.pointee.duration > 0 {
            length = Double(format.pointee.duration) / Double(AV_TIME_BASE)
        }
        info = ClipInfo(
            codec: Self.played(parameters.codec_id) ?? String(cString: avcodec_get_name(parameters.codec_id)),
            size: orientation.uprightSize(of: Self.displaySize(stored, parameters.sample_aspect_ratio)), depth: 8, length: length,
            framesPerSecond: rate.num > 0 && rate.den > 0 ? Double(rate.num) / Double(rate.den) : nil)
        guard Self.played(parameters.codec_id) != nil else {
            throw ImageFileError(path: path, reason: .corrupt("a clip in \(info.codec): kioskd plays H.264, HEVC, VP9 and AV1"))
        }
        guard stored.width > 0, stored.height > 0 else { throw ImageFileError(path: path, reason: .corrupt("the container gives the video no size")) }
        guard stored.pixelCount <= maximumPixels else { throw ImageFileError(path: path, reason: .tooLarge(stored)) }
        try openDecoder(parameters: stream.pointee.codecpar, maximumPixels: maximumPixels, threads: threads)
        packet = av_packet_alloc()
        guard packet != nil else { throw ImageFileError(path: path, reason: .corrupt("FFmpeg cannot allocate a packet")) }
    }

    /// The movie's `com.apple.quicktime.content.identifier` (an iPhone Live
    /// Photo's MOV: the UUID its still carries, ``LivePhotoPairs``), read
    /// by FFmpeg's QuickTime demuxer from the container's header, without
    /// a decoder; nil when it has none or is no movie FFmpeg reads.
    static func contentIdentifier(of input: ClipInput, path: String) -> String? {
        _ = quietFFmpeg
        var format: UnsafeMutablePointer<AVFormatContext>?
        do { format = try openContainer(input, path: path) } catch { return nil }
        defer { avformat_close_input(&format) }
        guard let entry = av_dict_get(format?.pointee.metadata, contentIdentifierKey, nil, 0), let value = entry.pointee.value else { return nil }
        let identifier = String(cString: value)
        return identifier.isEmpty ? nil : identifier
    }

    /// The key FFmpeg gives the QuickTime `mdta` item (ffprobe shows it under format tags).
    static let contentIdentifierKey = "com.apple.quicktime.content.identifier"

    /// The container in `input` opened by one of ``demuxers``.
    private static func openContainer(_ input: ClipInput, path: String) throws(ImageFileError) -> UnsafeMutablePointer<AVFormatContext>? {
        var format = avformat_alloc_context()
        guard let context = format else { throw ImageFileError(path: path, reason: .corrupt("FFmpeg cannot allocate a demuxer")) }
        context.pointee.pb = input.context
        var options: OpaquePointer?
        av_dict_set(&options, "format_whitelist", demuxers, 0)
        defer { av_dict_free(&options) }
        // On failure avformat_open_input frees the context and sets the pointer to nil.
        try check(avformat_open_input(&format, nil, nil, &options), path: path, input: input, doing: "cannot read the container")
        return format
    }

    private func openDecoder(parameters: UnsafeMutablePointer<AVCodecParameters>, maximumPixels: Int, threads: Int) throws(ImageFileError) {
        guard let codec = avcodec_find_decoder(parameters.pointee.codec_id) else {
            throw ImageFileError(path: path, reason: .corrupt("this FFmpeg has no \(info.codec) decoder"))
        }
        decoder = avcodec_alloc_context3(codec)
        guard let decoder else { throw ImageFileError(path: path, reason: .corrupt("FFmpeg cannot allocate a decoder")) }
        try Self.check(avcodec_parameters_to_context(decoder, parameters), path: path, input: input, doing: "cannot set up the \(info.codec) decoder")
        decoder.pointee.max_pixels = Int64(maximumPixels)
        decoder.pointee.thread_count = Int32(threads)
        decoder.pointee.pkt_timebase = stream.pointee.time_base
        try Self.check(avcodec_open2(decoder, codec, nil), path: path, input: input, doing: "cannot open the \(info.codec) decoder")
    }

    deinit {
        avcodec_free_context(&decoder)
        avformat_close_input(&format)
        av_packet_free(&packet)
    }

    /// The next frame, or nil once the stream has ended (every frame decoded).
    func nextFrame() throws(ImageFileError) -> ClipFrame? {
        guard !finished, let decoder, let format, let packet else { return nil }
        guard let frame = av_frame_alloc() else { throw ImageFileError(path: path, reason: .corrupt("FFmpeg cannot allocate a frame")) }
        let decoded = ClipFrame(frame, path: path)
        var packets = 0, errors = 0
        var refusal: Int32 = 0
        while true {
            let received = avcodec_receive_frame(decoder, frame)
            if received == 0 {
                decoded.time = time(of: frame)
                if info.depth == 8, let depth = decoded.depth { info.depth = depth }
                if info.highDynamicRange == nil { info.highDynamicRange = Self.highDynamicRange(frame.pointee.color_trc) }
                return decoded
            }
            if received == kiosk_av_error_eof { finished = true; return nil }
            if received != kiosk_av_error_again {
                // A frame that did not decode (a damaged block; with frame
                // threads its error comes here): passed over like a refused
                // packet, so the next key frame may decode; a stream of them ends it.
                refusal = received
                errors += 1
                guard errors <= Self.packetsPerFrame else {
                    throw ImageFileError(path: path, reason: .corrupt(Self.words(received, input: input)))
                }
                continue
            }
            if draining {
                // Everything sent was decoded, and no end came: the end.
                finished = true
                return nil
            }
            let read = av_read_frame(format, packet)
            if read < 0 {
                // The end, or a read that failed (a truncated file): what was read is decoded.
                draining = true
                _ = avcodec_send_packet(decoder, nil)
                continue
            }
            defer { av_packet_unref(packet) }
            guard packet.pointee.stream_index == stream.pointee.index else { continue }
            packets += 1
            guard packets <= Self.packetsPerFrame else {
                let why = refusal < 0 ? ": " + Self.words(refusal, input: input) : ""
                throw ImageFileError(path: path, reason: .corrupt("\(Self.packetsPerFrame) packets of \(info.codec) made no picture\(why)"))
            }
            let sent = avcodec_send_packet(decoder, packet)
            // A packet the decoder refuses is passed over: the next key frame may decode.
            if sent < 0 && sent != kiosk_av_error_again { refusal = sent }
        }
    }

    /// Back to the first frame, to play the clip again (`video_repeat = "loop"`).
    func rewind() throws(ImageFileError) {
        guard let format, let decoder else { return }
        let start = stream.pointee.start_time == kiosk_av_nopts ? 0 : stream.pointee.start_time
        try Self.check(av_seek_frame(format, stream.pointee.index, start, AVSEEK_FLAG_BACKWARD), path: path, input: input, doing: "cannot go back to the start")
        avcodec_flush_buffers(decoder)
        draining = false
        finished = false
    }

    /// Seconds from the stream's start to `frame` (its best guess at a timestamp).
    private func time(of frame: UnsafeMutablePointer<AVFrame>) -> Double {
        let base = stream.pointee.time_base, start = stream.pointee.start_time
        let stamp = frame.pointee.best_effort_timestamp
        guard stamp != kiosk_av_nopts, base.den > 0 else { return .nan }
        // In doubles: a file's timestamps are anything, and their difference may not fit 64 bits.
        return (Double(stamp) - Double(start == kiosk_av_nopts ? 0 : start)) * Double(base.num) / Double(base.den)
    }

    /// FFmpeg's log is off: a broken stream can make a line per block, with
    /// addresses that make each one new. What went wrong is the error's words.
    private static let quietFFmpeg: Void = av_log_set_level(-8)  // AV_LOG_QUIET

    /// The turn the stream's display matrix asks for, in quarter turns (a
    /// phone's clip is stored as its sensor saw it).
    private static func orientation(of stream: UnsafeMutablePointer<AVStream>) -> ImageOrientation {
        guard let matrix = kiosk_av_display_matrix(stream) else { return .upright }
        let angle = av_display_rotation_get(matrix)
        guard angle.isFinite else { return .upright }
        // av_display_rotation_get: the angle the matrix turns the frame anticlockwise.
        return ImageOrientation(quarterTurnsAnticlockwise: Int((angle / 90).rounded()), mirror: nil)
    }

    /// The stored size stretched by a pixel aspect other than square (DV, some cameras).
    private static func displaySize(_ stored: PixelSize, _ aspect: AVRational) -> PixelSize {
        guard aspect.num > 0, aspect.den > 0, aspect.num != aspect.den else { return stored }
        let width = (Double(stored.width) * Double(aspect.num) / Double(aspect.den)).rounded()
        guard width >= 1, width <= 65536 else { return stored }
        return PixelSize(width: Int(width), height: stored.height)
    }

    static func highDynamicRange(_ transfer: AVColorTransferCharacteristic) -> String? {
        switch transfer {
        case AVCOL_TRC_ARIB_STD_B67: "HLG"
        case AVCOL_TRC_SMPTE2084: "PQ"
        default: nil
        }
    }

    private static func check(_ result: Int32, path: String, input: ClipInput, doing: String) throws(ImageFileError) {
        guard result < 0 else { return }
        throw ImageFileError(path: path, reason: .corrupt(doing + ": " + words(result, input: input)))
    }

    /// FFmpeg's words for an error, or the system's when the read failed.
    static func words(_ code: Int32, input: ClipInput) -> String {
        if let failure = input.failure { return failure }
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: 128) { text in
            guard av_strerror(code, text.baseAddress, text.count) == 0 else { return "FFmpeg error \(code)" }
            return String(cString: text.baseAddress!)
        }
    }
}
