import ArgumentParser
import KioskCore

/// The command-line flags of the settings whose ``FlagScope`` is
/// `Scope.scope`, made from ``KioskSettings/table``: a setting's descriptor
/// is all a flag needs (its name, help, value name, default and whether it
/// is a switch), so adding a setting adds its flag, its help, its man page
/// entry and its shell completion.
///
/// ArgumentParser learns a command's arguments by reflecting on an empty
/// instance (`Mirror(reflecting:)`), and decodes the parsed values through
/// `init(from:)`. This type answers both from the table: its
/// ``customMirror`` lists one `Option` (or a `--x`/`--no-x` `Flag` for a
/// switch) per setting, where a hand-written type would declare stored
/// properties, and ``init(from:)`` reads them back by the same keys.
struct SettingFlags<Scope: SettingFlagScope>: ParsableArguments, CustomReflectable {
    /// The setting flags given, as (setting key, value), in the table's order.
    private(set) var given: [(name: String, value: String)] = []

    init() {}

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: SettingKey.self)
        for setting in Self.settings {
            let key = SettingKey(stringValue: setting.key)
            let value = setting.flagIsSwitch
                ? try container.decode(Flag<Bool?>.self, forKey: key).wrappedValue.map { String($0) }
                : try container.decode(Option<String?>.self, forKey: key).wrappedValue
            if let value { given.append((setting.key, value)) }
        }
    }

    static var settings: [SettingDescriptor] { KioskSettings.table.descriptors.filter { $0.flag == Scope.scope } }

    /// What ArgumentParser reads to learn the arguments: each setting's
    /// flag, labelled as a property wrapper would be (`_interval`).
    var customMirror: Mirror {
        Mirror(self, children: Self.settings.map { setting -> Mirror.Child in
            let help = ArgumentHelp(setting.flagHelp, valueName: setting.valueName)
            let flag: Any = setting.flagIsSwitch
                ? Flag<Bool?>(name: .customLong(setting.flagName), inversion: .prefixedNo, help: help)
                : Option<String?>(wrappedValue: nil, name: .customLong(setting.flagName), help: help)
            return (label: "_" + setting.key, value: flag)
        })
    }

    /// A setting's key as the decoder's coding key.
    private struct SettingKey: CodingKey {
        let stringValue: String
        init(stringValue: String) { self.stringValue = stringValue }
        var intValue: Int? { nil }
        init?(intValue: Int) { nil }
    }
}

/// Which commands a ``SettingFlags`` group is for.
protocol SettingFlagScope {
    static var scope: FlagScope { get }
}

/// `kioskd` (the show) and `kioskd snapshot`.
enum DrawingCommands: SettingFlagScope {
    static var scope: FlagScope { .drawing }
}

/// `kioskd` (the show) alone.
enum ShowCommandOnly: SettingFlagScope {
    static var scope: FlagScope { .show }
}
