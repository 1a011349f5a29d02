/// One control client's conversation, without the socket: the bytes it
/// sent, the replies and events waiting for it, and the rules that keep a
/// client from hurting the show. The daemon's socket source moves bytes in
/// and out; everything decided about a client is decided here, so it is
/// tested (and fuzzed) without a socket.
///
/// Rules:
/// - One command per line; a reply line for each, in order. Unknown or
///   malformed lines get `{"ok":false,...}` and the connection stays usable.
/// - A line over 4 KiB is refused, and the connection closes once the
///   refusal is sent: nothing more is read from it.
/// - `watch` makes the connection also receive event lines; it may still
///   send commands.
/// - `screenshot` and `thumbnail` are answered when their picture is
///   encoded (off the run loop); the lines after them wait, so replies
///   keep their order. While a picture is unsent no further one starts,
///   so one client holds at most one.
/// - Dropped: a client that sends nothing for ``idleTimeout`` seconds (unless
///   it watches, or waits for its picture), and one whose unsent replies
///   and events pass ``unsentLimit`` bytes (the PNG it asked for not
///   counted), or that has not taken any of them for ``idleTimeout``.
/// - After the client ends its input (`echo status | socat ...`), the
///   replies still go out, then the connection closes; a watching client
///   stays until it hangs up.
public struct ControlSession: Sendable {
    public static let idleTimeout = 10.0
    public static let unsentLimit = 256 * 1024
    /// Clients at once; the next one gets ``ControlReply/tooManyClients`` and is closed.
    public static let maximumClients = 256

    /// Why the daemon dropped the connection.
    public enum Drop: Equatable, Sendable {
        case lineTooLong
        case idle
        case notReading
    }

    private enum Pending: Equatable, Sendable {
        case request(ControlRequest)
        case refused(String)
    }

    private var reader = ControlLineReader()
    /// Lines read but not yet answered (they wait behind a picture).
    private var pending: [Pending] = []
    private var outbox = ByteQueue()
    /// Where the unsent picture lies in the stream of bytes queued so far.
    private var payload: Range<Int> = 0..<0
    private var lastActivity: Double

    public private(set) var isWatching = false
    /// A picture (a screenshot, a thumbnail) was asked for and is being made: see ``deliverPicture(_:bytes:at:respond:)``.
    public private(set) var awaitingPicture = false
    /// The picture awaited (or last awaited): `screenshot` or `thumbnail`.
    public private(set) var pictureAsked = ControlRequest.screenshot(.png)
    /// The client sent its last byte (or a line too long to read on).
    public private(set) var inputEnded = false
    /// Set when the daemon drops the client: close it now, unsent bytes and all.
    public private(set) var dropped: Drop?

    public init(now: Double) { lastActivity = now }

    // MARK: Input

    /// Whether the socket should be read: nothing waits to be answered and the client is not done.
    public var wantsInput: Bool { dropped == nil && !inputEnded && pending.isEmpty && !awaitingPicture }

    /// Takes bytes the client sent and answers what it can: each request
    /// goes to `respond` (all but `watch`, `screenshot` and `thumbnail`, which the
    /// session handles), which returns its reply line (``JSONObject/line``).
    /// Returns true when a picture (``pictureAsked``) must be made.
    public mutating func receive(
        _ bytes: some Sequence<UInt8>, at now: Double, respond: (ControlRequest) -> [UInt8]
    ) -> Bool {
        guard dropped == nil, !inputEnded else { return false }
        lastActivity = now
        for line in reader.take(bytes) {
            switch line {
            case .text(let text):
                do { pending.append(.request(try ControlRequest(parsing: text))) } catch { pending.append(.refused(error.message)) }
            case .notUTF8:
                pending.append(.refused("the line is not UTF-8 text: send commands such as \"next\" or \"status\", one per line"))
            case .tooLong:
                pending.append(.refused(
                    "the line is longer than \(ControlLineReader.maximumLineBytes) bytes: no command is that long; closing the connection"))
                inputEnded = true
            }
        }
        return proceed(at: now, respond: respond)
    }

    /// The client ended its input (a read returned 0).
    public mutating func endOfInput() { inputEnded = true }

    /// Answers the requests waiting, in order, up to a picture that cannot start yet.
    /// Returns true when a picture (``pictureAsked``) must be made.
    public mutating func proceed(at now: Double, respond: (ControlRequest) -> [UInt8]) -> Bool {
        while dropped == nil, !awaitingPicture, let next = pending.first {
            if case .request(let request) = next, request.isPicture {
                // One picture per client at a time: the next waits until the last is sent.
                guard unsentPayload == 0 else { return false }
                pending.removeFirst()
                awaitingPicture = true
                pictureAsked = request
                return true
            }
            // Taken off before it is answered: the answer may drop the
            // client, which forgets everything still pending.
            pending.removeFirst()
            switch next {
            case .refused(let message):
                queue(ControlReply.failure(message).line, at: now)
            case .request(.watch):
                isWatching = true
                queue(ControlReply.success(["watching": true]).line, at: now)
            case .request(let request):
                queue(respond(request), at: now)
            }
        }
        return false
    }

