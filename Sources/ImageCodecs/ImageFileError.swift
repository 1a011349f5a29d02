import KioskCore
import SystemCalls

/// Why a picture file could not be shown. The description is the log line an
/// operator reads: the file, then the reason.
public struct ImageFileError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Reason: Equatable, Sendable {
        /// A system call failed on the file.
        case system(SystemCallError)
        case empty
        /// A directory, FIFO or device where a picture was listed.
        case notARegularFile
        case notAnImage
        /// Asked to play the frames of a picture that has none (a file rewritten as a still).
        case notAnimated
        /// The picture's dimensions are beyond what the kiosk will decode.
        case tooLarge(PixelSize)
        /// The decoding library refused the data; its own words.
        case corrupt(String)
        case fileTooLarge(bytes: Int)
        /// The library that reads this kind of picture, loaded on first use, is not installed.
        case libraryMissing(MissingLibrary)
        /// A video clip, with `video = false`.
        case clipsOff
    }

    public let path: String
    public let reason: Reason

    public init(path: String, reason: Reason) {
        self.path = path
        self.reason = reason
    }

    public var description: String { "\(path): \(why)" }

    /// The reason alone, without the path: "the file is empty".
    public var why: String {
        switch reason {
        case .system(let failure):
            return failure.reason
        case .empty:
            return "the file is empty"
        case .notARegularFile:
            return "not a regular file"
        case .notAnImage:
            return "not a \(PictureCodecs.names) file"
        case .notAnimated:
            return "the picture has no frames to play"
        case .tooLarge(let size):
            return "the picture is too large to decode (\(size) pixels)"
        case .corrupt(let message):
            return "cannot decode: \(message)"
        case .fileTooLarge(let bytes):
            return "the file is too large (\(bytes) bytes)"
        case .libraryMissing(let missing):
            return "cannot decode: \(missing)"
        case .clipsOff:
            return Self.clipsOffWords
        }
    }
}

extension ImageFileError {
    /// Why a clip is not shown with `video = false` (the decode's error, and the folder's line).
    public static let clipsOffWords = "a video clip, and video = false"
}

extension OnDemandLibrary {
    /// Maps the `libraries` the picture at `path` is read with, if they
    /// are not yet (``OnDemandLibrary``): one that is missing is that
    /// picture's error, naming the package to install.
    static func open(_ libraries: OnDemandLibrary..., reading path: String) throws(ImageFileError) {
        for library in libraries {
            do throws(MissingLibrary) { try library.open() } catch { throw ImageFileError(path: path, reason: .libraryMissing(error)) }
        }
    }
}

extension ImageFileError {
    /// A system call's failure on the file at `path` (which the error names, not the reason).
    init(_ failure: SystemCallError, path: String) {
        self.init(path: path, reason: .system(SystemCallError(failure.call, errno: failure.errno)))
    }
}
