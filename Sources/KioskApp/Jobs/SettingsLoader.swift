import Foundation
import KioskConfigFile
import KioskCore

/// Builds the settings from the defaults, the config file (if any) and the
/// command-line flags, in that order of precedence (flags win).
public func loadSettings(configPath: String?, flags: [(name: String, value: String)]) throws -> KioskSettings {
    var settings = KioskSettings()
    if let configPath {
        let text: String
        do {
            text = try String(contentsOfFile: configPath, encoding: .utf8)
        } catch {
            throw ConfigFile.Error(path: configPath, message: "cannot read the config file: \(error.localizedDescription)")
        }
        try ConfigFile.apply(text, path: configPath, to: &settings)
    }
    for flag in flags {
        try settings.set(flag.name, to: .string(flag.value))
    }
    return settings
}
