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
/// Built with `-sanitize=fuzzer -D FUZZING`; without them it is a replayer:
/// `kioskd-fuzz FILE...` runs saved inputs (a crash libFuzzer found) once each.
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
                    check(session.awaitingScreenshot, "a screenshot wanted but not awaited")
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
            if session.awaitingScreenshot {
                let png = [UInt8](repeating: 0, count: (next() ?? 0) * 1000)
                _ = session.deliverScreenshot(ControlReply.success(["png_bytes": .int(png.count)]), png: png, at: now, respond: respond)
            } else {
                session.notify(["event": "picture", "index": .int(next() ?? 0), "file": "x.jpg"], at: now)
            }
        }
        // The promises.
        check(session.dropped != nil || session.unsentReplyBytes <= ControlSession.unsentLimit, "unsent replies past the limit")
        check(session.dropped == nil || session.unsent.isEmpty, "a dropped client still has bytes queued")
        check(!(session.awaitingScreenshot && session.wantsInput), "reading while a screenshot is awaited")
        check(session.deadline.map { $0 >= now - ControlSession.idleTimeout - 25.5 } ?? true, "a deadline long past")
    }
    _ = requests
}

func check(_ condition: Bool, _ message: String) {
    if !condition { fatalError("ControlSession broke a promise: \(message)") }
}

#if FUZZING
/// libFuzzer's driver (it parses libFuzzer's flags and runs the loop).
@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<Int32>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
) -> Int32

@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    runControlScript(UnsafeRawBufferPointer(start: data, count: size))
    return 0
}

/// SwiftPM links an executable's entry point under this name (in place of
/// libFuzzer's own `main`): it hands over to libFuzzer's driver.
@_cdecl("kioskd_fuzz_main")
func fuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    var count = argc
    var arguments = argv
    return LLVMFuzzerRunDriver(&count, &arguments) { fuzzOneInput($0, $1) }
}
#else
import Foundation

@main
struct ReplayFuzzInputs {
    static func main() throws {
        for path in CommandLine.arguments.dropFirst() {
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            data.withUnsafeBytes(runControlScript)
            print("\(path): no promise broken")
        }
    }
}
#endif
