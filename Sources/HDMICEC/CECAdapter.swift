import CCEC
import SystemCalls

#if canImport(Glibc)
import Glibc
#endif

/// An HDMI-CEC adapter through the kernel's CEC API (`/dev/cecN`): how
/// kioskd tells a TV to sleep and wake with its display, which no DRM
/// property does. The messages come from the kernel's own builders
/// (`linux/cec-funcs.h`).
///
/// kioskd is an initiator only (`CEC_MODE_INITIATOR`): it sends, and
/// leaves following other devices' messages to whoever follows (a TV's
/// remote passthrough is not kioskd's). An adapter with no logical address
/// yet is given one as a playback device (named "kioskd"); the kernel
/// claims it in the background, so nothing here waits on the bus. Sends
/// are non-blocking too: their results come back on the descriptor
/// (``takeResults()``).
public final class CECAdapter {
    public let path: String
    private let descriptor: FileDescriptor
    /// Readable when a message's result came back.
    public var fd: Int32 { descriptor.rawValue }

    public init(path: String) throws(SystemCallError) {
        descriptor = try FileDescriptor(opening: path, flags: O_RDWR | O_NONBLOCK | O_CLOEXEC)
        self.path = path
        var capabilities = cec_caps()
        try call("CEC_ADAP_G_CAPS", kioskd_CEC_ADAP_G_CAPS, &capabilities)
        guard capabilities.capabilities & UInt32(CEC_CAP_TRANSMIT) != 0 else {
            throw SystemCallError("CEC_ADAP_G_CAPS (the adapter cannot transmit)", errno: ENOTSUP, path: path)
        }
        var mode = UInt32(CEC_MODE_INITIATOR)
        try call("CEC_S_MODE", kioskd_CEC_S_MODE, &mode)
        if try logicalAddress() == nil && capabilities.capabilities & UInt32(CEC_CAP_LOG_ADDRS) != 0 {
            try claimPlaybackAddress()
        }
    }

    /// The `/dev/cecN` adapters there are.
    public static func adapters() -> [String] {
        guard let names = try? directoryEntryNames("/dev") else { return [] }
        var numbers: [Int] = []
        for name in names {
            let text = String(decoding: name, as: UTF8.self)
            if text.hasPrefix("cec"), let number = Int(text.dropFirst(3)), number >= 0 { numbers.append(number) }
        }
        return numbers.sorted().map { "/dev/cec\($0)" }
    }

    /// The DRM connector the kernel ties the adapter at `path` to, if it
    /// says (`CEC_ADAP_G_CONNECTOR_INFO`): the card's number and the
    /// connector's id. Only asks: the adapter is not configured.
    public static func drmConnector(ofAdapterAt path: String) -> (card: UInt32, connector: UInt32)? {
        guard let descriptor = try? FileDescriptor(opening: path, flags: O_RDONLY | O_NONBLOCK) else { return nil }
        var info = cec_connector_info()
        let result = withUnsafeMutablePointer(to: &info) {
            ioctl(descriptor.rawValue, kioskd_CEC_ADAP_G_CONNECTOR_INFO, UnsafeMutableRawPointer($0))
        }
        guard result == 0, info.type == UInt32(CEC_CONNECTOR_TYPE_DRM) else { return nil }
        return (info.drm.card_no, info.drm.connector_id)
    }

    /// The display goes off: `<Standby>` to every device (broadcast).
    public func sendStandby() throws(SystemCallError) {
        try send("Standby") { message, from in
            cec_msg_init(&message, from, UInt8(CEC_LOG_ADDR_BROADCAST))
            cec_msg_standby(&message)
        }
    }

