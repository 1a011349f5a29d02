import CDRM
import KioskCore
import SystemCalls

#if canImport(Glibc)
import Glibc
#endif

/// An open DRM card (`/dev/dri/cardN`). Closing it (deinit) also drops DRM
/// master, so the console or a desktop can take the display back.
public final class DRMCard {
    public let path: String
    private let descriptor: FileDescriptor
    /// For libdrm's calls; valid while the card is open.
    public var fd: Int32 { descriptor.rawValue }

    /// Opens the card read-write: with `open`, or through the seat
    /// manager (``DeviceOpener``), which makes kioskd DRM master for it.
    public init(path: String, opener: any DeviceOpener = DirectDeviceOpener()) throws(DRMError) {
        do {
            descriptor = try opener.openDevice(path, flags: O_RDWR)
        } catch {
            throw DRMError(device: path, kind: .call(error.call, errno: error.code))
        }
        self.path = path
    }

    /// The card's device number (major, minor), as its uevents give it.
    public var deviceNumber: (major: UInt32, minor: UInt32)? {
        var status = stat()
        guard fstat(fd, &status) == 0 else { return nil }
        // glibc's major() and minor() are macros Swift cannot call: their definition.
        let number = UInt64(status.st_rdev)
        let major = ((number >> 8) & 0xFFF) | ((number >> 32) & ~UInt64(0xFFF))
        let minor = (number & 0xFF) | ((number >> 12) & ~UInt64(0xFF))
        return (UInt32(truncatingIfNeeded: major), UInt32(truncatingIfNeeded: minor))
    }

    /// The card's number: 0 for `/dev/dri/card0` (what a CEC adapter names it by).
    public var number: UInt32? {
        guard let last = path.split(separator: "/").last, last.hasPrefix("card") else { return nil }
        return UInt32(last.dropFirst(4))
    }

    /// The kernel driver's name, e.g. `bochs-drm` or `virtio_gpu`.
    public var driverName: String {
        guard let version = drmGetVersion(fd) else { return "unknown" }
        defer { drmFreeVersion(version) }
        return String(cString: version.pointee.name)
    }

    /// Makes sure this process is DRM master, the only one allowed to set
    /// modes. The first opener of an idle card already is; if another process
    /// is, the display is busy.
    public func becomeMaster() throws(DRMError) {
        if drmIsMaster(fd) != 0 { return }
        let result = drmSetMaster(fd)
        guard result == 0 else {
            let code = errnoOf(result)
            if code == .resourceBusy || code == .invalidArgument { throw DRMError(device: path, kind: .busy) }
            throw DRMError(device: path, kind: .call("drmSetMaster", errno: code))
        }
    }

    public func supportsDumbBuffers() -> Bool {
        var value: UInt64 = 0
        return drmGetCap(fd, UInt64(DRM_CAP_DUMB_BUFFER), &value) == 0 && value != 0
    }

    /// The card's connectors, with their modes (`drmModeGetResources`,
    /// `drmModeGetConnector`).
    public func connectors() throws(DRMError) -> [Connector] {
        guard let resources = drmModeGetResources(fd) else { throw DRMError(device: path, kind: .notKMS) }
        defer { drmModeFreeResources(resources) }
        let res = resources.pointee
        let crtcs = (0..<Int(res.count_crtcs)).map { res.crtcs[$0] }
        return (0..<Int(res.count_connectors)).compactMap { i -> Connector? in
            guard let connector = drmModeGetConnector(fd, res.connectors[i]) else { return nil }
            defer { drmModeFreeConnector(connector) }
            return Connector(connector.pointee, card: self, crtcs: crtcs)
        }
    }

    /// The id of the property `name` of a KMS object (a CRTC, a
    /// connector), if the kernel shows it to this client.
    func propertyID(named name: String, of object: UInt32, type: UInt32) -> UInt32? {
        properties(of: object, type: type)[name]?.id
    }

