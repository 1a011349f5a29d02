/// How much a log line matters, as syslog and the journal rank it
/// (sd-daemon(3)'s `<N>` prefixes): `journalctl -u kioskd -p warning`
/// shows exactly the lines at ``warning`` and above, the problems.
public enum LogPriority: Int, Comparable, Sendable {
    /// kioskd cannot go on: it exits after saying so.
    case error = 3
    /// Something the operator should fix or know is wrong: a picture
    /// refused, the folder gone, the display lost, a reload refused.
    case warning = 4
    /// What kioskd is doing: the display taken, the pictures shown, a reload applied.
    case notice = 5
    /// Details for following along: each picture centred (`--verbose`), devices coming and going.
    case info = 6
    /// What only someone chasing a problem wants: a C library's own complaint
    /// about a file (libde265 on a HEIC's bitstream), with the file's name.
    case debug = 7

    public static func < (a: LogPriority, b: LogPriority) -> Bool { a.rawValue < b.rawValue }
}

/// One line for the operator and its priority. A string literal is a
/// ``LogPriority/notice`` line: `log("control socket: off")`; problems
/// say so: `log(.warning("skipping \(file): \(reason)"))`.
public struct LogLine: Equatable, Sendable, ExpressibleByStringInterpolation {
    public var priority: LogPriority
    public var text: String

    public init(_ text: String, priority: LogPriority = .notice) {
        self.text = text
        self.priority = priority
    }

    public init(stringLiteral text: String) { self.init(text) }

    public init(stringInterpolation: DefaultStringInterpolation) { self.init(String(stringInterpolation: stringInterpolation)) }

    public static func warning(_ text: String) -> LogLine { LogLine(text, priority: .warning) }
    public static func info(_ text: String) -> LogLine { LogLine(text, priority: .info) }
    public static func debug(_ text: String) -> LogLine { LogLine(text, priority: .debug) }
    public static func error(_ text: String) -> LogLine { LogLine(text, priority: .error) }

    /// The line as written to standard error: `<4>kioskd: ...` when the
    /// journal reads it (it takes the prefix as the priority and strips
    /// it), `kioskd: ...` on a terminal. A line break inside the text would
    /// start a new journal entry without a priority: it becomes a space.
    public func formatted(forJournal: Bool) -> String {
        let flat = text.contains("\n") ? text.split(separator: "\n", omittingEmptySubsequences: false).joined(separator: " ") : text
        return (forJournal ? "<\(priority.rawValue)>" : "") + "kioskd: " + flat + "\n"
    }
}
