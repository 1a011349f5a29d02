import HTTPServer

/// A small form's fields (the login's password, a command line), answered
/// by `answer` once all of it arrived. A file in it is refused.
final class FormFields: HTTPFormReceiver {
    private var fields: [String: String] = [:]
    private let answer: ([String: String]) -> HTTPResponse

    init(_ answer: @escaping ([String: String]) -> HTTPResponse) { self.answer = answer }

    func field(_ name: String, _ value: [UInt8]) -> Bool {
        guard fields.count < 16 else { return false }
        fields[name] = String(decoding: value, as: UTF8.self)
        return true
    }

    func fileBegins(field: String, fileName: String) -> Bool { false }
    func fileData(_ bytes: UnsafeRawBufferPointer) -> Bool { false }

    func finish(complete: Bool) -> HTTPResponse {
        guard complete else { return WebApp.json(400, [("ok", .bool(false)), ("error", .string("expected a small form of text fields"))]) }
        return answer(fields)
    }

    func abandon() {}
}
