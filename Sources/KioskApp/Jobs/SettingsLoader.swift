import ImageCodecs
import InputDevices
import KioskConfigFile
import KioskCore

/// Builds the settings from the defaults, the config file (if any) and the
/// command-line flags, in that order of precedence (flags win).
public func loadSettings(configPath: String?, flags: [(name: String, value: String)]) throws -> KioskSettings {
    var settings = KioskSettings()
    if let configPath {
        let bytes: [UInt8]
        do {
            bytes = try readWholeFile(configPath, limit: 1 << 20)
        } catch {
            throw ConfigFile.Error(path: configPath, message: "cannot read the config file: \(error.why)")
        }
        try ConfigFile.apply(bytes, path: configPath, to: &settings)
    }
    for flag in flags {
        try settings.set(flag.name, to: .string(flag.value))
    }
    // Key names are the kernel's: libevdev knows them all.
    for name in settings.input.keys.keys.sorted() where keyCode(named: name) == nil {
        throw SettingError(setting: "keys", value: name, reason: "the kernel has no key named \(name); use the names evtest shows, e.g. KEY_F5")
    }
    return settings
}

/// The keys the show obeys: the defaults with the config's `[keys]` on top
/// (their names checked by ``loadSettings(configPath:flags:)``).
public func keyMap(for input: InputSettings) -> KeyMap {
    KeyMap(overrides: Dictionary(uniqueKeysWithValues: input.keys.compactMap { name, action in keyCode(named: name).map { ($0, action) } }))
}
