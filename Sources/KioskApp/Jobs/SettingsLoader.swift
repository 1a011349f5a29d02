import ImageCodecs
import InputDevices
import KioskConfigFile
import KioskCore
#if canImport(Glibc)
import Glibc
#endif

/// Builds the settings from the defaults, the config file (if any), the
/// command-line flags and the state directory's overrides (``SettingOverrides``),
/// in that order of precedence (the overrides win).
public func loadSettings(configPath: String?, flags: [(name: String, value: String)]) throws -> KioskSettings {
    try loadExplainedSettings(configPath: configPath, flags: flags).settings
}

/// Settings and where each came from (`kioskd check-config` shows them).
public struct ExplainedSettings: Sendable {
    public var settings = KioskSettings()
    /// The settings the config file set, each with its line.
    public var fromFile: [String: Int] = [:]
    /// The settings a command-line flag set (over the file's).
    public var fromFlags: Set<String> = []
    /// The config file read, if any.
    public var file: String?
    /// What `set` keeps in the state directory, over the file and the flags.
    public var overrides = SettingOverrides()
    /// The overrides' lines in their file.
    public var fromOverrides: [String: Int] = [:]
    /// The overrides' file, when there is one.
    public var overridesFile: String?
    /// Why the overrides' file was passed over (it cannot be read, or holds
    /// a mistake): the show starts with the config file and the flags alone.
    public var overridesProblem: String?

    /// Where setting `name`'s value was written, for an error about it
    /// found only later (a slot wider than the screen): `FILE: line N`,
    /// `the --image-width flag`, or nil for a default.
    public func place(of name: String) -> String? {
        if let overridesFile, let line = fromOverrides[name] { return "\(overridesFile): line \(line)" }
        if fromFlags.contains(name) { return "the --\(KioskSettings.table[name]?.flagName ?? name) flag" }
        guard let file, let line = fromFile[name] else { return nil }
        return "\(file): line \(line)"
    }
}

/// ``loadSettings(configPath:flags:)``, keeping where each setting came
/// from; `overrides`: whether the state directory's overrides are read
/// (a reload applies those it holds itself, ``ConfigReload``).
public func loadExplainedSettings(configPath: String?, flags: [(name: String, value: String)], overrides: Bool = true) throws -> ExplainedSettings {
    var explained = ExplainedSettings()
    explained.file = configPath
    if let configPath {
        let bytes: [UInt8]
        do {
            bytes = try readWholeFile(configPath, limit: 1 << 20)
        } catch {
            throw ConfigFile.Error(path: configPath, message: "cannot read the config file: \(error.why)")
        }
        explained.fromFile = try ConfigFile.apply(bytes, path: configPath, to: &explained.settings)
    }
    for flag in flags {
        try explained.settings.set(flag.name, to: .string(flag.value))
        explained.fromFlags.insert(flag.name)
    }
    if overrides, let directory = explained.settings.stateDirectory {
        var overridden = explained
        readOverrides(from: SettingOverrides.path(inStateDirectory: directory), into: &overridden)
        // Settings the file and the flags allow, which the overrides make
        // wrong (a server's address without its key): passed over whole,
        // as a file with a mistake is, so the operator's config still starts the show.
        do {
            try check(overridden, configPath: configPath)
            return overridden
        } catch {
            explained.overridesProblem = overridden.overridesProblem ?? "\(overridden.overridesFile ?? directory): \(error)"
        }
    }
    try check(explained, configPath: configPath)
    return explained
}

