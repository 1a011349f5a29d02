import KioskCore
import SystemCalls

/// What a reload did: the settings that changed (applied, or kept until
/// kioskd restarts), or why the new config was refused.
public enum ReloadOutcome: Equatable, Sendable {
    case applied(changed: [String], restartNeeded: [String])
    case refused(String)
}

/// Reads the config file again (SIGHUP, `kioskctl reload`) and applies it
/// to the running show in place: no restart, no black frame.
///
/// - A config with a mistake (a typo, a bad value, a slot wider than the
///   screen) is refused whole, with the error in the log; the show goes
///   on untouched with the settings it has.
/// - Geometry, background, timing, easing, the EXIF turn and the cache
///   budget are applied at once; the centred picture keeps its place.
/// - A new folder, `recursive` or `order` starts a new watch of the
///   folder; the playlist becomes its listing, the centred picture
///   staying if it is still in it.
/// - The display (device, connector, mode, rotation, display, size), the
///   input devices and keys, and the control socket are taken when the
///   daemon starts: a change to them is logged as waiting for a restart
///   and the old values stay in force.
/// - Command-line flags still win over the file, as at the start.
final class ConfigReload {
    /// The defaults, the config file and the command line's flags, read now.
    let load: () throws -> KioskSettings
    private(set) var settings: KioskSettings
    let controller: ShowController
    let folder: FolderSource
    let log: (String) -> Void

    /// Settings only a restart changes.
    static let takenAtStart: Set<String> = [
        "device", "connector", "mode", "rotation", "display", "size", "socket", "socket_group",
        "input", "grab", "tap_zones", "calibration", "keys",
    ]
    static let folderSettings: Set<String> = ["images", "recursive", "order"]

    init(settings: KioskSettings, controller: ShowController, folder: FolderSource, log: @escaping (String) -> Void,
         load: @escaping () throws -> KioskSettings) {
        self.settings = settings
        self.controller = controller
        self.folder = folder
        self.log = log
        self.load = load
    }

    func reload() -> ReloadOutcome {
        let read: KioskSettings
        do { read = try load() } catch { return refuse("\(error)") }
        let changed = KioskSettings.names.filter { read.writtenValue(of: $0) != settings.writtenValue(of: $0) }
        let waiting = changed.filter(Self.takenAtStart.contains)
        var applied = read
        applied.display = settings.display
        applied.input = settings.input
        applied.control = settings.control

        let show = controller.show
        var watcher: FolderWatcher?
        var listing = FolderListing(entries: show.pictures.pictures.playlist.entries, notes: [])
        if changed.contains(where: Self.folderSettings.contains), let images = applied.images {
            do { watcher = try FolderWatcher(root: images, settings: applied.folder) } catch {
                return refuse("cannot read the picture folder \(error)")
            }
            listing = FolderListing(entries: watcher?.firstListing ?? [], notes: watcher?.firstNotes ?? [])
        }
        let assembly: ShowAssembly
        do { assembly = try ShowAssembly(settings: applied, panel: show.screen.panelSize, listing: listing) } catch {
            watcher?.stop()
            return refuse(error.description)
        }
        if let watcher {
            do { try folder.watch(with: watcher) } catch {
                watcher.stop()
                return refuse("cannot watch the picture folder: \(error)")
            }
        }
        controller.reassemble(assembly)
        let before = settings
        settings = applied
        let applying = changed.filter { !waiting.contains($0) }
        if changed.isEmpty {
            log("reload: nothing changed")
        } else {
            let lines = applying.map { "\($0) \(Self.shown(before, $0)) -> \(Self.shown(applied, $0))" }
            if !lines.isEmpty { log("reload: " + lines.joined(separator: ", ")) }
            if !waiting.isEmpty {
                log("reload: " + waiting.joined(separator: ", ") + (waiting.count == 1 ? " takes" : " take") + " effect when kioskd restarts")
            }
        }
        return .applied(changed: applying, restartNeeded: waiting)
    }

    private func refuse(_ reason: String) -> ReloadOutcome {
        log("reload refused, the show goes on with the settings it has: \(reason)")
        return .refused(reason)
    }

    private static func shown(_ settings: KioskSettings, _ name: String) -> String {
        settings.writtenValue(of: name)?.toml ?? "(\(KioskSettings.unwrittenDefault(of: name)))"
    }
}
