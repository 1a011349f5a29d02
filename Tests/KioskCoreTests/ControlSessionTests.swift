import Foundation
import KioskCore
#if canImport(PropertyBased)
import PropertyBased
#endif
import Testing

/// The replies a session queued, as lines (a screenshot's PNG is not a line: tests that make one read it apart).
private func lines(_ session: ControlSession) -> [String] {
    String(decoding: session.unsent, as: UTF8.self).split(separator: "\n").map(String.init)
}

private func json(_ line: some StringProtocol) -> [String: Any]? {
    try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
}

/// Answers like the daemon would, recording what it was asked.
private final class Answers {
    var asked: [ControlRequest] = []
    func respond(_ request: ControlRequest) -> [UInt8] {
        asked.append(request)
        return ControlReply.success(["asked": .string("\(request)")]).line
    }
}

@Suite struct ControlSessionTests {
    @Test func repliesComeInOrderAndLinesMaySpanReads() {
        var session = ControlSession(now: 0)
        let answers = Answers()
        let result1 = session.receive(Array("sta".utf8), at: 1, respond: answers.respond)
        #expect(!result1)
        #expect(answers.asked.isEmpty)
        let result2 = session.receive(Array("tus\nnext 3\njump\nprev\n".utf8), at: 1, respond: answers.respond)
        #expect(!result2)
        #expect(answers.asked == [.status, .next(3), .previous(1)])
        let replies = lines(session)
        #expect(replies.count == 4)
        #expect(replies.allSatisfy { $0.hasPrefix("{\"ok\":") })
        #expect(json(replies[2])?["ok"] as? Bool == false)
        #expect((json(replies[2])?["error"] as? String)?.hasPrefix("unknown command \"jump\"") == true)
        // The connection stays usable after an error.
        #expect(session.wantsInput && !session.isFinished)
    }

    @Test func aLineOverFourKiBIsRefusedAndTheConnectionCloses() {
        var session = ControlSession(now: 0)
        let answers = Answers()
        _ = session.receive([UInt8](repeating: UInt8(ascii: "a"), count: 10 * 1024) + Array("\nstatus\n".utf8), at: 0, respond: answers.respond)
        #expect(answers.asked.isEmpty)
        #expect(!session.wantsInput)
        let reply = lines(session)
        #expect(reply.count == 1)
        #expect((json(reply[0])?["error"] as? String)?.contains("longer than 4096 bytes") == true)
        #expect(!session.isFinished, "the refusal goes out first")
        session.sent(session.unsent.count, at: 0)
        #expect(session.isFinished)
    }

    @Test func binaryGarbageIsRefusedLineByLine() {
        var session = ControlSession(now: 0)
        let answers = Answers()
        _ = session.receive([0xFF, 0xFE, 0x00, 0x0A, 0x80, 0x0A] + Array("status\n".utf8), at: 0, respond: answers.respond)
        let replies = lines(session)
        #expect(replies.count == 3)
        #expect(json(replies[0])?["error"] as? String == "the line is not UTF-8 text: send commands such as \"next\" or \"status\", one per line")
        #expect(answers.asked == [.status])
    }

    @Test func aSilentClientIsDroppedAfterTenSeconds() {
        var session = ControlSession(now: 100)
        #expect(session.deadline == 110)
        let result3 = session.checkDeadline(at: 109.9)
        #expect(!result3)
        _ = session.receive(Array("status\n".utf8), at: 105, respond: Answers().respond)
        session.sent(session.unsent.count, at: 105)
        let result4 = session.checkDeadline(at: 114)
        #expect(!result4)
        let result5 = session.checkDeadline(at: 115)
        #expect(result5)
        #expect(session.dropped == .idle && session.isFinished)
    }

    @Test func aWatchingClientMaySendNothingButMustRead() {
        var session = ControlSession(now: 0)
        _ = session.receive(Array("watch\n".utf8), at: 0, respond: Answers().respond)
        #expect(json(lines(session)[0])?["watching"] as? Bool == true)
        session.sent(session.unsent.count, at: 0)
        #expect(session.deadline == nil)
        let result6 = session.checkDeadline(at: 3600)
        #expect(!result6)
        session.notify(["event": "picture", "index": 3, "file": "04.jpg"], at: 3600)
        #expect(lines(session) == [#"{"event":"picture","index":3,"file":"04.jpg"}"#])
        // It has 10 s to take it.
        #expect(session.deadline == 3610)
        let result7 = session.checkDeadline(at: 3610)
        #expect(result7)
        #expect(session.dropped == .notReading)
    }

