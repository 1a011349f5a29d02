import KioskCore
#if canImport(PropertyBased)
import PropertyBased
#endif
import Testing

private func parse(_ line: String) -> Result<ControlRequest, ControlRequestError> {
    Result { () throws(ControlRequestError) in try ControlRequest(parsing: line) }
}

private func message(_ line: String) -> String? {
    if case .failure(let error) = parse(line) { return error.message }
    return nil
}

@Suite struct ControlRequestTests {
    @Test(arguments: [
        ("next", ControlRequest.next(1)), ("next 5", .next(5)), ("NEXT 1000", .next(1000)), ("prev", .previous(1)),
        ("prev 3", .previous(3)), ("  next\t2  ", .next(2)), ("next 2\r", .next(2)), ("goto 0", .goto(.index(0))),
        ("goto 17", .goto(.index(17))), ("goto IMG_0042.jpg", .goto(.file("IMG_0042.jpg"))),
        ("goto Summer holiday 2.jpg", .goto(.file("Summer holiday 2.jpg"))), ("goto .hidden.jpg", .goto(.file(".hidden.jpg"))),
        ("pause", .pause), ("resume", .resume), ("status", .status), ("Status", .status),
        ("screenshot", .screenshot(.png)), ("screenshot jpeg", .screenshot(.jpeg)), ("watch", .watch),
        ("message Closing in 15 minutes", .message(.show("Closing in 15 minutes", seconds: nil))),
        ("message --for 10m Closing soon", .message(.show("Closing soon", seconds: 600))),
        ("MESSAGE --for 90 Line one\\nline two", .message(.show("Line one\nline two", seconds: 90))),
        ("message --clear", .message(.clear)),
    ])
    func everyCommandParses(line: String, request: ControlRequest) {
        #expect(parse(line) == .success(request))
    }

    @Test func aMalformedMessageSaysWhatIsAccepted() {
        #expect(message("message")?.hasPrefix("message takes the words to show") == true)
        #expect(message("message --for 10m")?.hasPrefix("message takes the words to show") == true)
        #expect(message("message --for 2d Closed")?.contains("--for takes 90s, 10m or 2h") == true)
        #expect(message("message --for 0s Closed")?.contains("--for takes 90s, 10m or 2h") == true)
        #expect(message("message --bold hi")?.hasPrefix("message takes the words to show") == true)
        #expect(message("message " + String(repeating: "x", count: 1001)) == "message: at most 1000 bytes of text (got 1001)")
    }

    @Test func malformedLinesSayWhatIsAccepted() {
        let known = "next, prev, goto, pause, resume, status, screenshot, pictures, thumbnail, settings, watch, reload, display, set, unset, message"
        #expect(message("") == "empty line: send one command per line, one of \(known)")
        #expect(message("   \r") == "empty line: send one command per line, one of \(known)")
        #expect(message("jump") == "unknown command \"jump\": the commands are \(known)")
        #expect(message("next 0") == "next takes an optional count of pictures from 1 to 1000 (got \"0\")")
        #expect(message("next 1001") == "next takes an optional count of pictures from 1 to 1000 (got \"1001\")")
        #expect(message("prev -2") == "prev takes an optional count of pictures from 1 to 1000 (got \"-2\")")
        #expect(message("next five") == "next takes an optional count of pictures from 1 to 1000 (got \"five\")")
        #expect(message("next 2 3") == "next takes an optional count of pictures from 1 to 1000 (got \"2 3\")")
        #expect(message("goto") == "goto needs a picture: its index in the playlist (0 is the first) or its file name")
        #expect(message("goto -1") == "goto takes an index from 0 (got -1)")
        #expect(message("goto 99999999999999999999") == "goto: the index 99999999999999999999 is too large")
        #expect(message("goto ../etc/passwd") == "goto takes a file name in the picture folder, not a path (got \"../etc/passwd\")")
        #expect(message("goto /etc/shadow") == "goto takes a file name in the picture folder, not a path (got \"/etc/shadow\")")
        #expect(message("goto ..") == "goto takes a file name in the picture folder, not a path (got \"..\")")
        #expect(message("pause now") == "pause takes no arguments (got \"now\")")
        #expect(message("status please") == "status takes no arguments (got \"please\")")
    }

