import SystemCalls
#if canImport(Glibc)
import Glibc
#endif

/// A DRM/KMS failure: the device, the libdrm call, its errno, and what the
/// operator can do about it.
public struct DRMError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Kind: Equatable, Sendable {
        /// A libdrm or kernel call failed.
        case call(String, errno: Errno)
        case noDevice
        case notKMS
        case noDumbBuffers
        /// Another process is DRM master (a desktop session, another kiosk).
        case busy
        case noConnectedConnector
        case connectorNotFound(String, available: [String])
        case connectorDisconnected(String)
        case modeNotFound(String, available: [String])
        case noCRTC(String)
    }

    public let device: String
    public let kind: Kind

    public init(device: String, kind: Kind) {
        self.device = device
        self.kind = kind
    }

    public var description: String {
        switch kind {
        case .call("open", let code) where code == .permissionDenied || code == .notPermitted:
            return "\(device): permission denied: run kioskd as root, or as a user in the group that owns \(device) "
                + "(usually 'video': usermod -aG video USER), or with seatd running (systemctl enable --now seatd; "
                + "the kioskd service uses it)"
        case .call("libseat_open_device", let code) where code == .permissionDenied || code == .notPermitted:
            return "\(device): the seat manager would not lend it (is the seat another session's?)"
        case .call("open", .noSuchFileOrDirectory), .call("libseat_open_device", .noSuchFileOrDirectory):
            return "\(device): no such device: check the name with kioskd --list-outputs"
        case .call("drmSetMaster", let code) where code == .permissionDenied || code == .notPermitted:
            return "\(device): cannot become DRM master: no other program holds the display, but taking it needs "
                + "CAP_SYS_ADMIN (run as root, or under systemd with AmbientCapabilities=CAP_SYS_ADMIN)"
        case .call(let call, .noMemory):
            return "\(device): \(call) failed: the driver is out of video memory for this mode; choose a smaller mode "
                + "(kioskd --list-outputs lists them)"
        case .call(let call, let code):
            return SystemCallError(call, errno: code.rawValue, path: device).description
        case .noDevice:
            return "no DRM display device with a connected screen in /dev/dri (is a screen plugged in and its driver loaded?)"
        case .notKMS:
            return "\(device): not a display (mode-setting) device"
        case .noDumbBuffers:
            return "\(device): the driver cannot allocate dumb buffers"
        case .busy:
            return "\(device): the display is busy: another program is DRM master (a desktop session, a display "
                + "manager or another kiosk). Stop it first, e.g. systemctl stop display-manager"
        case .noConnectedConnector:
            return "\(device): no connected screen"
        case .connectorNotFound(let name, let available):
            return "\(device): no connector named \(name); it has: \(available.joined(separator: ", "))"
        case .connectorDisconnected(let name):
            return "\(device): connector \(name) has no screen connected"
        case .modeNotFound(let mode, let available):
            return "\(device): the screen does not offer mode \(mode); it offers: \(available.joined(separator: ", "))"
        case .noCRTC(let connector):
            return "\(device): no free CRTC can drive \(connector)"
        }
    }
}

/// libdrm's mode functions return `-errno`; its core ones return -1 and set errno.
func errnoOf(_ result: Int32) -> Errno { result == -1 ? .current : Errno(-result) }
