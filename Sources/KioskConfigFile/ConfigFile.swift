import KioskCore
import TOMLKit

/// The operator's config file: TOML, one `name = value` per setting, with the
/// same names as the command-line flags (`image_width` for `--image-width`).
///
/// ```toml
/// images = "/srv/kiosk/photos"
/// image_width = "70%"
/// spacing = 40
/// background = "101010"
/// ```
public enum ConfigFile {
    /// A config file that cannot be used; the description names the file and,
    /// where there is one, the line or the setting.
    public struct Error: Swift.Error, Equatable, CustomStringConvertible {
        public let path: String
        public let message: String
        public var description: String { "\(path): \(message)" }

        public init(path: String, message: String) {
            self.path = path
            self.message = message
        }
    }

    /// Applies the settings in `text` on top of `settings`.
    public static func apply(_ text: String, path: String, to settings: inout KioskSettings) throws(ConfigFile.Error) {
        let table: TOMLTable
        do {
            table = try TOMLTable(string: text)
        } catch let error as TOMLParseError {
            throw Error(path: path, message: "line \(error.source.begin.line), column \(error.source.begin.column): \(error.description)")
        } catch {
            throw Error(path: path, message: "\(error)")
        }
        // Sorted so that, with several mistakes, the same one is reported first every time.
        for key in table.keys.sorted() {
            guard let value = table[key], let setting = settingValue(value) else {
                throw Error(path: path, message: "\(key): expected a string, number, boolean, or a list or table of them")
            }
            do {
                try settings.set(key, to: setting)
            } catch {
                throw Error(path: path, message: error.description)
            }
        }
    }

    private static func settingValue(_ value: TOMLValueConvertible) -> SettingValue? {
        switch value.type {
        case .string: return value.string.map(SettingValue.string)
        case .int: return value.int.map(SettingValue.integer)
        case .double: return value.double.map(SettingValue.float)
        case .bool: return value.bool.map(SettingValue.boolean)
        case .array:
            guard let array = value.array else { return nil }
            var values: [SettingValue] = []
            for element in array {
                guard element.type != .array, let converted = settingValue(element) else { return nil }
                values.append(converted)
            }
            return .list(values)
        case .table:
            guard let table = value.table else { return nil }
            var entries: [String: SettingValue] = [:]
            for key in table.keys {
                guard let element = table[key], element.type != .table, element.type != .array,
                      let converted = settingValue(element) else { return nil }
                entries[key] = converted
            }
            return .table(entries)
        default: return nil
        }
    }
}