    /// The picture is made: its reply line, then exactly its bytes.
    /// Then the lines that waited behind it are answered; true when one of
    /// them asks for another picture.
    public mutating func deliverPicture(
        _ reply: JSONObject, bytes picture: [UInt8], at now: Double, respond: (ControlRequest) -> [UInt8]
    ) -> Bool {
        guard awaitingPicture else { return false }
        awaitingPicture = false
        // The daemon's turn is over: the client's time starts again.
        lastActivity = now
        queue(reply.line, at: now)
        let start = outbox.queuedTotal
        outbox.append(picture)
        payload = start..<outbox.queuedTotal
        return proceed(at: now, respond: respond)
    }

    /// The picture could not be made: the failure is the reply.
    public mutating func failPicture(_ message: String, at now: Double, respond: (ControlRequest) -> [UInt8]) -> Bool {
        guard awaitingPicture else { return false }
        awaitingPicture = false
        lastActivity = now
        queue(ControlReply.failure(message).line, at: now)
        return proceed(at: now, respond: respond)
    }

    // MARK: Output

    /// An event for a watching client (ignored otherwise).
    public mutating func notify(_ event: JSONObject, at now: Double) {
        guard isWatching, dropped == nil else { return }
        queue(event.line, at: now)
    }

    /// Bytes waiting to be sent, in order; call ``sent(_:at:)`` with how many went.
    public var unsent: ArraySlice<UInt8> { outbox.bytes }

    /// `count` bytes of ``unsent`` reached the socket.
    public mutating func sent(_ count: Int, at now: Double) {
        guard count > 0 else { return }
        outbox.removeFirst(count)
        lastActivity = now
    }

    /// A picture is being made for this client, or it is not all sent.
    public var holdsPicture: Bool { awaitingPicture || unsentPayload > 0 }

    /// Unsent bytes of the picture last asked for.
    private var unsentPayload: Int {
        max(0, payload.upperBound - max(outbox.sentTotal, payload.lowerBound))
    }

    /// Unsent bytes that count against ``unsentLimit``.
    public var unsentReplyBytes: Int { outbox.bytes.count - unsentPayload }

    private mutating func queue(_ line: [UInt8], at now: Double) {
        // The time to take it starts when there is something to take.
        if outbox.bytes.isEmpty { lastActivity = now }
        outbox.append(line)
        if unsentReplyBytes > Self.unsentLimit { drop(.notReading) }
    }

    // MARK: Time and the end

    /// When the client is dropped if nothing happens first; nil while only the daemon can act.
    public var deadline: Double? {
        guard dropped == nil, !awaitingPicture else { return nil }
        if outbox.bytes.isEmpty && (isWatching || inputEnded) { return nil }
        return lastActivity + Self.idleTimeout
    }

    /// Drops the client if its deadline has passed; true if it did.
    public mutating func checkDeadline(at now: Double) -> Bool {
        guard let deadline, now >= deadline else { return false }
        drop(outbox.bytes.isEmpty ? .idle : .notReading)
        return true
    }

    /// True when the connection should close: dropped, or its input ended
    /// and every reply is sent (a watching client stays until it hangs up).
    public var isFinished: Bool {
        if dropped != nil { return true }
        return inputEnded && pending.isEmpty && !awaitingPicture && outbox.bytes.isEmpty && !isWatching
    }

    private mutating func drop(_ reason: Drop) {
        dropped = reason
        outbox = ByteQueue()
        pending = []
    }
}

/// Bytes waiting to go out, first in first out, without moving the rest
/// each time the front is taken.
struct ByteQueue: Sendable {
    private var storage: [UInt8] = []
    private var head = 0
    /// Bytes ever appended, and ever removed: positions in the stream.
    private(set) var queuedTotal = 0
    private(set) var sentTotal = 0

    var bytes: ArraySlice<UInt8> { storage[head...] }

    mutating func append(_ more: [UInt8]) {
        if head > 0 && head >= storage.count / 2 {
            storage.removeFirst(head)
            head = 0
        }
        storage.append(contentsOf: more)
        queuedTotal += more.count
    }

    mutating func removeFirst(_ count: Int) {
        let taken = min(count, storage.count - head)
        head += taken
        sentTotal += taken
        if head == storage.count {
            storage.removeAll(keepingCapacity: storage.count <= 64 * 1024)
            head = 0
        }
    }
}
