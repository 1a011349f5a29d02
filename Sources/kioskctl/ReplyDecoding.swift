import KioskCore

// Here, not in KioskCore, so the daemon does not carry a decoder it never uses.
/// Reading a line back (`kioskctl`, with Foundation's `JSONDecoder`):
/// any JSON value. An object's keys come in the decoder's order, not the
/// line's; integral numbers (`8` and `8.0` alike) read as ``int(_:)``.
extension JSONValue: Decodable {
    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    public init(from decoder: any Decoder) throws {
        if let object = try? decoder.container(keyedBy: Key.self) {
            var fields = JSONObject()
            for key in object.allKeys.sorted(by: { $0.stringValue < $1.stringValue }) {
                fields.append(key.stringValue, try object.decode(JSONValue.self, forKey: key))
            }
            self = .object(fields)
        } else if var array = try? decoder.unkeyedContainer() {
            var values: [JSONValue] = []
            while !array.isAtEnd { values.append(try array.decode(JSONValue.self)) }
            self = .array(values)
        } else {
            let single = try decoder.singleValueContainer()
            if single.decodeNil() {
                self = .null
            } else if let flag = try? single.decode(Bool.self) {
                self = .bool(flag)
            } else if let number = try? single.decode(Int.self) {
                self = .int(number)
            } else if let number = try? single.decode(Double.self) {
                self = .double(number)
            } else {
                self = .string(try single.decode(String.self))
            }
        }
    }
}