    /// A client that sends thousands of commands in one write and reads
    /// none of the replies: dropped part-way through the batch, the rest
    /// of its commands never answered (the daemon crashed here once).
    @Test func aBatchWhoseRepliesPassTheLimitDropsTheClientMidway() {
        var session = ControlSession(now: 0)
        var answered = 0
        let reply: JSONObject = ["ok": true, "padding": .string(String(repeating: "x", count: 1000))]
        _ = session.receive(Array(String(repeating: "status\n", count: 1000).utf8), at: 0) { _ in
            answered += 1
            return reply.line
        }
        #expect(session.dropped == .notReading)
        #expect(answered == ControlSession.unsentLimit / reply.line.count + 1)
        #expect(session.unsent.isEmpty && session.isFinished && !session.wantsInput)
        // Nothing more is taken from it.
        #expect(!session.receive(Array("screenshot\n".utf8), at: 1) { _ in reply.line })
        #expect(answered == ControlSession.unsentLimit / reply.line.count + 1)
    }

    @Test func repliesPiledUpPastTheLimitDropTheClient() {
        var session = ControlSession(now: 0)
        _ = session.receive(Array("watch\n".utf8), at: 0, respond: Answers().respond)
        let event: JSONObject = ["event": "picture", "index": 1, "file": .string(String(repeating: "x", count: 200))]
        var sent = 0
        while session.dropped == nil && sent < 10_000 {
            session.notify(event, at: 1)
            sent += 1
        }
        #expect(session.dropped == .notReading)
        // Dropped once past 256 KiB, not before.
        #expect(sent * event.line.count > ControlSession.unsentLimit)
        #expect((sent - 1) * event.line.count <= ControlSession.unsentLimit + 64)
        #expect(session.unsent.isEmpty && session.isFinished)
    }

