import CFFmpeg
import SystemCalls
#if canImport(Glibc)
import Glibc
#endif

/// The bytes of a clip as FFmpeg reads them: a custom `AVIOContext` over a
/// file kioskd opened (or bytes in memory: the header, the fuzzer), limited
/// to a byte range. FFmpeg never opens a path or URL itself, so it cannot
/// follow a reference out of the file, and a motion photo's video is
/// served as if it were a file of its own (its range in the still).
final class ClipInput {
    /// Where the bytes come from: `pread` on the file, or a copy in memory.
    private enum Bytes {
        case file(OpenFile)
        case memory([UInt8])
    }

    /// A descriptor closed with this input.
    private final class OpenFile {
        let file: FileDescriptor
        init(_ file: consuming FileDescriptor) { self.file = file }
    }

    private let bytes: Bytes
    /// The part of the file that is the clip.
    let range: Range<Int64>
    /// Where FFmpeg reads next, from the range's start.
    private var position: Int64 = 0
    /// Set when a read fails: the system's words.
    private(set) var failure: String?
    /// FFmpeg's reader over this input, alive as long as it is.
    private(set) var context: UnsafeMutablePointer<AVIOContext>!

    /// FFmpeg reads in blocks of this many bytes.
    static let blockSize = 64 << 10

    /// The bytes `range` of the open `file` (all of it when nil).
    init(file: consuming FileDescriptor, range: Range<Int64>) throws(ImageFileError) {
        bytes = .file(OpenFile(file))
        self.range = range
        try makeContext()
    }

    /// The clip whole in memory.
    init(bytes: [UInt8]) throws(ImageFileError) {
        self.bytes = .memory(bytes)
        range = 0..<Int64(bytes.count)
        try makeContext()
    }

    deinit {
        if let context {
            av_free(context.pointee.buffer)
            var freed: UnsafeMutablePointer<AVIOContext>? = context
            avio_context_free(&freed)
        }
    }

    var length: Int64 { range.upperBound - range.lowerBound }

    private func makeContext() throws(ImageFileError) {
        guard let buffer = av_malloc(Self.blockSize) else { throw ImageFileError(path: "", reason: .corrupt("FFmpeg cannot allocate a buffer")) }
        let opaque = Unmanaged.passUnretained(self).toOpaque()
        context = avio_alloc_context(
            buffer.assumingMemoryBound(to: UInt8.self), Int32(Self.blockSize), 0, opaque,
            { opaque, buffer, count in
                Unmanaged<ClipInput>.fromOpaque(opaque!).takeUnretainedValue().read(into: buffer!, count: Int(count))
            },
            nil,
            { opaque, offset, whence in
                Unmanaged<ClipInput>.fromOpaque(opaque!).takeUnretainedValue().seek(offset, whence: whence)
            })
        if context == nil {
            av_free(buffer)
            throw ImageFileError(path: "", reason: .corrupt("FFmpeg cannot allocate a reader"))
        }
    }

    /// FFmpeg's read: up to `count` bytes, or AVERROR_EOF at the range's end.
    private func read(into buffer: UnsafeMutablePointer<UInt8>, count: Int) -> Int32 {
        let wanted = Int(min(Int64(count), max(0, length - position)))
        guard wanted > 0 else { return kiosk_av_error_eof }
        var got = 0
        switch bytes {
        case .memory(let memory):
            memory.withUnsafeBufferPointer { memory in
                UnsafeMutableRawPointer(buffer).copyMemory(from: memory.baseAddress! + Int(position), byteCount: wanted)
            }
            got = wanted
        case .file(let open):
            got = pread(open.file.rawValue, buffer, wanted, off_t(range.lowerBound + position))
            while got < 0 && errno == EINTR { got = pread(open.file.rawValue, buffer, wanted, off_t(range.lowerBound + position)) }
            if got < 0 {
                let error = errno
                failure = String(cString: strerror(error))
                return -error
            }
            // The file shrank under the reader: its end.
            if got == 0 { return kiosk_av_error_eof }
        }
        position += Int64(got)
        return Int32(got)
    }

    /// FFmpeg's seek, within the range; AVSEEK_SIZE asks for its length.
    private func seek(_ offset: Int64, whence: Int32) -> Int64 {
        let whence = whence & ~kiosk_avseek_force
        if whence == kiosk_avseek_size { return length }
        let target: Int64
        switch whence {
        case SEEK_SET: target = offset
        case SEEK_CUR: target = position &+ offset
        case SEEK_END: target = length &+ offset
        default: return -Int64(EINVAL)
        }
        guard target >= 0 else { return -Int64(EINVAL) }
        position = target
        return target
    }
}
