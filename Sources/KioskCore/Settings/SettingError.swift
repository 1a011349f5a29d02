/// A setting the operator gave that cannot be used, with the setting's name as
/// it appears in the config file, the value as given, and why.
public struct SettingError: Error, Hashable, Sendable, CustomStringConvertible {
    public let setting: String
    public let value: String
    public let reason: String

    public init(setting: String, value: String, reason: String) {
        self.setting = setting
        self.value = value
        self.reason = reason
    }

    public var description: String { "invalid \(setting) \"\(value)\": \(reason)" }
}
