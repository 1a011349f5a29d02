import KioskCore
import LinuxPlatform
import SystemCalls
#if canImport(Glibc)
import Glibc
#endif

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
/// - What each changed setting needs is its descriptor's ``ReloadPolicy``
///   (docs/configuration-reference.md lists them):
///   - `live` (geometry, background, timing, easing, the EXIF turn, the
///     cache budget...) is applied at once; the centred picture keeps its place.
///   - `new folder` (the folder, `recursive`, `order`) starts a new watch of
///     the folder; the playlist becomes its listing, the centred picture
///     staying if it is still in it.
///   - `new display` (device, connector, mode, rotation, display, size)
///     opens the display in place of the old, the strip laid out for it and
///     drawn at once where it was; the input maps touches to it. If it
///     cannot be opened, or the layout does not fit it, the reload is
///     refused and the show goes back to the display it had.
///   - `restart` (the input devices and keys, the control socket, CEC, the
///     state folder, `start_paused`) is taken when the daemon starts: a
///     change is logged as waiting for a restart and the old value stays in force.
/// - Command-line flags still win over the file, as at the start, and
///   the control protocol's `set` (Home Assistant's interval and order)
///   wins over both: ``set(_:to:)``. What it sets is kept in the state
///   directory's `overrides.toml` (``SettingOverrides``), written on a
///   thread of its own (the run loop never waits on a disk), so a restart
///   keeps it (the last write is waited for when the show stops); `unset`
///   takes it away. A reload reads that file again
///   too, unless a write of it is still under way (then what was set is newer).
final class ConfigReload: SettingsReloading {
    /// The defaults, the config file and the command line's flags, read
    /// now, with where each setting was written; with the overrides' file
    /// on top when asked (`true`).
    let load: (_ overrides: Bool) throws -> ExplainedSettings
    private(set) var settings: KioskSettings
    let controller: ShowController
    let libraries: LibrarySource
    let log: (LogLine) -> Void

    /// Opens a display (the old screen is given up first), or throws why
    /// not; nil: the display is taken at the start only (a test's show).
    let openDisplay: ((DisplaySettings) throws -> any ShowScreen)?
    /// Takes a new `display_schedule` at once; nil for a show without power control.
    let powerKeeper: PowerKeeper?

    init(settings: KioskSettings, controller: ShowController, libraries: LibrarySource, log: @escaping (LogLine) -> Void,
         openDisplay: ((DisplaySettings) throws -> any ShowScreen)? = nil, powerKeeper: PowerKeeper? = nil,
         overrides: SettingOverrides = SettingOverrides(), load: @escaping (_ overrides: Bool) throws -> ExplainedSettings) {
        self.overrides = overrides
        overridesFile = settings.stateDirectory.map(SettingOverrides.path(inStateDirectory:))
        self.openDisplay = openDisplay
        self.powerKeeper = powerKeeper
        self.settings = settings
        self.controller = controller
        self.libraries = libraries
        self.log = log
        self.load = load
        // The show's last event comes after the loop has ended: waiting then holds up nothing.
        events = controller.subscribe { [unowned self] event in
            if case .stopped = event { finishWrites() }
        }
    }

    /// What `set` changed, applied over the file and the flags at every
    /// reload, in the order they were set.
    private var overrides: SettingOverrides
    /// Where they are kept: nil without a state directory (then until kioskd restarts).
    let overridesFile: String?
    var keepsOverrides: Bool { overridesFile != nil }
    var overriddenKeys: Set<String> { Set(overrides.keys) }
    /// Writes the overrides' file off the run loop; made at the first write.
    private var writer: WorkerThread<String, Write, Written>?
    /// The show's events: its `stopped` finishes the writes.
    private var events: ShowSubscription?
    /// The last write handed to the writer, and the last it finished (a
    /// waiting write is replaced by a newer one, so they count writes asked for).
    private var lastAsked = 0, lastWritten = 0
    typealias Write = (number: Int, bytes: [UInt8])
    typealias Written = (number: Int, failure: String?)

