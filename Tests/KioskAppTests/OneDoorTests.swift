import Foundation
import KioskCore
import Testing
@testable import KioskApp

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

    /// A subscription lasts as long as its token: ended, or released, its
    /// handler hears nothing more; one ended by a handler mid-event is not
    /// called with that event. Events and sensor readings go to their own listeners.
    @Test func aSubscriptionEndsWithItsToken() throws {
        let folder = try fourColours()
        let run = try SimulatedShow(showSettings(folder, interval: 3600))
        var heard: [String] = []
        var second: ShowSubscription?
        let first = run.controller.subscribe { event in
            heard.append("first \(event)")
            second?.end()
        }
        second = run.controller.subscribe { event in heard.append("second \(event)") }
        var third: ShowSubscription? = run.controller.subscribe { event in heard.append("third \(event)") }
        let readings = run.controller.listen { reading in heard.append("reading \(reading)") }
        run.controller.publish(.paused)
        #expect(heard == ["first paused", "third paused"], "the second was ended by the first before its turn")
        heard = []
        third = nil
        run.controller.report(.someoneThere(true))
        run.controller.publish(.resumed)
        #expect(heard == ["reading someoneThere(true)", "first resumed"])
        withExtendedLifetime(third) {}
        first.end()
        readings.end()
        heard = []
        run.controller.publish(.paused)
        run.controller.report(.presence)
        #expect(heard.isEmpty)
        #expect(run.events.contains(.paused) && run.readings == [.someoneThere(true), .presence], "the harness's own subscriptions go on")
        withExtendedLifetime(folder) {}
    }
}
