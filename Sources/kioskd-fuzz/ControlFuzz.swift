import KioskCore

/// The fuzz target for what a control client can send (`scripts/fuzz`):
/// the line parser and the client state machine (``ControlSession``),
/// driven by libFuzzer's bytes as a script of steps. Each step is one of:
/// bytes from the client (any, in pieces of any size), bytes sent to it,
/// time passing, a screenshot finished, an event for watchers, the size of
/// the replies to come (so a few lines can pass the unsent limit). After each
/// step the session's promises must hold; a broken one traps, which
/// libFuzzer reports as a crash with the input that caused it.
///
/// `kioskd-fuzz control` (the default): see ``FuzzTarget``.
func runControlScript(_ script: UnsafeRawBufferPointer) {
    var session = ControlSession(now: 0)
    var now = 0.0
    var offset = 0
    var requests = 0
    var padding = ""
    let respond: (ControlRequest) -> [UInt8] = { request in
        requests += 1
        return ControlReply.success(["request": .string("\(request)"), "padding": .string(padding)]).line
    }
    func next() -> Int? {
        guard offset < script.count else { return nil }
        defer { offset += 1 }
        return Int(script[offset])
    }
    while let step = next() {
        switch step % 7 {
        case 0, 1, 2:
            let count = min((next() ?? 0) + 1, script.count - offset)
            if session.wantsInput {
                if session.receive(script[offset..<offset + count], at: now, respond: respond) {
                    check(session.awaitingPicture, "a screenshot wanted but not awaited")
                }
            }
            offset += count
        case 3:
            session.sent(min((next() ?? 0) * 97, session.unsent.count), at: now)
        case 4:
            now += Double(next() ?? 0) / 10
            _ = session.checkDeadline(at: now)
        case 5:
            padding = String(repeating: "x", count: (next() ?? 0) * 64)
        default:
            if session.awaitingPicture {
                let png = [UInt8](repeating: 0, count: (next() ?? 0) * 1000)
                _ = session.deliverPicture(ControlReply.success(["png_bytes": .int(png.count)]), bytes: png, at: now, respond: respond)
            } else {
                session.notify(["event": "picture", "index": .int(next() ?? 0), "file": "x.jpg"], at: now)
            }
        }
        // The promises.
        check(session.dropped != nil || session.unsentReplyBytes <= ControlSession.unsentLimit, "unsent replies past the limit")
        check(session.dropped == nil || session.unsent.isEmpty, "a dropped client still has bytes queued")
        check(!(session.awaitingPicture && session.wantsInput), "reading while a screenshot is awaited")
        check(session.deadline.map { $0 >= now - ControlSession.idleTimeout - 25.5 } ?? true, "a deadline long past")
    }
    _ = requests
}
