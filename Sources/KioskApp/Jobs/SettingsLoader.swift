import ImageCodecs
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
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw ConfigFile.Error(path: configPath, message: "cannot read the config file: it is not UTF-8 text")
        }
        try ConfigFile.apply(text, path: configPath, to: &settings)
    }
    for flag in flags {
        try settings.set(flag.name, to: .string(flag.value))
    }
    return settings
}