    /// Sets `key` to `value` (as its flag takes it) over the file and the
    /// flags, applies it as a reload does, and keeps it in the overrides'
    /// file. Only the settings ``SettingDescriptor/takesSet`` names may be set.
    func set(_ key: String, to value: String) -> ReloadOutcome {
        guard let setting = KioskSettings.table[key] else { return .refused("there is no setting \(key)") }
        guard setting.takesSet else {
            return .refused("\(key) cannot be set while the show runs (a reload \(setting.reload == .restart ? "waits for a restart" : setting.reload.rawValue) for it): write it in the config file")
        }
        var trial = settings
        do { try setting.set(&trial, to: .string(value)) } catch { return .refused(error.description) }
        return change(as: "set") { $0.set(key, to: .string(value)) }
    }

    func unset(_ key: String) -> ReloadOutcome {
        guard overrides.keys.contains(key) else {
            let set = overrides.keys.isEmpty ? "none is" : overrides.keys.joined(separator: ", ") + (overrides.keys.count == 1 ? " is" : " are")
            return .refused("\(key) is not set over the config file (of the settings, \(set))")
        }
        return change(as: "unset") { _ = $0.remove(key) }
    }

    /// Changes the overrides, applies them, and keeps them; a change the
    /// show refuses is undone.
    private func change(as verb: String, _ edit: (inout SettingOverrides) -> Void) -> ReloadOutcome {
        takeWrites()
        let before = overrides
        edit(&overrides)
        let outcome = apply(as: verb)
        guard case .applied = outcome else {
            overrides = before
            return outcome
        }
        keepOverrides()
        return outcome
    }

    func reload() -> ReloadOutcome {
        takeWrites()
        // The file as it is now (an edit by hand), unless a write is under way: what was set since is newer.
        let readingOverrides = lastWritten == lastAsked && overridesFile != nil
        let explained: ExplainedSettings
        do { explained = try load(readingOverrides) } catch { return refuse("reload", "\(error)") }
        if readingOverrides {
            if let problem = explained.overridesProblem {
                log(.warning("reload: the overrides are kept as they were: \(problem)"))
            } else {
                overrides = explained.overrides
            }
        }
        return apply(as: "reload", loaded: explained)
    }

    /// Hands the overrides' file to the writer.
    private func keepOverrides() {
        guard let overridesFile else { return }
        if writer == nil {
            writer = try? WorkerThread<String, Write, Written> {
                { write in
                    do { try AtomicFile.write(write.bytes, to: overridesFile) } catch {
                        return (write.number, "cannot keep the settings set in \(overridesFile) (\(error)): they last until kioskd restarts")
                    }
                    return (write.number, nil)
                }
            }
        }
        guard let writer else {
            log(.warning("cannot start the thread that keeps the settings set: they last until kioskd restarts"))
            return
        }
        lastAsked += 1
        writer.submit((lastAsked, Array(overrides.toml.utf8)), key: overridesFile)
    }

    /// Takes the writer's finished writes, logging a failure.
    private func takeWrites() {
        guard let writer else { return }
        for written in writer.takeFinished() {
            lastWritten = max(lastWritten, written.number)
            if let failure = written.failure { log(.warning(failure)) }
        }
    }

    /// On the way out (the show has stopped), the last write is waited for,
    /// at most 2 s: a `set` just before `systemctl restart` is kept.
    private func finishWrites() {
        guard let writer else { return }
        let deadline = MonotonicClock.now() + 2
        while lastWritten < lastAsked, MonotonicClock.now() < deadline {
            var ready = pollfd(fd: writer.readyFD, events: Int16(POLLIN), revents: 0)
            _ = poll(&ready, 1, 100)
            takeWrites()
        }
    }

    deinit { writer?.stop() }

