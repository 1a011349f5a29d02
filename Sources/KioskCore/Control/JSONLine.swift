/// A value in a control-socket reply or event: what JSON can hold.
public enum JSONValue: Equatable, Sendable {
    case string(String)
    case int(Int)
    /// Written with Swift's shortest round-trip digits; not finite is `null`.
    case double(Double)
    case bool(Bool)
    case null
    case object(JSONObject)
}

/// A JSON object whose keys keep the order they were given in.
///
/// Why not Foundation's `JSONEncoder`: it writes keys in hash (or sorted)
/// order, and the protocol promises `{"ok":...` first on every reply so a
/// shell script can test the start of a line. The replies are flat and few,
/// so this writer is small; every reply in the tests and the fuzz run is
/// read back with Foundation's `JSONSerialization` to prove it is JSON.
public struct JSONObject: Equatable, Sendable, ExpressibleByDictionaryLiteral {
    public static func + (a: JSONObject, b: JSONObject) -> JSONObject { JSONObject(a.fields + b.fields) }

    public private(set) var fields: [(key: String, value: JSONValue)]

    public init(_ fields: [(key: String, value: JSONValue)] = []) { self.fields = fields }

    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        fields = elements.map { (key: $0.0, value: $0.1) }
    }

    /// Adds a key at the end (keys are not checked for repeats: the callers write fixed ones).
    public mutating func append(_ key: String, _ value: JSONValue) { fields.append((key, value)) }

    public subscript(key: String) -> JSONValue? { fields.first { $0.key == key }?.value }

    public static func == (a: JSONObject, b: JSONObject) -> Bool {
        a.fields.count == b.fields.count && zip(a.fields, b.fields).allSatisfy { $0.key == $1.key && $0.value == $1.value }
    }

    /// The object as one line of UTF-8 JSON, ending in `\n`.
    public var line: [UInt8] {
        var text = ""
        write(to: &text)
        text += "\n"
        return Array(text.utf8)
    }

    func write(to text: inout String) {
        text += "{"
        for (n, field) in fields.enumerated() {
            if n > 0 { text += "," }
            JSONValue.string(field.key).write(to: &text)
            text += ":"
            field.value.write(to: &text)
        }
        text += "}"
    }
}

extension JSONValue {
    func write(to text: inout String) {
        switch self {
        case .string(let string):
            text += "\""
            for scalar in string.unicodeScalars {
                switch scalar {
                case "\"": text += "\\\""
                case "\\": text += "\\\\"
                case "\n": text += "\\n"
                case "\r": text += "\\r"
                case "\t": text += "\\t"
                case _ where scalar.value < 0x20:
                    let hex = String(scalar.value, radix: 16)
                    text += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                default: text.unicodeScalars.append(scalar)
                }
            }
            text += "\""
        case .int(let number): text += String(number)
        case .double(let number): text += number.isFinite ? "\(number)" : "null"
        case .bool(let flag): text += flag ? "true" : "false"
        case .null: text += "null"
        case .object(let object): object.write(to: &text)
        }
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral {
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .int(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
}