    /// The display comes on: `<Image View On>` to the TV, then `<Active
    /// Source>` with this adapter's physical address, so the TV wakes and
    /// switches to kioskd's input.
    public func sendWake() throws(SystemCallError) {
        try send("Image View On") { message, from in
            cec_msg_init(&message, from, UInt8(CEC_LOG_ADDR_TV))
            cec_msg_image_view_on(&message)
        }
        var physical: UInt16 = UInt16(CEC_PHYS_ADDR_INVALID)
        try call("CEC_ADAP_G_PHYS_ADDR", kioskd_CEC_ADAP_G_PHYS_ADDR, &physical)
        guard physical != UInt16(CEC_PHYS_ADDR_INVALID) else {
            throw SystemCallError("Active Source (no physical address: is the HDMI cable in?)", errno: ENONET, path: path)
        }
        try send("Active Source") { message, from in
            cec_msg_init(&message, from, UInt8(CEC_LOG_ADDR_BROADCAST))
            cec_msg_active_source(&message, physical)
        }
    }

    /// The results of sends that did not arrive (no device acknowledged,
    /// the bus was busy), as lines for the log; call when ``fd`` is readable.
    public func takeResults() -> [String] {
        var failures: [String] = []
        for _ in 0..<64 {
            var message = cec_msg()
            message.timeout = 0
            guard (try? call("CEC_RECEIVE", kioskd_CEC_RECEIVE, &message)) != nil else { break }
            guard message.sequence != 0, message.tx_status & UInt8(CEC_TX_STATUS_OK) == 0 else { continue }
            let opcode = message.len > 1 ? message.msg.1 : 0
            failures.append("message 0x\(String(opcode, radix: 16)) to \(message.msg.0 & 0xF) not acknowledged (tx_status 0x\(String(message.tx_status, radix: 16)))")
        }
        return failures
    }

    /// The logical address kioskd sends from, once the adapter has one.
    private func logicalAddress() throws(SystemCallError) -> UInt8? {
        var addresses = cec_log_addrs()
        try call("CEC_ADAP_G_LOG_ADDRS", kioskd_CEC_ADAP_G_LOG_ADDRS, &addresses)
        return addresses.num_log_addrs > 0 && addresses.log_addr.0 != UInt8(CEC_LOG_ADDR_INVALID) ? addresses.log_addr.0 : nil
    }

    /// Asks the kernel to claim a playback device's logical address (in the background: the descriptor is non-blocking).
    private func claimPlaybackAddress() throws(SystemCallError) {
        var addresses = cec_log_addrs()
        addresses.cec_version = UInt8(CEC_OP_CEC_VERSION_2_0)
        addresses.vendor_id = CEC_VENDOR_ID_NONE
        addresses.num_log_addrs = 1
        addresses.log_addr_type.0 = UInt8(CEC_LOG_ADDR_TYPE_PLAYBACK)
        addresses.primary_device_type.0 = UInt8(CEC_OP_PRIM_DEVTYPE_PLAYBACK)
        addresses.all_device_types.0 = UInt8(CEC_OP_ALL_DEVTYPE_PLAYBACK)
        addresses.flags = UInt32(CEC_LOG_ADDRS_FL_ALLOW_UNREG_FALLBACK)
        withUnsafeMutableBytes(of: &addresses.osd_name) { name in
            for (i, byte) in "kioskd".utf8.enumerated() { name[i] = byte }
        }
        do { try call("CEC_ADAP_S_LOG_ADDRS", kioskd_CEC_ADAP_S_LOG_ADDRS, &addresses) } catch where error.code == .resourceBusy {
            // Someone else is configuring it: their address will do.
        }
    }

    private func send(_ name: String, _ build: (inout cec_msg, UInt8) -> Void) throws(SystemCallError) {
        guard let from = try logicalAddress() else {
            throw SystemCallError("\(name) (the adapter has no logical address yet)", errno: ENONET, path: path)
        }
        var message = cec_msg()
        build(&message, from)
        message.timeout = 0
        do { try call("CEC_TRANSMIT", kioskd_CEC_TRANSMIT, &message) } catch {
            throw SystemCallError("CEC_TRANSMIT (\(name))", errno: error.errno, path: path)
        }
    }

    private func call<Argument>(_ name: String, _ request: UInt, _ argument: inout Argument) throws(SystemCallError) {
        let fd = descriptor.rawValue
        let result = withUnsafeMutablePointer(to: &argument) { ioctl(fd, request, UnsafeMutableRawPointer($0)) }
        guard result == 0 else { throw SystemCallError(name, errno: errno, path: path) }
    }
}