/// The checks of settings together, after each was read: one mistake throws.
private func check(_ explained: ExplainedSettings, configPath: String?) throws {
    if let conflict = explained.settings.slotWidthConflict(written: explained.fromFlags.union(explained.fromFile.keys), place: explained.place(of:)) {
        throw conflict
    }
    if let problem = explained.settings.mqtt.problem {
        throw SettingError(setting: "mqtt", value: explained.settings.mqtt.broker?.description ?? "none", reason: problem)
    }
    if let problem = explained.settings.webdav.problem {
        throw SettingError(setting: "webdav", value: explained.settings.webdav.url?.description ?? "none", reason: problem)
    }
    if let problem = explained.settings.immich.problem {
        throw SettingError(setting: "immich", value: explained.settings.immich.url?.description ?? "none", reason: problem)
    }
    for (setting, url) in [("webdav.url", explained.settings.webdav.url), ("immich.url", explained.settings.immich.url)] {
        if let url, explained.settings.stateDirectory == nil {
            throw SettingError(setting: setting, value: url.description, reason: "a server's pictures are cached under state_dir, which is \"none\": give it a folder")
        }
    }
    // Key names are the kernel's: libevdev knows them all.
    for name in explained.settings.input.keys.keys.sorted() where keyCode(named: name) == nil {
        let error = SettingError(setting: "keys", value: name, reason: "the kernel has no key named \(name); use the names evtest shows, e.g. KEY_F5")
        guard let configPath, let line = explained.fromFile["keys"] else { throw error }
        throw ConfigFile.Error(path: configPath, message: "line \(line): \(error.description)")
    }
    for name in explained.settings.input.presenceKeys where keyOrSwitchCode(named: name) == nil {
        let error = SettingError(
            setting: "presence_keys", value: name,
            reason: "the kernel has no key or switch named \(name); use the names evtest shows, e.g. KEY_WAKEUP or SW_FRONT_PROXIMITY")
        guard let configPath, let line = explained.fromFile["presence_keys"] else { throw error }
        throw ConfigFile.Error(path: configPath, message: "line \(line): \(error.description)")
    }
}

/// Reads the overrides' file at `path`, if there is one, over `explained`'s
/// settings. One that cannot be read or holds a mistake is passed over
/// whole, with the reason in ``ExplainedSettings/overridesProblem``: kioskd
/// wrote it, so the operator's config still starts the show.
private func readOverrides(from path: String, into explained: inout ExplainedSettings) {
    var status = stat()
    guard stat(path, &status) == 0 else { return }
    var settings = explained.settings
    let lines: [String: Int]
    do {
        let bytes = try readWholeFile(path, limit: 1 << 20)
        lines = try ConfigFile.apply(bytes, path: path, to: &settings)
    } catch let error as ConfigFile.Error {
        explained.overridesProblem = error.description
        return
    } catch {
        explained.overridesProblem = "\(path): cannot read it: \(error)"
        return
    }
    for (key, line) in lines.sorted(by: { $0.key < $1.key }) {
        if let reason = SettingOverrides.refusal(for: key) {
            explained.overridesProblem = "\(path): line \(line): \(reason)"
            return
        }
    }
    explained.settings = settings
    explained.fromOverrides = lines
    explained.overridesFile = path
    let keys = lines.sorted { $0.value < $1.value }.map(\.key)
    explained.overrides = SettingOverrides(keys.compactMap { key in settings.writtenValue(of: key).map { .init(key: key, value: $0) } })
}

/// What `kioskd check-config` prints: the effective configuration as a
/// config file, every setting on its own line, marked with where its value
/// comes from (the file and its line, a flag, or the default). It is valid
/// TOML: an operator can start a config file from it.
public func describeConfiguration(_ explained: ExplainedSettings, file: String?) -> String {
    var lines = ["# kioskd \(KioskVersion.current): the configuration \(file.map { "from \($0)" } ?? "of the defaults"); it is valid"]
    if let problem = explained.overridesProblem { lines.append("# the settings set before are passed over: \(problem)") }
    let rows = KioskSettings.table.descriptors.map { setting -> (setting: String, origin: String) in
        let origin = explained.fromOverrides[setting.key].map { "\(SettingOverrides.fileName) line \($0)" }
            ?? (explained.fromFlags.contains(setting.key) ? "flag" : explained.fromFile[setting.key].map { "line \($0)" } ?? "default")
        guard let value = setting.write(explained.settings) else {
            return ("# \(setting.key): \(setting.unwritten ?? "no value")", origin)
        }
        return ("\(setting.key) = \(value.toml)", origin)
    }
    let width = min(48, rows.map(\.setting.count).max() ?? 0)
    for row in rows {
        let padding = String(repeating: " ", count: max(1, width - row.setting.count + 1))
        lines.append(row.setting + padding + "# " + row.origin)
    }
    return lines.joined(separator: "\n") + "\n"
}

/// The keys the show obeys: the defaults with the config's `[keys]` on top
/// (their names checked by ``loadSettings(configPath:flags:)``).
public func keyMap(for input: InputSettings) -> KeyMap {
    KeyMap(overrides: Dictionary(uniqueKeysWithValues: input.keys.compactMap { name, action in keyCode(named: name).map { ($0, action) } }))
}
