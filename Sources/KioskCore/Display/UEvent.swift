/// A kernel uevent as it arrives on a `NETLINK_KOBJECT_UEVENT` socket:
/// a header `ACTION@DEVPATH`, then `KEY=VALUE` fields, each ended by a
/// zero byte. kioskd reads them for its DRM card's `change` events
/// (hotplug: `HOTPLUG=1` from the kernel, none from a test's
/// `echo change > /sys/class/drm/card0/uevent`).
///
/// Outside input: anything malformed is nil, never a crash; fields are
/// kept only up to the kernel's own limits.
public struct UEvent: Equatable, Sendable {
    public var action: String
    public var devicePath: String
    public var fields: [String: String]

    /// The kernel's largest uevent (`UEVENT_BUFFER_SIZE`).
    public static let maximumBytes = 2048
    static let maximumFields = 64

    /// Parses one message; nil when it is not a kernel uevent (udev's
    /// rebroadcasts start with `libudev`, and have no `@` header).
    public init?(message bytes: some Collection<UInt8>) {
        guard !bytes.isEmpty, bytes.count <= Self.maximumBytes else { return nil }
        var parts = bytes.split(separator: 0, omittingEmptySubsequences: true).makeIterator()
        guard let header = parts.next(), let at = header.firstIndex(of: UInt8(ascii: "@")) else { return nil }
        action = String(decoding: header[..<at], as: UTF8.self)
        devicePath = String(decoding: header[header.index(after: at)...], as: UTF8.self)
        guard !action.isEmpty, devicePath.hasPrefix("/") else { return nil }
        fields = [:]
        while let part = parts.next(), fields.count < Self.maximumFields {
            guard let equals = part.firstIndex(of: UInt8(ascii: "=")) else { continue }
            fields[String(decoding: part[..<equals], as: UTF8.self)] = String(decoding: part[part.index(after: equals)...], as: UTF8.self)
        }
        if let said = fields["ACTION"], said != action { return nil }
    }

    public var subsystem: String? { fields["SUBSYSTEM"] }

    /// The device number (`MAJOR`, `MINOR`) the event is about, if it names one.
    public var deviceNumber: (major: UInt32, minor: UInt32)? {
        guard let major = fields["MAJOR"].flatMap({ UInt32($0) }), let minor = fields["MINOR"].flatMap({ UInt32($0) }) else {
            return nil
        }
        return (major, minor)
    }

    /// True for a `change` of the DRM device with this number: a connector
    /// came or went, or its modes changed (or a test says so).
    public func isChange(ofDRMDevice major: UInt32, _ minor: UInt32) -> Bool {
        guard action == "change", subsystem == "drm", let number = deviceNumber else { return false }
        return number.major == major && number.minor == minor
    }
}
