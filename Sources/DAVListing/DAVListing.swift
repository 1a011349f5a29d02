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
            Reader.from(context).start(Element(name))
        }, { context, name in
            Reader.from(context).end(Element(name))
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
    /// The elements open, innermost last.
    var open: [Element] = []
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

    func start(_ element: Element) {
        open.append(element)
        text.removeAll(keepingCapacity: true)
        switch element {
        case .multistatus: sawMultistatus = true
        case .response:
            href = nil
            response = DAVEntry(href: "", isFolder: false)
        case .propstat:
            pending = DAVEntry(href: "", isFolder: false)
            pendingOK = false
        case .collection where open.count >= 2 && open[open.count - 2] == .resourcetype:
            pending.isFolder = true
        default: break
        }
    }

    func text(_ bytes: UnsafeRawBufferPointer) {
        guard text.count + bytes.count <= DAVListing.longestText else { return stop(.textTooLong) }
        text.append(contentsOf: bytes)
    }

    func end(_ name: Element) {
        let element = open.popLast() ?? name
        // Only the texts kept are made strings.
        var value: String { String(decoding: text, as: UTF8.self).trimmingWhitespace }
        switch element {
        case .href where open.last == .response: href = value
        case .getetag:
            let etag = value
            pending.etag = etag.isEmpty ? nil : etag
        case .getcontentlength: pending.size = Int64(value)
        case .status where open.last == .propstat:
            // "HTTP/1.1 200 OK"
            pendingOK = value.split(separator: " ").dropFirst().first == "200"
        case .propstat where pendingOK:
            if pending.isFolder { response.isFolder = true }
            if let etag = pending.etag { response.etag = etag }
            if let size = pending.size { response.size = size }
        case .response:
            guard let href else { break }
            guard entries.count < DAVListing.mostEntries else { return stop(.tooManyEntries) }
            response.href = href
            entries.append(response)
        default: break
        }
        text.removeAll(keepingCapacity: true)
    }
}

/// The elements of a `multistatus` that are read, told apart by their
/// name's bytes as Expat gives them ("DAV: href": the namespace, a space,
/// the local name), with no string made for each; any other is `other`.
enum Element {
    case multistatus, response, href, propstat, resourcetype, collection, getetag, getcontentlength, status, other

    init(_ name: UnsafePointer<XML_Char>?) {
        guard let name else {
            self = .other
            return
        }
        self = name.withMemoryRebound(to: UInt8.self, capacity: 1) { bytes in
            // A shorter name ends (its NUL) before a byte of the prefix could be passed.
            for (offset, byte) in Self.namespace.enumerated() where bytes[offset] != byte { return .other }
            let start = bytes + Self.namespace.count
            var length = 0
            while start[length] != 0 { length += 1 }
            let local = UnsafeBufferPointer(start: start, count: length)
            for (element, spelled) in Self.names where local.elementsEqual(spelled) { return element }
            return .other
        }
    }

    private static let namespace: [UInt8] = Array("DAV: ".utf8)
    private static let names: [(Element, [UInt8])] = [
        (.href, Array("href".utf8)), (.getetag, Array("getetag".utf8)), (.getcontentlength, Array("getcontentlength".utf8)),
        (.status, Array("status".utf8)), (.propstat, Array("propstat".utf8)), (.response, Array("response".utf8)),
        (.resourcetype, Array("resourcetype".utf8)), (.collection, Array("collection".utf8)), (.multistatus, Array("multistatus".utf8)),
    ]
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
