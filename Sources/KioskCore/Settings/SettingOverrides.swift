/// What `set` changed over the config file and the flags, kept in the
/// state directory's `overrides.toml` so a restart keeps it
/// (docs/configuration.md): the one file kioskd writes its own settings
/// into, written by `kioskctl set` and `unset`, MQTT's and the web page's
/// settings, and read after the config file and the flags, over both.
public struct SettingOverrides: Equatable, Sendable {
    /// The file's name in the state directory.
    public static let fileName = "overrides.toml"

    /// The file's path in the state directory `directory`.
    public static func path(inStateDirectory directory: String) -> String { directory + "/" + fileName }

    public struct Entry: Equatable, Sendable {
        public let key: String
        public let value: SettingValue
        public init(key: String, value: SettingValue) {
            self.key = key
            self.value = value
        }
    }

    /// In the order they were set (a key set again moves to the end).
    public private(set) var entries: [Entry] = []

    public init(_ entries: [Entry] = []) { self.entries = entries }

    /// The settings an override cannot hold, and why: `state_dir` is where
    /// the file lives.
    public static func refusal(for key: String) -> String? {
        key == "state_dir" ? "state_dir is where the overrides are kept: write it in the config file" : nil
    }

    public var keys: [String] { entries.map(\.key) }

    public mutating func set(_ key: String, to value: SettingValue) {
        entries.removeAll { $0.key == key }
        entries.append(Entry(key: key, value: value))
    }

    /// Takes `key`'s override away; false when there was none.
    public mutating func remove(_ key: String) -> Bool {
        let before = entries.count
        entries.removeAll { $0.key == key }
        return entries.count != before
    }

    /// The file's text: TOML, one `key = value` line each (a section's
    /// setting as a dotted key, `mqtt.name = "hall"`), after a header
    /// saying what the file is.
    public var toml: String {
        var text = """
            # kioskd's overrides: the settings changed by `kioskctl set` (and the web
            # page, MQTT, Home Assistant) over the config file and the flags. kioskd
            # writes this file; `kioskctl unset SETTING` takes one away.

            """
        for entry in entries { text += "\(entry.key) = \(entry.value.toml)\n" }
        return text
    }
}
