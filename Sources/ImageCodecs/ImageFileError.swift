import KioskCore

/// Why a picture file could not be shown. The description is the log line an
/// operator reads: the file, then the reason.
public struct ImageFileError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Reason: Equatable, Sendable {
        /// A system call failed: the call and its errno.
        case system(call: String, errno: Int32)
        case empty
        /// A directory, FIFO or device where a picture was listed.
        case notARegularFile
        case notAnImage
        /// The picture's dimensions are beyond what the kiosk will decode.
        case tooLarge(PixelSize)
        /// The decoding library refused the data; its own words.
        case corrupt(String)
        case fileTooLarge(bytes: Int)
    }

    public let path: String
    public let reason: Reason

    public init(path: String, reason: Reason) {
        self.path = path
        self.reason = reason
    }

    public var description: String {
        switch reason {
        case .system(let call, let errno):
            return "\(path): \(call) failed: \(errnoDescription(errno))"
        case .empty:
            return "\(path): the file is empty"
        case .notARegularFile:
            return "\(path): not a regular file"
        case .notAnImage:
            return "\(path): not a JPEG or PNG file"
        case .tooLarge(let size):
            return "\(path): the picture is too large to decode (\(size) pixels)"
        case .corrupt(let message):
            return "\(path): cannot decode: \(message)"
        case .fileTooLarge(let bytes):
            return "\(path): the file is too large (\(bytes) bytes)"
        }
    }
}
