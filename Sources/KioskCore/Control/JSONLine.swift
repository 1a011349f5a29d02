/// A value in a control-socket reply or event: what JSON can hold.
public enum JSONValue: Equatable, Sendable {
    case string(String)
    case int(Int)
    /// Written with Swift's shortest round-trip digits; not finite is `null`.
    case double(Double)
    case bool(Bool)
    case null
    case object(JSONObject)
    indirect case array([JSONValue])
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
    ///
    /// Written straight into bytes: a busy kiosk answers thousands of
    /// `status` a second on the render loop's thread (`make bench`, control).
    public var line: [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(64 + fields.count * 24)
        write(to: &bytes)
        bytes.append(UInt8(ascii: "\n"))
        return bytes
    }

    func write(to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "{"))
        for (n, field) in fields.enumerated() {
            if n > 0 { bytes.append(UInt8(ascii: ",")) }
            JSONValue.write(string: field.key, to: &bytes)
            bytes.append(UInt8(ascii: ":"))
            field.value.write(to: &bytes)
        }
        bytes.append(UInt8(ascii: "}"))
    }
}

extension JSONValue {
    func write(to bytes: inout [UInt8]) {
        switch self {
        case .string(let string): Self.write(string: string, to: &bytes)
        case .int(let number): bytes.append(contentsOf: String(number).utf8)
        case .double(let number): bytes.append(contentsOf: (number.isFinite ? number.description : "null").utf8)
        case .bool(let flag): bytes.append(contentsOf: (flag ? "true" : "false").utf8)
        case .null: bytes.append(contentsOf: "null".utf8)
        case .object(let object): object.write(to: &bytes)
        case .array(let values):
            bytes.append(UInt8(ascii: "["))
            for (n, value) in values.enumerated() {
                if n > 0 { bytes.append(UInt8(ascii: ",")) }
                value.write(to: &bytes)
            }
            bytes.append(UInt8(ascii: "]"))
        }
    }

    /// A JSON string: UTF-8 passes through (a Swift string is valid
    /// UTF-8), quotes, backslashes and control characters are escaped.
    static func write(string: String, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        defer { bytes.append(UInt8(ascii: "\"")) }
        // Most strings (keys, file names) need no escaping: copied whole.
        if !string.utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
            bytes.append(contentsOf: string.utf8)
            return
        }
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case UInt8(ascii: "\n"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case UInt8(ascii: "\r"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case UInt8(ascii: "\t"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case ..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                bytes.append(contentsOf: Array("\\u00".utf8) + [hex[Int(byte >> 4)], hex[Int(byte & 15)]])
            default: bytes.append(byte)
            }
        }
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral {
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .int(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
}

/// Reading a value back: kioskctl's replies, kioskd-web's.
extension JSONValue {
    /// The string it is, if it is one.
    public var string: String? { if case .string(let value) = self { value } else { nil } }
    /// The whole number it is, if it is one.
    public var int: Int? { if case .int(let value) = self { value } else { nil } }
    /// The number it is, whole or not.
    public var number: Double? {
        switch self {
        case .int(let value): Double(value)
        case .double(let value): value
        default: nil
        }
    }
    public var bool: Bool? { if case .bool(let value) = self { value } else { nil } }
    public var object: JSONObject? { if case .object(let value) = self { value } else { nil } }
    public var array: [JSONValue]? { if case .array(let values) = self { values } else { nil } }
    /// The strings of an array of strings.
    public var strings: [String]? {
        guard case .array(let values) = self else { return nil }
        return values.compactMap(\.string)
    }
}
