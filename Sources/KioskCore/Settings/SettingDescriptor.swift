/// When a changed setting takes effect after a reload (SIGHUP, `kioskctl reload`).
public enum ReloadPolicy: String, Hashable, Sendable, CaseIterable {
    /// At once: the centred picture keeps its place.
    case live
    /// The display is opened again with the new value, the show drawn on it where it was.
    case newDisplay = "new display"
    /// The folder is watched anew; the centred picture stays if it is still in it.
    case newFolder = "new folder"
    /// The MQTT connection is made again with the new value (the kiosk goes
    /// `offline` and back `online` within a second).
    case reconnect = "reconnects"
    /// Logged as waiting; the old value stays in force until kioskd restarts.
    case restart
    /// Not kioskd's: kioskd-web (the `[web]` table) reads it when it starts.
    case webRestart = "restarts kioskd-web"
}

/// Which of kioskd's commands take a setting as a command-line flag.
public enum FlagScope: Hashable, Sendable {
    /// In the config file only.
    case none
    /// Every command that draws the strip: `kioskd` (the show) and `kioskd snapshot`.
    case drawing
    /// The show alone (`kioskd`, `kioskd show`).
    case show
}

/// How one kind of value is read from the config file or a flag, and
/// written back as the file would spell it. `read` throws a
/// ``SettingProblem`` saying what was expected; ``KioskSettings/set(_:to:)``
/// adds the setting's name and the value.
public struct SettingFormat<Value>: Sendable {
    let read: @Sendable (SettingValue) throws -> Value
    let write: @Sendable (Value) -> SettingValue?

    public init(read: @escaping @Sendable (SettingValue) throws -> Value, write: @escaping @Sendable (Value) -> SettingValue?) {
        self.read = read
        self.write = write
    }
}

/// Why a value does not fit its setting (`expected true or false`), and
/// the part of the value at fault when it is not the whole (`KEY_X = "jump"` in `[keys]`).
public struct SettingProblem: Error {
    public let reason: String
    public let value: String?

    public init(_ reason: String, value: String? = nil) {
        self.reason = reason
        self.value = value
    }
}

/// One setting, whole: its name in the file and its table, its flag and
/// help, how it is read and written, its default, and when a reload
/// applies it. ``KioskSettings/table`` lists them all; the config file,
/// the flags, `kioskd check-config`, the reload and
/// docs/configuration-reference.md all come from it.
///
/// The default is the typed settings' own initial value (``MotionSettings``
/// and the rest, which the show reads), written through the descriptor:
/// one place, not two.
public struct SettingDescriptor: Sendable {
    /// The name inside its table: `interval`, or `broker` in `[mqtt]`.
    public let name: String
    /// The TOML table the setting sits in (`[mqtt]`); nil: the top of the file.
    public let table: String?
    public let flag: FlagScope
    /// The flag is a switch, `--portrait-pairs` and `--no-portrait-pairs`, not `--name <value>`.
    public let flagIsSwitch: Bool
    /// The flag's value in help texts: `--interval <s>`.
    public let valueName: String
    /// One or two sentences for `--help` and the configuration reference.
    public let help: String
    public let reload: ReloadPolicy
    /// What the setting means when it has no written value (``write(_:)`` is nil).
    public let unwritten: String?

    private let apply: @Sendable (inout KioskSettings, SettingValue) throws -> Void
    private let written: @Sendable (KioskSettings) -> SettingValue?
    private let copy: @Sendable (inout KioskSettings, KioskSettings) -> Void

