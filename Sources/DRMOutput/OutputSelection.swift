import KioskCore
import SystemCalls

#if canImport(Glibc)
import Glibc
#endif

/// Finds the card, connector, mode and CRTC the operator asked for and takes
/// the display: `device`, `connector` and `mode` from ``DisplaySettings``.
/// `open`: a card already open and master (a reload moving to another
/// connector or mode), used again if the settings name it or no card: a
/// second descriptor on it could not become master. Cards are opened by
/// `opener`: the seat, or `open` itself.
public func openOutput(
    _ settings: DisplaySettings, on open: DRMCard? = nil, opener: any DeviceOpener = DirectDeviceOpener()
) throws(DRMError) -> KMSOutput {
    let card: DRMCard
    if let open, settings.device == nil || settings.device == open.path {
        card = open
    } else {
        card = try chooseCard(settings.device, opener: opener)
    }
    try card.becomeMaster()
    guard card.supportsDumbBuffers() else { throw DRMError(device: card.path, kind: .noDumbBuffers) }
    let (connector, mode) = try chooseOutput(settings, on: card)
    return try KMSOutput(card: card, connector: connector, mode: mode)
}

/// The connector and mode `settings` ask for on `card`, as its connectors
/// are now (a probe): the named connector, or the first connected one;
/// the named mode, or the connector's preferred one.
public func chooseOutput(_ settings: DisplaySettings, on card: DRMCard) throws(DRMError) -> (Connector, DisplayMode) {
    let connectors = try card.connectors()
    let connector: Connector
    if let name = settings.connector {
        guard let named = connectors.first(where: { $0.name == name }) else {
            throw DRMError(device: card.path, kind: .connectorNotFound(name, available: connectors.map(\.name)))
        }
        guard named.connected else { throw DRMError(device: card.path, kind: .connectorDisconnected(name)) }
        connector = named
    } else {
        guard let first = connectors.first(where: \.connected) else {
            throw DRMError(device: card.path, kind: .noConnectedConnector)
        }
        connector = first
    }
    guard let mode = settings.mode.choose(from: connector.modes) else {
        throw DRMError(device: card.path, kind: .modeNotFound("\(settings.mode)", available: connector.modeNames))
    }
    return (connector, mode)
}

/// The named card, or the first card with a connected screen.
private func chooseCard(_ device: String?, opener: any DeviceOpener) throws(DRMError) -> DRMCard {
    if let device { return try DRMCard(path: device, opener: opener) }
    var firstFailure: DRMError? = nil
    for path in drmCardPaths() {
        do {
            let card = try DRMCard(path: path, opener: opener)
            if try card.connectors().contains(where: \.connected) { return card }
        } catch {
            // A permission problem is the likeliest reason there is no display: report it.
            if firstFailure == nil { firstFailure = error }
        }
    }
    if let firstFailure, case .call(let call, _) = firstFailure.kind, call.hasPrefix("open") || call.hasPrefix("libseat") {
        throw firstFailure
    }
    throw DRMError(device: "/dev/dri", kind: .noDevice)
}

/// What `kioskd --list-outputs` prints: each card, its connectors, their
/// status and modes, so an operator can choose `device`, `connector`, `mode`.
public func describeOutputs() -> String {
    let paths = drmCardPaths()
    if paths.isEmpty { return "no DRM cards in /dev/dri\n" }
    var text = ""
    for path in paths {
        do {
            let card = try DRMCard(path: path)
            text += "\(path) (\(card.driverName))\n"
            for connector in try card.connectors() {
                let size = connector.physicalSize.map { ", \($0.widthMillimetres)x\($0.heightMillimetres) mm" } ?? ""
                text += "  \(connector.name): \(connector.connected ? "connected" + size : "disconnected")\n"
                for name in connector.modeNames {
                    text += "    \(name)\n"
                }
            }
        } catch {
            text += "\(error)\n"
        }
    }
    return text
}

extension Connector {
    /// The modes as the config spells them, the preferred one marked, each
    /// once: modes that differ only in timings the operator cannot choose
    /// between are listed once.
    var modeNames: [String] {
        var seen: Set<String> = []
        return modes.compactMap { mode in
            let name = "\(mode)\(mode.preferred ? " (preferred)" : "")"
            return seen.insert(name).inserted ? name : nil
        }
    }
}