    /// A KMS object's properties by name: each one's id and current value.
    func properties(of object: UInt32, type: UInt32) -> [String: (id: UInt32, value: UInt64)] {
        guard let properties = drmModeObjectGetProperties(fd, object, type) else { return [:] }
        defer { drmModeFreeObjectProperties(properties) }
        var found: [String: (id: UInt32, value: UInt64)] = [:]
        for i in 0..<Int(properties.pointee.count_props) {
            guard let property = drmModeGetProperty(fd, properties.pointee.props[i]) else { continue }
            defer { drmModeFreeProperty(property) }
            let name = withUnsafeBytes(of: property.pointee.name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            found[name] = (property.pointee.prop_id, properties.pointee.prop_values[i])
        }
        return found
    }

    /// The largest framebuffer the card scans out (`max_width`, `max_height`).
    public var largestFramebuffer: PixelSize? {
        guard let resources = drmModeGetResources(fd) else { return nil }
        defer { drmModeFreeResources(resources) }
        return PixelSize(width: Int(resources.pointee.max_width), height: Int(resources.pointee.max_height))
    }

    /// Asks for atomic KMS (`DRM_CLIENT_CAP_ATOMIC`); false where the driver has none.
    func enableAtomic() -> Bool { drmSetClientCap(fd, UInt64(DRM_CLIENT_CAP_ATOMIC), 1) == 0 }

    /// The CRTC's current state, to put back on exit (`drmModeGetCrtc`).
    func savedCRTC(_ id: UInt32) -> UnsafeMutablePointer<drmModeCrtc>? { drmModeGetCrtc(fd, id) }
}

/// One connector (a screen's plug) and what the kernel knows of it.
public struct Connector {
    public let id: UInt32
    /// As the kernel and xrandr spell it: `HDMI-A-1`, `DP-2`, `Virtual-1`.
    public let name: String
    public let connected: Bool
    /// The screen's size, if its EDID says.
    public let physicalSize: PhysicalSize?
    public let modes: [DisplayMode]
    /// The raw mode for each of `modes`, for `drmModeSetCrtc`.
    let rawModes: [drmModeModeInfo]
    /// The CRTC to drive it, if any can.
    let crtc: UInt32?

    init(_ c: drmModeConnector, card: DRMCard, crtcs: [UInt32]) {
        id = c.connector_id
        let typeName = drmModeGetConnectorTypeName(c.connector_type).map { String(cString: $0) } ?? "Unknown"
        name = "\(typeName)-\(c.connector_type_id)"
        connected = c.connection == DRM_MODE_CONNECTED
        physicalSize = PhysicalSize(widthMillimetres: Int(c.mmWidth), heightMillimetres: Int(c.mmHeight))
        rawModes = (0..<Int(c.count_modes)).map { c.modes[$0] }
        modes = rawModes.map(DisplayMode.init(drm:))
        var current: UInt32? = nil
        if c.encoder_id != 0, let encoder = drmModeGetEncoder(card.fd, c.encoder_id) {
            current = encoder.pointee.crtc_id
            drmModeFreeEncoder(encoder)
        }
        let masks = (0..<Int(c.count_encoders)).compactMap { i -> UInt32? in
            guard let encoder = drmModeGetEncoder(card.fd, c.encoders[i]) else { return nil }
            defer { drmModeFreeEncoder(encoder) }
            return encoder.pointee.possible_crtcs
        }
        crtc = chooseCRTC(current: current, possibleMasks: masks, crtcs: crtcs)
    }

    func rawMode(for mode: DisplayMode) -> drmModeModeInfo? {
        modes.firstIndex(of: mode).map { rawModes[$0] }
    }
}

extension DisplayMode {
    init(drm m: drmModeModeInfo) {
        // The exact rate from the timings: 59.94 Hz panels report vrefresh 60.
        var rate = m.htotal > 0 && m.vtotal > 0
            ? Double(m.clock) * 1000 / (Double(m.htotal) * Double(m.vtotal)) : Double(m.vrefresh)
        if m.flags & UInt32(DRM_MODE_FLAG_INTERLACE) != 0 { rate *= 2 }
        if m.flags & UInt32(DRM_MODE_FLAG_DBLSCAN) != 0 { rate /= 2 }
        if m.vscan > 1 { rate /= Double(m.vscan) }
        self.init(
            size: PixelSize(width: Int(m.hdisplay), height: Int(m.vdisplay)),
            refreshRate: rate > 0 ? rate : 60,
            preferred: m.type & UInt32(DRM_MODE_TYPE_PREFERRED) != 0)
    }
}

/// The cards in `/dev/dri`, in number order (`card0` first).
public func drmCardPaths() -> [String] {
    guard let directory = opendir("/dev/dri") else { return [] }
    defer { closedir(directory) }
    var numbers: [Int] = []
    while let entry = readdir(directory) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        if name.hasPrefix("card"), let n = Int(name.dropFirst(4)) { numbers.append(n) }
    }
    return numbers.sorted().map { "/dev/dri/card\($0)" }
}
