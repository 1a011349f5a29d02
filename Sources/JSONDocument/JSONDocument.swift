import CJansson
import KioskCore
import SystemCalls

/// A JSON document from outside (an Immich server's answer), read with
/// Jansson into KioskCore's ``JSONValue``, where the pure code that knows
/// the answers' shapes reads it (``ImmichAnswers``).
///
/// Jansson reads strictly: invalid UTF-8, a duplicate key, a NUL inside a
/// string, and anything after the document are refused; its parser bounds
/// nesting (2,048 levels), and the tree handed on is bounded again here to
/// ``deepest`` levels, deeper than any answer kioskd reads. The document's
/// size is bounded by whoever fetched it (the HTTP transfer's limit).
public enum JSONDocument {
    /// The deepest nesting handed on: Immich's answers nest six levels.
    public static let deepest = 32

    /// `keeping`: the only object members kept, at every level, by name
    /// (nil: all). A reader that knows the few fields it reads skips
    /// making the rest: an Immich asset has some 45 values, kioskd reads 12.
    public static func parse(_ bytes: [UInt8], keeping: Set<String>? = nil) throws(JSONDocumentError) -> JSONValue {
        do { try OnDemandLibrary.jansson.open() } catch { throw .missingLibrary(error.description) }
        var error = json_error_t()
        let root = bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) {
                json_loadb($0.baseAddress, $0.count, Int(JSON_REJECT_DUPLICATES), &error)
            }
        }
        guard let root else {
            let words = withUnsafeBytes(of: error.text) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            throw .notJSON("\(words) at line \(error.line), column \(error.column)")
        }
        defer { json_decref(root) }
        return try value(of: root, depth: 0, keeping: keeping)
    }

    private static func value(of node: UnsafeMutablePointer<json_t>, depth: Int, keeping: Set<String>?) throws(JSONDocumentError) -> JSONValue {
        guard depth < deepest else { throw .tooDeep }
        switch node.pointee.type {
        case JSON_OBJECT:
            var fields: [(key: String, value: JSONValue)] = []
            var iterator = json_object_iter(node)
            while let at = iterator {
                guard let key = json_object_iter_key(at), let member = json_object_iter_value(at) else { break }
                let name = String(decoding: UnsafeRawBufferPointer(start: key, count: json_object_iter_key_len(at)), as: UTF8.self)
                if keeping?.contains(name) ?? true { fields.append((name, try value(of: member, depth: depth + 1, keeping: keeping))) }
                iterator = json_object_iter_next(node, at)
            }
            return .object(JSONObject(fields))
        case JSON_ARRAY:
            var elements: [JSONValue] = []
            let count = json_array_size(node)
            elements.reserveCapacity(count)
            for index in 0..<count {
                guard let element = json_array_get(node, index) else { continue }
                elements.append(try value(of: element, depth: depth + 1, keeping: keeping))
            }
            return .array(elements)
        case JSON_STRING:
            guard let text = json_string_value(node) else { return .string("") }
            return .string(String(decoding: UnsafeRawBufferPointer(start: text, count: json_string_length(node)), as: UTF8.self))
        case JSON_INTEGER:
            return .int(Int(clamping: json_integer_value(node)))
        case JSON_REAL:
            return .double(json_real_value(node))
        case JSON_TRUE: return .bool(true)
        case JSON_FALSE: return .bool(false)
        default: return .null
        }
    }
}

/// Why a document was refused.
public enum JSONDocumentError: Error, Equatable, Sendable, CustomStringConvertible {
    case missingLibrary(String)
    /// Not JSON: Jansson's words, with the line and column.
    case notJSON(String)
    case tooDeep

    public var description: String {
        switch self {
        case .missingLibrary(let why): why
        case .notJSON(let why): "not JSON: \(why)"
        case .tooDeep: "nested deeper than \(JSONDocument.deepest) levels"
        }
    }
}