    @Test func aScreenshotKeepsTheOrderAndItsBytesDoNotCountAgainstTheLimit() {
        var session = ControlSession(now: 0)
        let answers = Answers()
        let result8 = session.receive(Array("screenshot\nstatus\nscreenshot\n".utf8), at: 0, respond: answers.respond)
        #expect(result8)
        #expect(session.awaitingPicture && !session.wantsInput)
        #expect(answers.asked.isEmpty, "status waits behind the screenshot")
        #expect(session.deadline == nil, "the daemon's turn")
        let png = [UInt8](repeating: 7, count: 1 << 20)
        let wantsAnother = session.deliverPicture(ControlReply.success(["png_bytes": .int(png.count)]), bytes: png, at: 1, respond: answers.respond)
        #expect(!wantsAnother, "the next screenshot waits until this PNG is sent")
        #expect(answers.asked == [.status])
        #expect(session.dropped == nil, "a 1 MiB PNG is not a client that stopped reading")
        #expect(session.holdsPicture)
        let header = Array(#"{"ok":true,"png_bytes":1048576}"#.utf8) + [10]
        #expect(Array(session.unsent.prefix(header.count)) == header)
        #expect(Array(session.unsent.dropFirst(header.count).prefix(png.count)) == png)
        // Sending the PNG lets the second screenshot start.
        session.sent(header.count + png.count, at: 2)
        let result9 = session.proceed(at: 2, respond: answers.respond)
        #expect(result9)
        #expect(session.awaitingPicture)
        let result10 = session.failPicture("no frame yet", at: 3, respond: answers.respond)
        #expect(result10 == false)
        #expect(lines(session).map { json($0)?["ok"] as? Bool } == [true, false])
    }

    @Test func theRepliesGoOutAfterTheClientEndsItsInput() {
        var session = ControlSession(now: 0)
        _ = session.receive(Array("status\n".utf8), at: 0, respond: Answers().respond)
        session.endOfInput()
        #expect(!session.isFinished && !session.wantsInput)
        session.sent(session.unsent.count, at: 0)
        #expect(session.isFinished)
        var watcher = ControlSession(now: 0)
        _ = watcher.receive(Array("watch\n".utf8), at: 0, respond: Answers().respond)
        watcher.endOfInput()
        watcher.sent(watcher.unsent.count, at: 0)
        #expect(!watcher.isFinished, "a watcher stays until it hangs up")
    }

    @Test func anyBytesAtAllGiveJSONRepliesAndBoundedState() async {
        // A smaller in-process cousin of the fuzz target (Tests/fuzz).
        await propertyCheck(count: 300, input: Gen.int(in: 0...255).map { UInt8($0) }.array(of: 0...600)) { bytes in
            var session = ControlSession(now: 0)
            let answers = Answers()
            var offset = 0
            while offset < bytes.count, session.wantsInput {
                let piece = bytes[offset..<min(bytes.count, offset + 37)]
                offset += piece.count
                if session.receive(piece, at: 0, respond: answers.respond) {
                    _ = session.failPicture("none", at: 0, respond: answers.respond)
                }
            }
            for line in lines(session) { #expect(json(line) != nil, "not JSON: \(line)") }
            #expect(session.unsentReplyBytes <= ControlSession.unsentLimit)
        }
    }
}

@Suite struct JSONLineTests {
    @Test func keysKeepTheirOrderAndOkComesFirst() {
        let reply = ControlReply.success(["index": 3, "file": "04.jpg", "paused": false])
        #expect(String(decoding: reply.line, as: UTF8.self) == #"{"ok":true,"index":3,"file":"04.jpg","paused":false}"# + "\n")
        #expect(String(decoding: ControlReply.failure("no").line, as: UTF8.self) == #"{"ok":false,"error":"no"}"# + "\n")
    }

    @Test func anyStringSurvivesTheTripThroughJSON() async {
        await propertyCheck(count: 500, input: Gen.int(in: 0...0x2FF).map { Character(Unicode.Scalar($0) ?? " ") }.array(of: 0...40)) { characters in
            let text = String(characters)
            let line = String(decoding: (["file": .string(text), "x": .double(0.1), "n": .null] as JSONObject).line, as: UTF8.self)
            #expect(line.filter { $0 == "\n" }.count == 1, "one line whatever the text")
            #expect(json(line)?["file"] as? String == text)
        }
    }

    @Test func numbersThatJSONCannotHoldAreNull() {
        let line = String(decoding: (["a": .double(.infinity), "b": .double(.nan), "c": .double(2.5)] as JSONObject).line, as: UTF8.self)
        #expect(line == #"{"a":null,"b":null,"c":2.5}"# + "\n")
    }
}

@Suite struct ControlStatusTests {
    @Test func statusHasEveryKeyTheREADMENames() {
        let status = ControlStatus(
            index: 2, file: "03.jpg", count: 8, position: 2.12345, paused: false, moving: true, interval: 8, transition: 0.45,
            display: ["driver": "headless", "size": "640x360"], uptime: 12.345, statistics: ShowStatistics(), cacheBytes: 10,
            cacheBudgetBytes: 20)
        let keys = status.reply.fields.map(\.key)
        #expect(keys == [
            "ok", "index", "file", "files", "count", "taken", "picture_size", "clip_position_s", "clip_length_s", "clip_decoder", "position", "paused", "moving", "interval", "transition", "order", "display",
            "display_power", "display_state", "panel", "panning", "panning_off_reason", "brightness", "dimmer", "presence", "lux", "zoom", "focus", "zoom_sharp",
            "caption", "clock", "message", "uptime_s",
            "frames_shown", "refreshes_missed", "frames_panned", "frames_composed", "slides", "cache_bytes", "cache_budget_bytes", "pictures_waiting", "libraries", "version",
        ])
        #expect(status.reply["position"] == .double(2.123))
        #expect(json(String(decoding: status.reply.line, as: UTF8.self)) != nil)
    }

    @Test func watchEventsNameTheFileNotItsPath() {
        #expect(ShowEvent.pictureCentred(item: 3, file: "/srv/pictures/04.jpg").watchLine == ["event": "picture", "index": 3, "file": "04.jpg", "files": .array(["04.jpg"])])
        #expect(ShowEvent.pictureCentred(item: 0, file: "/p/a.jpg", shownAt: 1_795_680_000.016_667_4).watchLine?["shown_at"] == .double(1_795_680_000.016_667),
                "when the frame reached the screen, on the wall clock, to the microsecond")
        #expect(ShowEvent.paused.watchLine == ["event": "pause"])
        #expect(ShowEvent.resumed.watchLine == ["event": "resume"])
        #expect(ShowEvent.playlistChanged(count: 7, added: 2, removed: 0).watchLine == ["event": "playlist", "count": 7, "added": 2, "removed": 0])
        #expect(ShowEvent.settingsApplied.watchLine == nil)
    }

    @Test func theSocketSettings() throws {
        var settings = KioskSettings()
        #expect(settings.control.socket == "/run/kioskd/control.sock")
        try settings.set("socket", to: .string("none"))
        #expect(settings.control.socket == nil)
        try settings.set("socket", to: .string("/tmp/k.sock"))
        #expect(settings.control.socket == "/tmp/k.sock")
        #expect(throws: SettingError.self) { try settings.set("socket", to: .string("/" + String(repeating: "a", count: 107))) }
        #expect(throws: SettingError.self) { try settings.set("socket", to: .integer(3)) }
        try settings.set("socket_group", to: .string("kioskd"))
        #expect(settings.control.socketGroup == "kioskd")
    }
}
