import DRMOutput
import KioskCore
import SystemCalls

/// The display the daemon holds: opened at the start, replaced by a
/// reload (another connector, mode or card) or by a hotplug (the screen
/// back, perhaps with another preferred mode), given back on exit. The
/// card stays open throughout, so kioskd stays its DRM master.
final class DisplayKeeper {
    /// The DRM output in use; nil on the headless screen.
    private(set) var output: KMSOutput?
    let opener: any DeviceOpener

    init(output: KMSOutput?, opener: any DeviceOpener) {
        self.output = output
        self.opener = opener
    }

    /// A reload's new display: the old one gives the console back first, and its card is used again.
    func open(_ display: DisplaySettings) throws -> any ShowScreen {
        output?.restore()
        switch display.target {
        case .drm:
            let opened = try openOutput(display, on: output?.card, opener: opener)
            output = opened
            return opened
        case .headless:
            output = nil
            return try HeadlessScreen(panel: display.headlessSize, vblankTimer: true, now: MonotonicClock.now())
        }
    }

    /// What a probe of the connectors found.
    enum ProbeOutcome {
        /// The output in use is as it was.
        case unchanged
        /// No screen the settings accept is connected.
        case disconnected(String)
        /// A screen to show on again (the same connector back, another
        /// mode, or with `connector = "auto"` another connector).
        case screen(KMSOutput)
    }

    /// Looks at the card's connectors again (a `change` uevent): what the
    /// settings choose now, compared with what the show is on. `showing`:
    /// false while the show is disconnected, when even the same connector
    /// and mode get a full mode set on a new output.
    func probe(_ display: DisplaySettings, showing: Bool) throws(DRMError) -> ProbeOutcome {
        guard let current = output else { return .unchanged }
        let connector: Connector, mode: DisplayMode
        do { (connector, mode) = try chooseOutput(display, on: current.card) } catch {
            switch error.kind {
            case .connectorDisconnected, .noConnectedConnector, .connectorNotFound, .modeNotFound:
                return .disconnected("\(current.connectorName) has no screen (\(error))")
            default:
                throw error
            }
        }
        if showing && connector.name == current.connectorName && mode == current.mode { return .unchanged }
        // The old output is done with: its pending flip settled, nothing
        // restored (the new one sets its mode at once).
        current.releaseForAnotherSession()
        let opened = try KMSOutput(card: current.card, connector: connector, mode: mode)
        output = opened
        return .screen(opened)
    }

    /// Gives the console back (on exit).
    func restore() { output?.restore() }
}
