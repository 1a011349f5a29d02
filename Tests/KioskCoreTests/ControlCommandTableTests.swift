import Foundation
import KioskCore
#if canImport(PropertyBased)
import PropertyBased
#endif
import TestSupport
import Testing

/// The control protocol as one table (``ControlRequest/table``): every
/// request writes itself as a line the parser reads back, and the
/// protocol's document is the table written out.
@Suite struct ControlCommandTableTests {
    /// A request of every kind, drawn from `seed`: counts, indexes, file
    /// names, settings, messages with line breaks and durations.
    static func request(seed: Int) -> ControlRequest {
        var random = SplitMix(seed: UInt64(seed))
        func next(_ bound: Int) -> Int { random.below(bound) }
        let pool = Array("abcXYZ019 .-_é漢\\\n")
        func text(_ most: Int, pool: [Character] = pool) -> String {
            var text = ""
            for _ in 0..<(1 + next(most)) {
                let character = pool[next(pool.count)]
                // A backslash before an n or a line break cannot be sent: the protocol reads \n as a line break.
                if text.last == "\\", character == "n" || character == "\n" { continue }
                text.append(character)
            }
            return "a" + text.trimmingCharacters(in: .whitespaces) + "b"
        }
        switch next(14) {
        case 0: return .next(1 + next(ControlRequest.maximumSteps))
        case 1: return .previous(1 + next(ControlRequest.maximumSteps))
        case 2: return .goto(.index(next(1_000_000)))
        case 3: return .goto(.file(text(30, pool: pool.filter { $0 != "\n" })))
        case 4: return [.pause, .resume, .status, .screenshot(.png), .screenshot(.jpeg), .watch, .reload][next(7)]
        case 5: return .display([.on, .off, .auto][next(3)])
        case 6: return .display(.on, brightness: next(101))
        case 7:
            let settings = KioskSettings.table.keys.sorted()
            return .set(setting: settings[next(settings.count)], value: text(12, pool: pool.filter { $0 != "\n" }))
        case 8: return .message(.clear)
        case 9: return .message(.show(text(200), seconds: nil))
        case 10: return .message(.show(text(200), seconds: Double(1 + next(86_400))))
        case 11: return .message(.show(text(20), seconds: [1.5, 90, 600, 7200][next(4)]))
        case 12: return .unset(setting: KioskSettings.table.keys.sorted()[next(KioskSettings.table.keys.count)])
        default: return .hold(Double(next(80_000)) / 8)
        }
    }

    /// What kioskctl, Home Assistant and the web page send is read back as
    /// the same request: the line is made from the table's parser, never
    /// written by hand.
    @Test func everyRequestsLineParsesBackToIt() async {
        await propertyCheck(count: 1000, input: Gen.int(in: 0...Int(Int32.max))) { seed in
            let request = Self.request(seed: seed)
            let parsed = Result { () throws(ControlRequestError) in try ControlRequest(parsing: request.line) }
            #expect(parsed == .success(request), "\(request.line.debugDescription)")
        }
        #expect(ControlRequest.next(1).line == "next" && ControlRequest.message(.show("a\nb", seconds: 600)).line == "message --for 600s a\\nb")
    }

    /// Every word of the table is a command the parser takes, by its own
    /// name, and the test command is left out of the list clients see.
    @Test func theTableNamesEveryCommandOnce() throws {
        let names = ControlRequest.table.map(\.name)
        #expect(Set(names).count == names.count)
        #expect(ControlRequest.commands == names.filter { $0 != "hold" })
        for command in ControlRequest.table {
            #expect(!command.summary.isEmpty && !command.help.isEmpty && !command.reply.isEmpty && !command.usage.isEmpty, "\(command.name)")
            for usage in command.usage { #expect(usage.hasPrefix(command.name), "\(usage)") }
        }
        #expect(try ControlRequest(parsing: "set interval 12").command.movesTheGroup)
        #expect(try !ControlRequest(parsing: "status").command.movesTheGroup)
        #expect(ControlRequest.watch.command.overMQTT(MQTTTopics(name: "hall")) == "the events are published on kioskd/hall/event")
        #expect(ControlRequest.next(1).command.overMQTT(MQTTTopics(name: "hall")) == nil)
    }

    static let begin = "<!-- The commands, written from ControlRequest.table (KioskCore/Control/ControlCommandTable.swift) by make reference. -->\n"
    static let end = "<!-- End of the commands. -->\n"

    /// docs/control-protocol.md's commands are the table, written out: a
    /// new or changed command without `make reference` fails here.
    @Test func theProtocolsCommandsAreTheTable() throws {
        let path = String(#filePath.split(separator: "/Tests/").first ?? "") + "/docs/control-protocol.md"
        let document = try String(contentsOfFile: path, encoding: .utf8)
        guard let start = document.range(of: Self.begin), let stop = document.range(of: Self.end, range: start.upperBound..<document.endIndex) else {
            Issue.record("docs/control-protocol.md has no commands between \(Self.begin) and \(Self.end)")
            return
        }
        let generated = ControlRequest.reference
        if getenv("KIOSKD_WRITE_REFERENCE") != nil {
            let written = String(document[..<start.upperBound]) + "\n" + generated + "\n" + String(document[stop.lowerBound...])
            try written.write(toFile: path, atomically: true, encoding: .utf8)
            return
        }
        #expect(String(document[start.upperBound..<stop.lowerBound]) == "\n" + generated + "\n", "run make reference")
        for name in ControlRequest.commands { #expect(generated.contains("| `\(name)"), "\(name)") }
    }
}
