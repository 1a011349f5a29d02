import JSONDocument
import KioskCore
import Testing

/// JSON from outside, read with Jansson: what a server's answer holds, and
/// a clear refusal, never a crash, for what is not JSON or is hostile.
struct JSONDocumentTests {
    @Test func aDocumentIsReadWhole() throws {
        let value = try JSONDocument.parse(Array(#"{"a": [1, 2.5, "é\u00e9", true, null], "b": {"c": false}}"#.utf8))
        #expect(value == .object(["a": .array([.int(1), .double(2.5), .string("éé"), .bool(true), .null]), "b": .object(["c": .bool(false)])]))
        #expect(try JSONDocument.parse(Array("[]".utf8)) == .array([]))
    }

    @Test(arguments: [
        (#"{"assets": {"items": [{"id": "#, "line 1"),
        ("", "line 1"),
        (#"{"a": 1} trailing"#, "end of file expected"),
        (#"{"a": 1, "a": 2}"#, "duplicate object key"),
        ("[\"\u{FFFD}\"]".replacingOccurrences(of: "\u{FFFD}", with: "\\ud800"), "invalid Unicode"),
        (#"["a\u0000b"]"#, "\\u0000 is not allowed"),
    ])
    func whatIsNotJSONIsRefusedWithJanssonsWords(text: String, words: String) {
        #expect {
            try JSONDocument.parse(Array(text.utf8))
        } throws: { error in
            guard case .notJSON(let why) = error as? JSONDocumentError else { return false }
            return why.contains(words) && why.contains("column")
        }
    }

    @Test func invalidUTF8AndDeepNestingAreRefused() {
        #expect(throws: JSONDocumentError.self) { try JSONDocument.parse([0x5B, 0x22, 0xC3, 0x28, 0x22, 0x5D]) }
        let deep = Array((String(repeating: "[", count: 40) + String(repeating: "]", count: 40)).utf8)
        #expect(throws: JSONDocumentError.tooDeep) { try JSONDocument.parse(deep) }
        let bomb = Array(String(repeating: "[", count: 100_000).utf8)
        #expect(throws: JSONDocumentError.self, "Jansson's own bound on nesting, before any tree") { try JSONDocument.parse(bomb) }
    }
}
