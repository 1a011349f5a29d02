import Foundation
import Testing

/// Runs `name` from /usr/bin, one of the tools the tests make picture
/// files with and check them against (cwebp, dwebp, webpmux, img2webp,
/// heif-enc, heif-convert), its output discarded; an issue is recorded
/// when it fails. Returns whether it succeeded.
@discardableResult
public func runTool(_ name: String, _ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) throws -> Bool {
    let tool = Process()
    tool.executableURL = URL(fileURLWithPath: "/usr/bin/" + name)
    tool.arguments = arguments
    tool.standardOutput = FileHandle.nullDevice
    tool.standardError = FileHandle.nullDevice
    try tool.run()
    tool.waitUntilExit()
    #expect(tool.terminationStatus == 0, "\(name) \(arguments.joined(separator: " "))", sourceLocation: sourceLocation)
    return tool.terminationStatus == 0
}

/// An XRGB pixel dimmed in software to `percent`, as the compositor does:
/// each channel scaled and rounded, the X byte 0. What the tests expect
/// of a dimmed frame, worked out on its own.
public func dimmedPixel(_ pixel: UInt32, toPercent percent: Int) -> UInt32 {
    func channel(_ shift: UInt32) -> UInt32 {
        let value = Int((pixel >> shift) & 0xFF)
        let scaled = (value * percent + 50) / 100
        return UInt32(scaled) << shift
    }
    return channel(16) | channel(8) | channel(0)
}
