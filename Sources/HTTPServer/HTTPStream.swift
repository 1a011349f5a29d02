import CMicroHTTPD

/// A response that stays open and is written as things happen (Server-Sent
/// Events). When nothing is queued, libmicrohttpd's connection is
/// suspended, so an idle stream costs no wake-ups; ``send(_:)`` resumes it.
/// A client that went away is noticed at the next write (send a comment now
/// and then), and ``onClose`` runs.
public final class HTTPStream {
    /// Runs once when the stream has ended (the client went away, or ``close()``).
    public var onClose: (() -> Void)?
    public private(set) var isOpen = true
    /// Bytes queued and not yet handed to the connection.
    public var queuedBytes: Int { queue.count - sent }

    var connection: OpaquePointer?
    weak var owner: HTTPServer?
    private var queue: [UInt8] = []
    private var sent = 0
    private var suspended = false
    private var closing = false

    public init() {}

    /// Queues `bytes` to be sent; the stream wakes if it slept.
    public func send(_ bytes: [UInt8]) {
        guard isOpen, !closing else { return }
        queue += bytes
        wake()
    }

    /// Ends the stream once what is queued is sent; a client that no
    /// longer reads has 10 s to take it before its connection is dropped.
    public func close() {
        guard isOpen, !closing else { return }
        closing = true
        if let connection { kd_mhd_time_out(connection, 10) }
        wake()
    }

    private func wake() {
        guard suspended, let connection else { return }
        suspended = false
        MHD_resume_connection(connection)
    }

    /// libmicrohttpd asks for the next bytes.
    func read(into buffer: UnsafeMutablePointer<CChar>, max: Int) -> Int {
        let available = queue.count - sent
        if available > 0 {
            let count = min(available, max)
            queue.withUnsafeBytes { bytes in
                UnsafeMutableRawPointer(buffer).copyMemory(from: bytes.baseAddress! + sent, byteCount: count)
            }
            sent += count
            if sent == queue.count {
                queue.removeAll(keepingCapacity: queue.count <= 64 << 10)
                sent = 0
            }
            return count
        }
        if closing { return Int(kd_mhd_end_of_stream) }
        guard let connection else { return Int(kd_mhd_end_with_error) }
        suspended = true
        MHD_suspend_connection(connection)
        return 0
    }

    /// libmicrohttpd let the response go.
    func ended() {
        guard isOpen else { return }
        isOpen = false
        connection = nil
        queue = []
        let handler = onClose
        onClose = nil
        handler?()
    }

    /// The server stops: a sleeping stream must be woken before libmicrohttpd may stop.
    func wakeToEnd() {
        closing = true
        wake()
    }
}
