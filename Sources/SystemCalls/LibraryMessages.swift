import CLinux
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// What C libraries print to stdio's `stderr`, routed into kioskd's log.
///
/// libde265 (HEIC's decoder, under libheif) has no log callback: it prints
/// complaints about a bitstream (`SPS error: CB alignment`) with
/// `fprintf(stderr, ...)`, which under systemd would reach the journal with
/// neither kioskd's name nor a priority. ``capture(_:)`` points stdio's
/// `stderr` at a stream of kioskd's own (`fopencookie`), so each line comes
/// to a handler instead, with what the thread that printed it was working
/// on (``about(_:_:)``: a file's name) and each line once per subject.
///
/// Why this is safe across threads, where capturing descriptor 2 would not
/// be: nothing is redirected. Descriptor 2 stays the journal, and kioskd
/// writes its own lines to it with `write(2)`, never through stdio, so they
/// cannot be caught. stdio locks a stream for each call, so lines printed
/// by two decoding threads at once are not mixed, and the stream is line
/// buffered, so the handler runs on the thread that finished the line,
/// whose subject is its own.
public enum LibraryMessages {
    /// A handler for each line: its text (without the newline) and the
    /// subject of the thread that printed it, if it had one.
    public typealias Handler = @Sendable (_ line: String, _ subject: String?) -> Void

    private struct State: ~Copyable {
        var handler: Handler?
        /// What each thread is working on, by thread.
        var subjects: [UInt: String] = [:]
        /// Lines already handed on, by subject: each goes once.
        var said: Set<String> = []
        /// Bytes of a line not yet ended, by thread.
        var partial: [UInt: [UInt8]] = [:]
    }

    private static let state = Mutex(State())
    /// The most lines remembered as said before the memory starts again.
    static let remembered = 4096

    /// Points stdio's `stderr` at `handler` from now on (for the whole
    /// process; a later call replaces the handler). Does nothing if the
    /// stream cannot be made: the lines then go where they always went.
    public static func capture(_ handler: @escaping Handler) {
        let installed = state.withLock { state in
            defer { state.handler = handler }
            return state.handler != nil
        }
        guard !installed else { return }
        let functions = clinux_cookie_functions(read: nil, write: { _, bytes, count in
            guard let bytes else { return 0 }
            LibraryMessages.received(UnsafeRawBufferPointer(start: UnsafeRawPointer(bytes), count: count))
            return count
        }, seek: nil, close: nil)
        guard let stream = clinux_open_cookie_stream(nil, "w", functions) else { return }
        setvbuf(stream, nil, _IOLBF, 4096)
        clinux_set_stderr(stream)
    }

    /// Runs `body` with `subject` (a file's name) as what this thread's
    /// library lines are about.
    public static func about<Result, Failure: Error>(
        _ subject: String, _ body: () throws(Failure) -> Result
    ) throws(Failure) -> Result {
        let thread = UInt(pthread_self())
        let before = state.withLock { state in
            defer { state.subjects[thread] = subject }
            return state.subjects[thread]
        }
        defer { state.withLock { $0.subjects[thread] = before } }
        return try body()
    }

    /// Bytes stdio wrote: whole lines go to the handler, once per subject.
    private static func received(_ bytes: UnsafeRawBufferPointer) {
        let thread = UInt(pthread_self())
        let delivery: (handler: Handler, lines: [String], subject: String?)? = state.withLock { state in
            guard let handler = state.handler else { return nil }
            var pending = state.partial[thread] ?? []
            pending += bytes
            var lines: [String] = []
            while let end = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: pending[..<end], as: UTF8.self)
                pending.removeSubrange(...end)
                let subject = state.subjects[thread]
                if line.isEmpty { continue }
                if state.said.count >= remembered { state.said = [] }
                if state.said.insert((subject ?? "") + "\u{0}" + line).inserted { lines.append(line) }
            }
            // A line that never ends is handed on once it is long.
            if pending.count >= 4096 {
                lines.append(String(decoding: pending, as: UTF8.self))
                pending = []
            }
            state.partial[thread] = pending.isEmpty ? nil : pending
            return (handler, lines, state.subjects[thread])
        }
        guard let delivery else { return }
        for line in delivery.lines { delivery.handler(line, delivery.subject) }
    }
}
