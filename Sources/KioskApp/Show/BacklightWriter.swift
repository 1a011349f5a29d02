import KioskCore
import LinuxPlatform
import SystemCalls

/// Sets the panel's backlight on a thread of its own: a sysfs write is
/// quick on most panels, but some backlights sit behind I2C or the
/// firmware, and the run loop never waits for a device. Only the newest
/// level asked for is written; a failure is kept for the loop to log.
final class BacklightWriter: Sendable {
    let backlight: Backlight
    /// Each write's failure, or nil when it took (one kind of job: the newest level replaces a waiting one).
    private let thread: WorkerThread<Int, Int, String?>

    init(_ backlight: Backlight) throws(SystemCallError) {
        self.backlight = backlight
        thread = try WorkerThread {
            { percent in
                do { try backlight.set(percent: percent) } catch { return "\(error)" }
                return nil
            }
        }
    }

    /// Sets it to `percent`, soon.
    func set(percent: Int) { thread.submit(percent, key: 0) }

    /// Why the last write failed, once; nil when none failed since the last call.
    func takeFailure() -> String? { thread.takeFinished().compactMap { $0 }.last }

    /// Ends the thread after the write in progress.
    func stop() { thread.stop() }
}

/// Where the display's brightness goes: the panel's backlight where it has
/// one kioskd may set, else the show's frames, dimmed in software (which
/// saves no power: the backlight stays as bright).
enum Dimmer {
    case software
    case backlight(BacklightWriter)

    /// For `status` (`dimmer`): `software`, or `backlight:<name>`.
    var name: String {
        switch self {
        case .software: "software"
        case .backlight(let writer): "backlight:\(writer.backlight.name)"
        }
    }

    /// Panels that have a backlight are the built-in kinds: a laptop's or
    /// a tablet's eDP or LVDS, a DSI or DPI panel (the official Raspberry Pi
    /// touchscreen). On HDMI, DisplayPort or VGA a backlight the kernel
    /// lists is some other screen's, never the monitor's.
    static func backlitConnector(_ connector: String) -> Bool {
        ["eDP", "LVDS", "DSI", "DPI"].contains { connector.hasPrefix($0 + "-") }
    }

    /// The backlight to use on `connector`, if any, and why not where it cannot be:
    /// the first listed (``Backlight/all(in:)``) that this process may write.
    static func choose(connector: String?, folder: String = Backlight.folder) -> (dimmer: Dimmer, note: String?) {
        guard let connector, backlitConnector(connector) else { return (.software, nil) }
        let all = Backlight.all(in: folder)
        guard let backlight = all.first else { return (.software, "\(connector) has no backlight in \(folder); brightness dims the picture in software") }
        guard backlight.isWritable else {
            return (.software, "\(backlight.path)/brightness is not writable by this user (the udev rule 90-kioskd-backlight.rules gives group video write access; under the service, enable kioskd-backlight.conf); brightness dims the picture in software")
        }
        do { return (.backlight(try BacklightWriter(backlight)), nil) } catch {
            return (.software, "cannot start the backlight's thread: \(error); brightness dims the picture in software")
        }
    }
}
