/// Splits what a control client sends into lines, within a bound.
///
/// Bytes arrive in whatever pieces the socket gives; each complete line
/// (ended by `\n`) comes out once. A line longer than ``maximumLineBytes``
/// is refused, and so is a line that is not UTF-8: the caller replies with
/// the error and (for a long line) closes the connection, so a client can
/// never make the daemon hold more than one bounded line.
public struct ControlLineReader: Sendable {
    /// 4 KiB: far more than any command, little enough for 256 clients.
    public static let maximumLineBytes = 4096

    public enum Line: Equatable, Sendable {
        case text(String)
        /// Not UTF-8: refused, the connection stays usable.
        case notUTF8
        /// Longer than the limit: refused, and nothing more is read.
        case tooLong
    }

    private var pending: [UInt8] = []
    /// After a line that was too long nothing more is taken.
    public private(set) var isClosed = false

    public init() {}

    /// Takes a piece of the stream; returns the lines it completed.
    public mutating func take(_ bytes: some Sequence<UInt8>) -> [Line] {
        guard !isClosed else { return [] }
        var lines: [Line] = []
        for byte in bytes {
            if byte == UInt8(ascii: "\n") {
                lines.append(String(validating: pending, as: UTF8.self).map(Line.text) ?? .notUTF8)
                pending.removeAll(keepingCapacity: true)
            } else if pending.count == Self.maximumLineBytes {
                pending = []
                isClosed = true
                lines.append(.tooLong)
                return lines
            } else {
                pending.append(byte)
            }
        }
        return lines
    }

    /// Bytes held for a line not yet ended.
    public var pendingBytes: Int { pending.count }
}
