#if canImport(Glibc)
import Glibc
#endif

/// Opens device nodes (DRM cards, input devices): straight with `open`, or
/// through a seat manager (seatd, logind), which opens them for a process
/// without the rights to, and takes them back when the seat goes to
/// another session.
public protocol DeviceOpener {
    /// Opens `path`; `flags` are what a direct open uses (a seat manager
    /// opens read-write and non-blocking whatever is asked).
    func openDevice(_ path: String, flags: Int32) throws(SystemCallError) -> FileDescriptor
}

/// Devices opened by the process itself, with its own rights: root, or
/// a user in the `video` and `input` groups.
public struct DirectDeviceOpener: DeviceOpener {
    public init() {}

    public func openDevice(_ path: String, flags: Int32) throws(SystemCallError) -> FileDescriptor {
        try FileDescriptor(opening: path, flags: flags)
    }
}