    /// A setting stored at `field`, read and written by `format`.
    /// `writtenWhen`: whether the value is written at all (`image_width`
    /// is not while `visible` says the width).
    public init<Value>(
        _ name: String, in table: String? = nil, _ field: WritableKeyPath<KioskSettings, Value> & Sendable,
        _ format: SettingFormat<Value>, flag: FlagScope, switch flagIsSwitch: Bool = false, valueName: String, reload: ReloadPolicy,
        unwritten: String? = nil, writtenWhen: (@Sendable (KioskSettings) -> Bool)? = nil, help: String
    ) {
        self.name = name
        self.table = table
        self.flag = flag
        self.flagIsSwitch = flagIsSwitch
        self.valueName = valueName
        self.help = help
        self.reload = reload
        self.unwritten = unwritten
        apply = { settings, value in settings[keyPath: field] = try format.read(value) }
        written = { settings in writtenWhen?(settings) == false ? nil : format.write(settings[keyPath: field]) }
        copy = { settings, other in settings[keyPath: field] = other[keyPath: field] }
    }

    /// The name as errors, `check-config` and the reload's log lines say it: `interval`, `mqtt.broker`.
    public var key: String { table.map { "\($0).\(name)" } ?? name }

    /// The command-line flag, without its dashes: `rescan-interval`, `mqtt-broker`.
    public var flagName: String { String(key.map { $0 == "_" || $0 == "." ? "-" : $0 }) }

    /// The value as the config file would spell it, so that setting it
    /// back changes nothing; nil when it cannot be written (``unwritten`` says what it means).
    public func write(_ settings: KioskSettings) -> SettingValue? { written(settings) }

    /// The value a kiosk starts from.
    public var defaultValue: SettingValue? { written(KioskSettings()) }

    /// The flag's help in `--help`, the man page and the completions: the help, then the default.
    public var flagHelp: String { help + " Default: " + shownDefault + "." }

    /// The default for a reader: `8`, `ease-in-out`, `false`, or what no value means.
    public var shownDefault: String {
        switch defaultValue {
        case nil: return unwritten ?? "none"
        case .list(let values)? where values.isEmpty: return "none"
        case .table(let entries)? where entries.isEmpty: return "none"
        case let value?: return Self.shown(value)
        }
    }

    /// Its value in `settings` as `set` and its flag take it (`8`, not
    /// `8.0`; text without quotes), or nil when it has none.
    public func shownValue(in settings: KioskSettings) -> String? { write(settings).map(Self.shown) }

    private static func shown(_ value: SettingValue) -> String {
        switch value {
        case .float(let number) where number == number.rounded() && abs(number) < 1e15: "\(Int(number))"
        default: value.toml.hasPrefix("\"") ? value.written : value.toml
        }
    }

    /// Sets this setting in `settings` from `value`, or says why not.
    public func set(_ settings: inout KioskSettings, to value: SettingValue) throws(SettingError) {
        do {
            try apply(&settings, value)
        } catch let problem as SettingProblem {
            throw SettingError(setting: key, value: problem.value ?? value.written, reason: problem.reason)
        } catch {
            throw SettingError(setting: key, value: value.written, reason: "\(error)")
        }
    }

    /// Gives `settings` this setting's value from `other` (a reload keeping what waits for a restart).
    public func keep(in settings: inout KioskSettings, from other: KioskSettings) { copy(&settings, other) }

    /// Whether `set` takes it: a setting a reload applies at once or with
    /// a new look at the folder. The display, the devices, the socket and
    /// MQTT stay the config file's (one of them wrong, kept over a restart,
    /// could keep the show from starting with nothing left to set it right),
    /// and so does `state_dir`, where the overrides are kept.
    public var takesSet: Bool { (reload == .live || reload == .newFolder) && SettingOverrides.refusal(for: key) == nil }

    /// Whether the web page may change it: a setting `set` takes that names
    /// no file, folder, server or account. `images`, `webdav.url` or a
    /// `password_file` changed from the page would let whoever knows the
    /// page's password point kioskd at a file it can read (a credential)
    /// and a server of theirs to send it to; those stay with whoever may
    /// edit the config or use the control socket.
    public var pageMayChange: Bool { takesSet && !["path", "dir", "url", "user"].contains(valueName) }
}
