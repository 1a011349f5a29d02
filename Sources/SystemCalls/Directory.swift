#if canImport(Glibc)
import Glibc
#endif

/// The names in folder `path` (not recursively), as the bytes the file
/// system holds, in no order, without `.` and `..`. The corresponding C
/// calls are `opendir` and `readdir`.
public func directoryEntryNames(_ path: String) throws(SystemCallError) -> [[UInt8]] {
    guard let directory = opendir(path) else { throw .last("opendir", path: path) }
    defer { closedir(directory) }
    var names: [[UInt8]] = []
    while let entry = readdir(directory) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in Array(raw.prefix { $0 != 0 }) }
        if name != [UInt8(ascii: ".")] && name != [UInt8(ascii: "."), UInt8(ascii: ".")] { names.append(name) }
    }
    return names
}
