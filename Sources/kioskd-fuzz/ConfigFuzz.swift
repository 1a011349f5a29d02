import KioskConfigFile
import KioskCore

/// The fuzz target for config files (`scripts/fuzz`): any bytes, read as
/// the daemon reads its config file (UTF-8, TOML through toml++, then every
/// setting checked). A malformed file must be an error; a crash, an abort
/// (as TOMLKit's vendored toml++ once gave on a line holding only `[`) or
/// a hang is what libFuzzer reports.
func readConfigFile(_ bytes: UnsafeRawBufferPointer) {
    var settings = KioskSettings()
    do {
        try ConfigFile.apply(Array(bytes), path: "fuzz.toml", to: &settings)
    } catch {
        check(error.description.hasPrefix("fuzz.toml: "), "an error that does not name the file: \(error)")
    }
}
