extension SettingValue {
    /// The value in TOML, as a config file line would hold it: strings
    /// quoted and escaped, lists in brackets, tables inline.
    public var toml: String {
        switch self {
        case .string(let text): return Self.quoted(text)
        case .integer(let number): return "\(number)"
        case .float(let number): return number.isFinite ? "\(number)" : (number.isNaN ? "nan" : number > 0 ? "inf" : "-inf")
        case .boolean(let on): return on ? "true" : "false"
        case .list(let values): return "[" + values.map(\.toml).joined(separator: ", ") + "]"
        case .table(let entries):
            if entries.isEmpty { return "{}" }
            return "{ " + entries.keys.sorted().map { "\(Self.key($0)) = \(entries[$0]!.toml)" }.joined(separator: ", ") + " }"
        }
    }

    private static func key(_ name: String) -> String {
        let bare = !name.isEmpty && name.unicodeScalars.allSatisfy {
            ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "_" || $0 == "-"
        }
        return bare ? name : quoted(name)
    }

    private static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                let hex = String(scalar.value, radix: 16, uppercase: true)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}

extension SettingValue {
    /// Names as a list of strings, or (from a flag) one string of names
    /// separated by commas, each trimmed, empty ones left out; repeats
    /// dropped, the first kept. Nil for any other value: the format says
    /// what it expected.
    var names: [String]? {
        let names: [String]
        switch self {
        case .list(let values):
            var strings: [String] = []
            for case .string(let name) in values { strings.append(name) }
            guard strings.count == values.count else { return nil }
            names = strings
        case .string(let text):
            names = text.split(separator: ",").map { String($0).trimmingWhitespace() }.filter { !$0.isEmpty }
        default:
            return nil
        }
        var seen = Set<String>()
        return names.filter { seen.insert($0).inserted }
    }
}
