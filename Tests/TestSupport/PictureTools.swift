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