    /// What a client sent is echoed safely: control characters and quotes
    /// escaped, long text cut, so an error reply is always one clean line.
    @Test func clientTextInAnErrorIsEscapedAndCut() {
        #expect(message("x\u{1B}[2J\"") == "unknown command \"x\\u001b[2J\\\"\": the commands are next, prev, goto, pause, resume, status, screenshot, pictures, thumbnail, settings, watch, reload, display, set, unset, message")
        let long = String(repeating: "z", count: 500)
        let reply = message(long)!
        #expect(reply.contains(String(repeating: "z", count: 64) + "...\""))
        #expect(!reply.contains(String(repeating: "z", count: 65)))
    }

    /// Any text at all gets a request or an error, never a crash, and an
    /// error is one line with no control characters.
    @Test func anyLineGetsARequestOrAOneLineError() async {
        let scalar = Gen.int(in: 0...0x2FF).map { Character(Unicode.Scalar($0) ?? " ") }
        await propertyCheck(count: 500, input: scalar.array(of: 0...80)) { characters in
            let line = String(characters)
            if case .failure(let error) = parse(line) {
                #expect(!error.message.unicodeScalars.contains { $0.value < 0x20 })
            }
        }
    }
}

@Suite struct ControlLineReaderTests {
    @Test func linesComeOutWholeHoweverTheBytesArrive() async {
        let stream = Array("next\nstatus\r\ngoto a b.jpg\n\nwatch\n".utf8)
        let expected: [ControlLineReader.Line] = [.text("next"), .text("status\r"), .text("goto a b.jpg"), .text(""), .text("watch")]
        await propertyCheck(count: 200, input: Gen.int(in: 1...8).array(of: 1...40)) { cuts in
            var reader = ControlLineReader()
            var lines: [ControlLineReader.Line] = []
            var offset = 0
            for cut in cuts where offset < stream.count {
                lines += reader.take(stream[offset..<min(stream.count, offset + cut)])
                offset += cut
            }
            if offset < stream.count { lines += reader.take(stream[offset...]) }
            #expect(lines == expected)
            #expect(reader.pendingBytes == 0)
        }
    }

    @Test func aLineOverFourKiBIsRefusedAndNothingMoreIsTaken() {
        var reader = ControlLineReader()
        #expect(reader.take(Array(repeating: UInt8(ascii: "a"), count: 4096)) == [])
        #expect(reader.pendingBytes == 4096)
        #expect(reader.take(Array(repeating: UInt8(ascii: "a"), count: 6 * 1024) + Array("\nnext\n".utf8)) == [.tooLong])
        #expect(reader.isClosed && reader.pendingBytes == 0)
        #expect(reader.take(Array("status\n".utf8)) == [])
        // Exactly 4096 bytes and its newline is still a line.
        var fits = ControlLineReader()
        #expect(fits.take(Array(repeating: UInt8(ascii: "b"), count: 4096) + [10]) == [.text(String(repeating: "b", count: 4096))])
    }

    @Test func bytesThatAreNotUTF8AreRefusedAndTheConnectionGoesOn() {
        var reader = ControlLineReader()
        #expect(reader.take([0xFF, 0xFE, 0x00, 0x80, 10] + Array("pause\n".utf8)) == [.notUTF8, .text("pause")])
        #expect(!reader.isClosed)
    }
}

@Suite struct ReloadRequestTests {
    @Test func reloadTakesNoArguments() throws {
        #expect(try ControlRequest(parsing: "reload") == .reload)
        #expect(try ControlRequest(parsing: "display off") == .display(.off))
        #expect(try ControlRequest(parsing: "DISPLAY On\r") == .display(.on))
        #expect(try ControlRequest(parsing: "display auto") == .display(.auto))
        // Home Assistant's light, turned on at a level: one line does both.
        #expect(try ControlRequest(parsing: "display on 40") == .display(.on, brightness: 40))
        for wrong in ["display off 40", "display on 140", "display on -1", "display on dim", "display on 40 50"] {
            #expect(throws: ControlRequestError.self, "\(wrong)") { try ControlRequest(parsing: wrong) }
        }
        #expect(throws: ControlRequestError("display takes on, off or auto (auto follows display_schedule), and on a brightness 0 to 100, got \"dim\"")) {
            try ControlRequest(parsing: "display dim")
        }
        #expect(throws: ControlRequestError("display takes on, off or auto (auto follows display_schedule), and on a brightness 0 to 100, got \"\"")) {
            try ControlRequest(parsing: "display")
        }
        #expect(try ControlRequest(parsing: "RELOAD\r") == .reload)
        #expect(throws: ControlRequestError("reload takes no arguments (got \"now\")")) { try ControlRequest(parsing: "reload now") }
    }
}
