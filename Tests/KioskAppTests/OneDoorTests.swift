import Foundation
import Testing

/// The show's one door (``ShowController``): sources perform commands,
/// subscribe to events and read a ``ShowSnapshot``; only the show's own
/// folder (its loop, its reload, its assembly) holds the ``RunningShow``.
@Suite struct OneDoorTests {
    @Test func noSourceOutsideTheShowReachesIntoRunningShow() throws {
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sources")
        let showFolder = sources.appendingPathComponent("KioskApp/Show").path + "/"
        var reaches: [String] = []
        let files = try #require(FileManager.default.enumerator(atPath: sources.path))
        var checked = 0
        for case let relative as String in files where relative.hasSuffix(".swift") {
            let path = sources.appendingPathComponent(relative).path
            guard !path.hasPrefix(showFolder) else { continue }
            checked += 1
            let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
            for (number, line) in lines.enumerated() where line.contains("controller.show") || line.contains("RunningShow") {
                reaches.append("\(relative):\(number + 1): \(line.trimmingCharacters(in: .whitespaces))")
            }
        }
        #expect(checked > 100)
        #expect(reaches.isEmpty, "files outside Sources/KioskApp/Show reach into the show:\n\(reaches.joined(separator: "\n"))")
    }
}
