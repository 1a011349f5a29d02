import CExpat
import SystemCalls

/// One file or folder in a WebDAV server's answer to `PROPFIND` (RFC 4918's
/// `multistatus`): its `href` as the server wrote it (percent escapes and
/// all), and what tells a change: its ETag and its length.
public struct DAVEntry: Equatable, Sendable {
    public var href: String
    public var isFolder: Bool
    public var etag: String?
    public var size: Int64?

    public init(href: String, isFolder: Bool, etag: String? = nil, size: Int64? = nil) {
        self.href = href
        self.isFolder = isFolder
        self.etag = etag
        self.size = size
    }
}

/// Reads a `PROPFIND` answer with Expat, as a stream of elements: nothing
/// of the document is kept but the entries. A hostile server's answer is
/// refused with a clear error, never followed:
/// - a document that declares an entity (the "billion laughs" XML bomb, an
///   external entity naming a file) is refused at its declaration, before
///   any expansion; Expat's own bound on expansion stays on besides;
/// - a text longer than ``longestText`` bytes (an `href` of megabytes), or
///   more than ``mostEntries`` entries, stop the parse;
/// - what is not XML is refused with Expat's words and the line.
///
/// Properties are taken from a `propstat` whose status is 200 only (a
/// server lists the properties it lacks under 404).
public enum DAVListing {
    public static let longestText = 16 << 10
    public static let mostEntries = 1_000_000

    public static func parse(_ body: [UInt8]) throws(DAVListingError) -> [DAVEntry] {
        do { try OnDemandLibrary.expat.open() } catch { throw .missingLibrary(error.description) }
        // Namespaced names arrive as "URI NAME": "DAV: href".
        guard let parser = XML_ParserCreateNS(nil, CChar(UInt8(ascii: " "))) else { throw .notXML("Expat could not make a parser") }
        defer { XML_ParserFree(parser) }
        let reader = Reader(parser: parser)
        let context = Unmanaged.passUnretained(reader).toOpaque()
        XML_SetUserData(parser, context)
        XML_SetElementHandler(parser, { context, name, _ in
            Reader.from(context).start(name.map { String(cString: $0) } ?? "")
        }, { context, name in
            Reader.from(context).end(name.map { String(cString: $0) } ?? "")
        })
        XML_SetCharacterDataHandler(parser) { context, text, count in
            guard let text, count > 0 else { return }
            Reader.from(context).text(UnsafeRawBufferPointer(start: text, count: Int(count)))
        }
        XML_SetEntityDeclHandler(parser) { context, _, _, _, _, _, _, _, _ in
            Reader.from(context).stop(.entityDeclared)
        }
        let status = body.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { XML_Parse(parser, $0.baseAddress, Int32(clamping: $0.count), 1) }
        }
        if let refusal = reader.refusal { throw refusal }
        guard status == XML_STATUS_OK else {
            let words = XML_ErrorString(XML_GetErrorCode(parser)).map { String(cString: $0) } ?? "not XML"
            throw .notXML("\(words) at line \(XML_GetCurrentLineNumber(parser))")
        }
        guard reader.sawMultistatus else { throw .notMultistatus }
        return reader.entries
    }
}

/// Why an answer was refused.
public enum DAVListingError: Error, Equatable, Sendable, CustomStringConvertible {
    case missingLibrary(String)
    case notXML(String)
    /// XML, but not a WebDAV `multistatus`.
    case notMultistatus
    case entityDeclared
    case textTooLong
    case tooManyEntries

    public var description: String {
        switch self {
        case .missingLibrary(let words): words
        case .notXML(let words): "the answer is not XML: \(words)"
        case .notMultistatus: "the answer is not a WebDAV multistatus"
        case .entityDeclared: "the answer declares an XML entity (an XML bomb, or a file it names): refused"
        case .textTooLong: "the answer holds a text longer than \(DAVListing.longestText) bytes: refused"
        case .tooManyEntries: "the answer lists more than \(DAVListing.mostEntries) entries: refused"
        }
    }
}

/// The parse's state, reached from Expat's callbacks through their user data.
private final class Reader {
    let parser: XML_Parser
    var entries: [DAVEntry] = []
    var refusal: DAVListingError?
    var sawMultistatus = false
    /// The DAV: element names open, innermost last (other namespaces as "").
    var open: [String] = []
    var text: [UInt8] = []
    /// The response being read, and the propstat's properties before its status says whether they count.
    var href: String?
    var response = DAVEntry(href: "", isFolder: false)
    var pending = DAVEntry(href: "", isFolder: false)
    var pendingOK = false

    init(parser: XML_Parser) { self.parser = parser }

    static func from(_ context: UnsafeMutableRawPointer?) -> Reader { Unmanaged<Reader>.fromOpaque(context!).takeUnretainedValue() }

    func stop(_ why: DAVListingError) {
        guard refusal == nil else { return }
        refusal = why
        XML_StopParser(parser, 0)
    }

    /// "DAV: href" is "href"; any other namespace is "".
    private func local(_ name: String) -> String { name.hasPrefix("DAV: ") ? String(name.dropFirst(5)) : "" }

    func start(_ name: String) {
        let element = local(name)
        open.append(element)
        text = []
        switch element {
        case "multistatus": sawMultistatus = true
        case "response":
            href = nil
            response = DAVEntry(href: "", isFolder: false)
        case "propstat":
            pending = DAVEntry(href: "", isFolder: false)
            pendingOK = false
        case "collection" where open.dropLast().last == "resourcetype":
            pending.isFolder = true
        default: break
        }
    }

    func text(_ bytes: UnsafeRawBufferPointer) {
        guard text.count + bytes.count <= DAVListing.longestText else { return stop(.textTooLong) }
        text.append(contentsOf: bytes)
    }

    func end(_ name: String) {
        let element = open.popLast() ?? local(name)
        let value = String(decoding: text, as: UTF8.self).trimmingWhitespace
        switch element {
        case "href" where open.last == "response": href = value
        case "getetag": pending.etag = value.isEmpty ? nil : value
        case "getcontentlength": pending.size = Int64(value)
        case "status" where open.last == "propstat":
            // "HTTP/1.1 200 OK"
            pendingOK = value.split(separator: " ").dropFirst().first == "200"
        case "propstat" where pendingOK:
            if pending.isFolder { response.isFolder = true }
            if let etag = pending.etag { response.etag = etag }
            if let size = pending.size { response.size = size }
        case "response":
            guard let href else { break }
            guard entries.count < DAVListing.mostEntries else { return stop(.tooManyEntries) }
            response.href = href
            entries.append(response)
        default: break
        }
        text = []
    }
}

extension String {
    fileprivate var trimmingWhitespace: String {
        let utf8 = self.utf8
        guard let first = utf8.firstIndex(where: { !Self.isSpace($0) }) else { return "" }
        let last = utf8.lastIndex(where: { !Self.isSpace($0) })!
        return String(self[first...last])
    }

    private static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }
}