    /// Reads the settings again (unless `loaded` has them, read just now),
    /// with what was set on top, and applies them; `verb` (`reload`, `set`)
    /// starts the log lines.
    private func apply(as verb: String, loaded: ExplainedSettings? = nil) -> ReloadOutcome {
        var explained: ExplainedSettings
        if let loaded {
            explained = loaded
        } else {
            do { explained = try load(false) } catch { return refuse(verb, "\(error)") }
        }
        for entry in overrides.entries {
            do { try explained.settings.set(entry.key, to: entry.value) } catch { return refuse(verb, "set \(entry.key): \(error)") }
        }
        // What each changed setting needs is its descriptor's reload policy.
        let changed = KioskSettings.table.changed(from: settings, to: explained.settings)
        let newDisplay = openDisplay != nil && changed.contains { $0.reload == .newDisplay }
        func waits(_ setting: SettingDescriptor) -> Bool {
            switch setting.reload {
            case .restart: return true
            case .newDisplay: return !newDisplay
            case .live, .newFolder: return false
            // kioskd-web's, which the show does not read.
            case .webRestart: return false
            // Applied: MQTTSource hears `settingsApplied` and connects again when its target changed.
            case .reconnect: return false
            }
        }
        let waiting = changed.filter(waits)
        var applied = explained.settings
        for setting in waiting { setting.keep(in: &applied, from: settings) }

        var made: [any PictureLibrary]?
        var listing: FolderListing?
        if changed.contains(where: { $0.reload == .newFolder }), applied.namesAnyLibrary {
            do { made = try PictureLibraries.make(for: applied, panel: controller.screen.panelSize) } catch {
                return refuse(verb, "cannot read the picture folder \(error)")
            }
            listing = PictureLibraries.firstListing(of: made ?? [])
        }
        var screen: (any ShowScreen)?
        if newDisplay, let openDisplay {
            do { screen = try openDisplay(applied.display) } catch {
                made?.forEach { $0.stop() }
                return refuse(verb, "cannot open the new display: \(error)" + backToTheOldDisplay())
            }
        }
        let assembly: ShowAssembly
        do { assembly = try controller.assembly(for: screen ?? controller.screen, settings: applied, listing: listing) } catch {
            made?.forEach { $0.stop() }
            // A setting that does not fit the screen: where it was written, as for a mistake in the file.
            var reason = error.description
            if case .setting(let mistake) = error, let place = explained.place(of: mistake.setting) { reason = "\(place): \(reason)" }
            return refuse(verb, reason + (screen == nil ? "" : backToTheOldDisplay()))
        }
        if let made {
            do { try libraries.use(made) } catch {
                made.forEach { $0.stop() }
                return refuse(verb, "cannot watch the picture folder: \(error)")
            }
        }
        // In force before the show says so: whoever hears `settingsApplied` reads these.
        let before = settings
        settings = applied
        if let screen {
            controller.move(to: screen, assembly: assembly)
            log("showing on \(screen.summary), rotation \(applied.display.rotation.rawValue)")
        } else {
            controller.reassemble(assembly)
        }
        powerKeeper?.use(applied.power)
        let applying = changed.filter { !waits($0) }
        if changed.isEmpty {
            log("\(verb): nothing changed")
        } else {
            let lines = applying.map { "\($0.key) \(Self.shown(before, $0)) -> \(Self.shown(applied, $0))" }
            if !lines.isEmpty { log(LogLine("\(verb): " + lines.joined(separator: ", "))) }
            if !waiting.isEmpty {
                log(.warning("\(verb): " + waiting.map(\.key).joined(separator: ", ") + (waiting.count == 1 ? " takes" : " take") + " effect when kioskd restarts"))
            }
        }
        return .applied(changed: applying.map(\.key), restartNeeded: waiting.map(\.key))
    }

    /// Opens the display the show had again, after a new one failed: what
    /// to add to the refusal.
    private func backToTheOldDisplay() -> String {
        do {
            guard let openDisplay else { return "" }
            let screen = try openDisplay(settings.display)
            try controller.move(to: screen, settings: settings)
            return "; back on \(screen.summary)"
        } catch {
            return "; the old display cannot be opened again either (\(error)): retrying it every second"
        }
    }

    private func refuse(_ verb: String, _ reason: String) -> ReloadOutcome {
        log(.warning("\(verb) refused, the show goes on with the settings it has: \(reason)"))
        return .refused(reason)
    }

    private static func shown(_ settings: KioskSettings, _ setting: SettingDescriptor) -> String {
        setting.write(settings)?.toml ?? "(\(setting.unwritten ?? "no value"))"
    }
}
