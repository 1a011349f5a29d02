/// The `[mqtt]` table: whether and how a kiosk joins an MQTT broker (Home
/// Assistant, a fleet). No broker (the default) means no MQTT at all.
public struct MQTTSettings: Hashable, Sendable {
    /// Where the broker is; nil: MQTT off.
    public var broker: MQTTBroker? = nil
    /// The kiosk's name in its topics (`kioskd/<name>/...`) and in Home
    /// Assistant; nil: the host name, made one topic level (``MQTTTopics/topicSafe(_:)``).
    public var name: String? = nil
    /// Groups whose commands and beat this kiosk follows.
    public var groups: [String] = []
    /// Where Home Assistant looks for discovery configs; empty: no discovery.
    public var discoveryPrefix = "homeassistant"
    public var username: String? = nil
    /// A file holding the password (its first line). A bare name is looked
    /// up in systemd's credentials folder (`$CREDENTIALS_DIRECTORY`, filled by `LoadCredential=`).
    public var passwordFile: String? = nil
    /// Certificates the broker's must chain to (PEM); nil: the system's (`/etc/ssl/certs`).
    public var caFile: String? = nil
    /// The kiosk's own certificate and key (PEM), for a broker that asks for one.
    public var clientCert: String? = nil
    public var clientKey: String? = nil
    /// Seconds between keepalives; the broker declares the kiosk gone
    /// (its will: `offline`) after 1.5 times this without a word.
    public var keepalive = 30

    public init() {}

    /// The longest name or group kept: a topic level and a Home Assistant object id.
    public static let maximumNameLength = 64

    /// The name in use: the setting, else `hostName` made topic-safe.
    public func effectiveName(hostName: String) -> String { name ?? MQTTTopics.topicSafe(hostName) }

    /// What the kiosk's TLS settings say is wrong, if anything, for the log
    /// at start and on reload (the settings themselves read fine one by one).
    public var problem: String? {
        guard let broker else { return nil }
        if !broker.usesTLS, caFile != nil || clientCert != nil || clientKey != nil {
            return "mqtt.ca_file, client_cert and client_key are for mqtts:// brokers; \(broker) is plain MQTT"
        }
        if (clientCert == nil) != (clientKey == nil) {
            return "mqtt.client_cert and mqtt.client_key go together: give both or neither"
        }
        if passwordFile != nil, username == nil {
            return "mqtt.password_file is given without mqtt.username: brokers take a password only with a user name"
        }
        return nil
    }
}

extension SettingFormat where Value == MQTTBroker? {
    /// `broker`: `mqtt://host:1883`, `mqtts://host:8883`, or `"none"` (nil).
    static var mqttBroker: Self {
        SettingFormat(read: { value in
            guard case .string(let text) = value else { throw SettingProblem("expected \"none\" or a broker like \"mqtt://homeassistant.local:1883\"") }
            do { return try MQTTBroker.parse(text) } catch { throw SettingProblem("\(error)") }
        }, write: { .string($0?.description ?? "none") })
    }
}

extension SettingFormat where Value == String? {
    /// `name`: one topic level, letters, digits, `_` and `-` (Home
    /// Assistant's object ids allow no more); nil: the host name.
    static var mqttName: Self {
        SettingFormat(read: { value in
            guard case .string(let text) = value, MQTTSettings.isName(text) else {
                throw SettingProblem(
                    "expected a name of letters, digits, _ and -, at most \(MQTTSettings.maximumNameLength), e.g. \"\(MQTTTopics.topicSafe(value.written))\"")
            }
            return text
        }, write: { $0.map(SettingValue.string) })
    }

    /// A path to a file (a password, a certificate), or nil.
    static func file(example: String) -> Self {
        SettingFormat(read: { value in
            guard case .string(let text) = value, !text.isEmpty, !text.contains("\0") else {
                throw SettingProblem("expected the path of a file, e.g. \"\(example)\"")
            }
            return text
        }, write: { $0.map(SettingValue.string) })
    }

    /// `username`: any text without a NUL, or nil.
    static var userName: Self {
        SettingFormat(read: { value in
            guard case .string(let text) = value, !text.isEmpty, !text.contains("\0"), text.utf8.count <= 256 else {
                throw SettingProblem("expected a user name, e.g. \"kiosk\"")
            }
            return text
        }, write: { $0.map(SettingValue.string) })
    }
}

extension SettingFormat where Value == [String] {
    /// `groups`: a list of names, or (from a flag) names separated by commas.
    static var mqttGroups: Self {
        SettingFormat(read: { value in
            guard let names = value.names else { throw SettingProblem("expected a list of group names, e.g. [\"lobby\", \"shop\"]") }
            for name in names where !MQTTSettings.isName(name) {
                throw SettingProblem(
                    "a group is named with letters, digits, _ and -, at most \(MQTTSettings.maximumNameLength), e.g. \"\(MQTTTopics.topicSafe(name))\"",
                    value: name)
            }
            return names
        }, write: { .list($0.map(SettingValue.string)) })
    }
}

extension SettingFormat where Value == String {
    /// `discovery_prefix`: a topic prefix, or "" for no discovery.
    static var discoveryPrefix: Self {
        SettingFormat(read: { value in
            guard case .string(let text) = value, !text.contains("+"), !text.contains("#"), !text.contains("\0"),
                  !text.hasPrefix("/"), !text.hasSuffix("/"), text.utf8.count <= 256 else {
                throw SettingProblem("expected a topic prefix without wildcards, e.g. \"homeassistant\", or \"\" for no discovery")
            }
            return text
        }, write: { .string($0) })
    }
}

extension SettingFormat where Value == Int {
    /// `keepalive`: 5 to 3600 seconds.
    static var keepalive: Self {
        SettingFormat(read: { value in
            guard let seconds = value.number, seconds == seconds.rounded(), (5...3600).contains(seconds) else {
                throw SettingProblem("expected whole seconds from 5 to 3600, e.g. 30")
            }
            return Int(seconds)
        }, write: { .integer($0) })
    }
}

extension MQTTSettings {
    /// One topic level that Home Assistant takes as an object id.
    static func isName(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= maximumNameLength
            && text.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "_" || $0 == "-" }
    }
}
