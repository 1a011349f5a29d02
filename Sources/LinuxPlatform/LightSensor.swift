import SystemCalls
#if canImport(Glibc)
import Glibc
#endif

/// An ambient light sensor as the kernel's IIO subsystem presents it:
/// `/sys/bus/iio/devices/iio:deviceN/` with `in_illuminance_input` (lux),
/// or `in_illuminance_raw` with `in_illuminance_scale` (and an offset, if
/// it has one). Reading one may be an I2C transaction that takes
/// milliseconds, so callers read it off the render loop.
public struct LightSensor: Sendable, Equatable {
    public static let folder = "/sys/bus/iio/devices"

    /// `iio:device0`.
    public let name: String
    public let path: String
    /// The driver's name for it (`tsl2591`, `bh1750`...), from `name`.
    public let model: String

    /// The IIO device `name` in `folder`, if it measures illuminance.
    public init?(named name: String, in folder: String = LightSensor.folder) {
        let path = folder + "/" + name
        guard access(path + "/in_illuminance_input", R_OK) == 0 || access(path + "/in_illuminance_raw", R_OK) == 0 else { return nil }
        self.name = name
        self.path = path
        model = sysfsText(path + "/name") ?? name
    }

    /// Every IIO device in `folder` that measures illuminance, by name.
    public static func all(in folder: String = LightSensor.folder) -> [LightSensor] {
        let names = ((try? directoryEntryNames(folder)) ?? []).map { String(decoding: $0, as: UTF8.self) }
        return names.filter { !$0.hasPrefix(".") }.sorted().compactMap { LightSensor(named: $0, in: folder) }
    }

    /// The light now, in lux; nil when the sensor did not answer or said nothing sensible.
    public func lux() -> Double? {
        if let text = sysfsText(path + "/in_illuminance_input"), let lux = Double(text), lux.isFinite { return max(lux, 0) }
        guard let raw = sysfsText(path + "/in_illuminance_raw").flatMap(Double.init), raw.isFinite else { return nil }
        let scale = sysfsText(path + "/in_illuminance_scale").flatMap(Double.init) ?? 1
        let offset = sysfsText(path + "/in_illuminance_offset").flatMap(Double.init) ?? 0
        let lux = (raw + offset) * scale
        return lux.isFinite ? max(lux, 0) : nil
    }
}

/// A small sysfs file's text, spaces and the newline trimmed; nil when unreadable.
func sysfsText(_ path: String) -> String? {
    guard let file = try? FileDescriptor(opening: path, flags: O_RDONLY | O_CLOEXEC) else { return nil }
    var buffer = [UInt8](repeating: 0, count: 64)
    guard let count = try? buffer.withUnsafeMutableBytes({ bytes in
        Result { () throws(SystemCallError) in try file.read(into: bytes.baseAddress!, count: bytes.count) }
    }).get() else {
        return nil
    }
    var text = Substring(String(decoding: buffer.prefix(count), as: UTF8.self))
    while let first = text.first, first == " " || first == "\n" || first == "\t" { text.removeFirst() }
    while let last = text.last, last == " " || last == "\n" || last == "\t" { text.removeLast() }
    return String(text)
}
