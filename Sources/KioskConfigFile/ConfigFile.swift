import CTOML
import KioskCore

/// The operator's config file: TOML, one `name = value` per setting, with the
/// same names as the command-line flags (`image_width` for `--image-width`).
///
/// ```toml
/// images = "/srv/kiosk/photos"
/// image_width = "70%"
/// spacing = 40
/// background = "101010"
/// ```
///
/// Read with toml++ (Debian's libtomlplusplus, through ``CTOML``): every
/// malformed document, an unfinished table header such as `[` included, is
/// an error with its line and column, never a crash.
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

    /// Applies the settings in the file's `bytes` on top of `settings`;
    /// returns the settings it set, each with its line.
    @discardableResult
    public static func apply(_ bytes: [UInt8], path: String, to settings: inout KioskSettings) throws(ConfigFile.Error) -> [String: Int] {
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw Error(path: path, message: "cannot read the config file: it is not UTF-8 text")
        }
        return try apply(text, path: path, to: &settings)
    }

    /// Applies the settings in `text` on top of `settings`; returns the
    /// settings it set, each with its line.
    @discardableResult
    public static func apply(_ text: String, path: String, to settings: inout KioskSettings) throws(ConfigFile.Error) -> [String: Int] {
        var document = Document()
        var failure = ctoml_error()
        var utf8 = Array(text.utf8)
        let parsed = utf8.withUnsafeMutableBufferPointer { bytes in
            withUnsafeMutablePointer(to: &document) { context in
                bytes.withMemoryRebound(to: CChar.self) { text in
                    ctoml_walk(text.baseAddress, text.count, { context, item in
                        guard let context, let item else { return }
                        context.assumingMemoryBound(to: Document.self).pointee.take(item.pointee)
                    }, context, &failure)
                }
            }
        }
        guard parsed else {
            let message = withUnsafeBytes(of: failure.message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            throw Error(path: path, message: "line \(failure.line), column \(failure.column): \(message)")
        }
        // Sorted so that, with several mistakes, the same one is reported first every time.
        var lines: [String: Int] = [:]
        for entry in document.settings.sorted(by: { $0.key < $1.key }) {
            guard let value = entry.value else {
                throw Error(path: path, message: "line \(entry.line): \(entry.key): expected a string, number, boolean, or a list or table of them")
            }
            do {
                // A settings table (`[mqtt]`) sets each of its entries; they share the table's line.
                for key in try settings.set(entry.key, to: value) where lines[key] == nil { lines[key] = entry.line }
            } catch {
                throw Error(path: path, message: "line \(entry.line): \(error.description)")
            }
        }
        return lines
    }

    /// The document as toml++ walks it, made into the root table's
    /// settings. A value kioskd has no use for (a date, a list of lists, a
    /// table inside a table) is nil, and refused with its key and line.
    private struct Document {
        var settings: [(key: String, value: SettingValue?, line: Int)] = []
        /// The arrays and tables being walked, innermost last; the first is the root.
        private var open: [(isTable: Bool, key: String?, line: Int, elements: [(key: String?, value: SettingValue?)])] = []

        mutating func take(_ item: ctoml_item) {
            let key = item.key.map { String(decoding: UnsafeRawBufferPointer(start: $0, count: item.key_length), as: UTF8.self) }
            switch item.kind {
            case ctoml_array, ctoml_table:
                open.append((item.kind == ctoml_table, key, Int(item.line), []))
            case ctoml_end:
                guard let container = open.popLast() else { return }
                let value: SettingValue?
                let elements = container.elements.map(\.value)
                if container.isTable {
                    // A table holds plain values and lists of them: `[keys]` maps names to actions.
                    let plain = elements.allSatisfy { $0.map(Self.isPlain) == true }
                    value = plain ? .table(Dictionary(container.elements.map { ($0.key ?? "", $0.value!) }) { _, last in last }) : nil
                } else {
                    let allowed = elements.allSatisfy { element in element.map { if case .list = $0 { false } else { true } } == true }
                    value = allowed ? .list(elements.map { $0! }) : nil
                }
                add(container.key, value, line: container.line)
            case ctoml_string:
                add(key, .string(String(decoding: UnsafeRawBufferPointer(start: item.text, count: item.text_length), as: UTF8.self)), line: Int(item.line))
            case ctoml_integer:
                add(key, Int(exactly: item.integer).map(SettingValue.integer), line: Int(item.line))
            case ctoml_float:
                add(key, .float(item.number), line: Int(item.line))
            case ctoml_boolean:
                add(key, .boolean(item.boolean), line: Int(item.line))
            default:
                add(key, nil, line: Int(item.line))
            }
        }

        private mutating func add(_ key: String?, _ value: SettingValue?, line: Int) {
            if open.count == 1 {
                settings.append((key ?? "", value, line))
            } else if !open.isEmpty {
                open[open.count - 1].elements.append((key, value))
            }
        }

        private static func isPlain(_ value: SettingValue) -> Bool {
            switch value {
            case .list(let values): return values.allSatisfy(isScalar)
            case .table: return false
            default: return true
            }
        }

        private static func isScalar(_ value: SettingValue) -> Bool {
            switch value {
            case .list, .table: return false
            default: return true
            }
        }
    }
}
