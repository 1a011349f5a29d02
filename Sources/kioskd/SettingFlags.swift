import ArgumentParser
import KioskCore

/// Command-line flags for settings. ArgumentParser declares options as
/// stored properties (its help, man page and shell completions come from
/// them), so each flag is one line, `@Option(help: .setting("interval"))
/// var interval: String?`, and everything else comes from the setting's
/// descriptor in ``KioskSettings/table``: the help, the value's name, the
/// default in the help, and which setting the flag sets (the property's
/// name is the flag's). kioskdTests fails when the table and the
/// declarations differ: a flag the table does not list, or a descriptor
/// whose flag is not declared where its ``FlagScope`` says.
extension ArgumentHelp {
    static func setting(_ key: String) -> ArgumentHelp {
        guard let setting = KioskSettings.table[key] else { preconditionFailure("no setting \(key) in KioskSettings.table") }
        return ArgumentHelp(setting.help + " Default: " + setting.shownDefault + ".", valueName: setting.valueName)
    }
}

/// The setting flags given in `arguments` (a parsed ``LayoutOptions`` or
/// ``ShowSettingOptions``), as (setting key, value), in declaration order.
func settingFlags(in arguments: some ParsableArguments) -> [(name: String, value: String)] {
    Mirror(reflecting: arguments).children.compactMap { child in
        guard let setting = declaredSetting(child.label) else { return nil }
        if let option = child.value as? Option<String?> { return option.wrappedValue.map { (setting.key, $0) } }
        if let flag = child.value as? Flag<Bool?> { return flag.wrappedValue.map { (setting.key, String($0)) } }
        return nil
    }
}

/// The setting a flag property declares, from its name: `_rescanInterval` is `--rescan-interval`.
func declaredSetting(_ label: String?) -> SettingDescriptor? {
    guard let label, label.hasPrefix("_") else { return nil }
    var flag = ""
    for character in label.dropFirst() {
        if character.isUppercase { flag += "-" + character.lowercased() } else { flag.append(character) }
    }
    return KioskSettings.table.descriptors.first { $0.flagName == flag }
}
