import SystemCalls
#if canImport(Glibc)
import Glibc
#endif

/// A panel's backlight as the kernel presents it: `/sys/class/backlight/<name>/`
/// with `brightness` (written) and `max_brightness`. The official Raspberry
/// Pi touchscreen, DSI and eDP panels have one; an HDMI monitor does not.
///
/// A process that is not root may write `brightness` only if the file is
/// made writable for it: the udev rule kioskd installs
/// (`90-kioskd-backlight.rules`) gives group `video` write access, as
/// brightnessctl's does. logind's `SetBrightness` would need a logind
/// session on the seat, which a system service has not. The service unit
/// keeps `/sys` read-only (`ProtectKernelTunables=yes`) unless the operator
/// enables the drop-in `kioskd-backlight.conf`; without it kioskd finds the
/// file not writable and dims in software.
public struct Backlight: Sendable, Equatable {
    /// Where the kernel lists them.
    public static let folder = "/sys/class/backlight"

    /// `intel_backlight`, `rpi_backlight`, `10-0045`...
    public let name: String
    /// Its folder.
    public let path: String
    /// The raw value of full brightness.
    public let maximum: Int

    /// The backlight named `name` in `folder`; nil when it has none, or its
    /// `max_brightness` says nothing sensible.
    public init?(named name: String, in folder: String = Backlight.folder) {
        let path = folder + "/" + name
        guard let text = sysfsText(path + "/max_brightness"), let maximum = Int(text), maximum > 0 else { return nil }
        self.name = name
        self.path = path
        self.maximum = maximum
    }

    /// Every backlight in `folder`, firmware ones first, then platform, then
    /// raw (the kernel's `type`: firmware and platform ones know the panel
    /// best, as systemd-backlight and GNOME prefer them); by name within each.
    public static func all(in folder: String = Backlight.folder) -> [Backlight] {
        let names = ((try? directoryEntryNames(folder)) ?? []).map { String(decoding: $0, as: UTF8.self) }.filter { !$0.hasPrefix(".") }
        let rank = ["firmware": 0, "platform": 1, "raw": 2]
        return names.sorted().compactMap { Backlight(named: $0, in: folder) }
            .map { ($0, rank[sysfsText($0.path + "/type") ?? ""] ?? 3) }
            .sorted { $0.1 < $1.1 }
            .map(\.0)
    }

    /// True when this process may set it (the udev rule, or root).
    public var isWritable: Bool { access(path + "/brightness", W_OK) == 0 }

    /// The raw value for `percent`: never 0 above 0%, since many panels'
    /// backlights go dark at 0.
    public func value(forPercent percent: Int) -> Int {
        let percent = min(max(percent, 0), 100)
        guard percent > 0 else { return 0 }
        return max(1, (maximum * percent + 50) / 100)
    }

    /// The raw value now.
    public var current: Int? { sysfsText(path + "/brightness").flatMap { Int($0) } }

    /// Sets it to `percent`. A sysfs write: quick on most panels, but some
    /// backlights sit behind I2C or the firmware, so callers keep it off
    /// the render loop (``BacklightWriter`` in the app).
    public func set(percent: Int) throws(SystemCallError) {
        let file = try FileDescriptor(opening: path + "/brightness", flags: O_WRONLY | O_CLOEXEC)
        var text = Array("\(value(forPercent: percent))\n".utf8)
        let count = text.count
        let written = try text.withUnsafeMutableBytes { bytes -> Result<Int, SystemCallError> in
            Result { () throws(SystemCallError) in try file.write(from: bytes.baseAddress!, count: count) }
        }.get()
        guard written == count else { throw SystemCallError("write", errno: EIO, path: path + "/brightness") }
    }
}
