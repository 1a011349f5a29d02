import CLinux
import Glibc
import HTTPServer
import ImageCodecs
import KioskCore
import PasswordHashing
import SystemCalls

/// One upload's files, written into the picture folder as they arrive:
/// each into a hidden temporary file (the folder's watcher passes hidden
/// names by), checked by its first bytes against the codec registry,
/// synced, and renamed into place only when the whole upload arrived. So
/// the show never sees half a photo, and a refused or broken upload (too
/// large, not a picture, a full disk, a client gone) leaves the folder as
/// it was. Names are cleaned (``UploadName``), never replace a file, and
/// get the extension their content says when theirs does not.
final class UploadReceiver: HTTPFormReceiver {
    struct Limits {
        let bytesPerFile: Int64
        let files: Int
    }

    /// A file received whole, waiting for the upload's end.
    private struct Received {
        let temporary: String
        let name: String
    }

    private let folder: String
    private let limits: Limits
    private let log: (String) -> Void
    private var received: [Received] = []
    private var refusal: (status: Int, message: String)?
    // The file being received.
    private var fd: Int32 = -1
    private var temporary = ""
    private var sentName = ""
    private var cleanedName = ""
    private var head: [UInt8] = []
    private var written: Int64 = 0
    private var recognised = false

    init(folder: String, limits: Limits, log: @escaping (String) -> Void) {
        self.folder = folder
        self.limits = limits
        self.log = log
    }

    /// The temporaries of uploads a stop cut short (a crash, a power cut):
    /// removed at start, before any upload of this run begins.
    static func removeLeftovers(in folder: String, log: (String) -> Void) {
        guard let names = try? directoryEntryNames(folder) else { return }
        for bytes in names where bytes.starts(with: Array(temporaryPrefix.utf8)) && bytes.reversed().starts(with: Array(temporarySuffix.utf8).reversed()) {
            let path = folder + "/" + String(decoding: bytes, as: UTF8.self)
            if unlink(path) == 0 { log("removed \(path), an upload a stop cut short") }
        }
    }

    static let temporaryPrefix = ".upload-"
    static let temporarySuffix = ".partial"

    func field(_ name: String, _ value: [UInt8]) -> Bool { true }

    func fileBegins(field: String, fileName: String) -> Bool {
        guard endFile() else { return false }
        guard received.count < limits.files else {
            return refuse(413, "an upload takes at most \(limits.files) files (web.upload_count); send the rest in another")
        }
        sentName = fileName
        guard let cleaned = UploadName.cleaned(fileName) else { return refuse(400, "\"\(fileName)\" has no name left once cleaned: rename it") }
        cleanedName = cleaned
        temporary = folder + "/" + Self.temporaryPrefix + RandomToken.make(bytes: 9) + Self.temporarySuffix
        // Group-writable as the folder is (2775, group kioskd); the unit's UMask=0002 keeps it so.
        fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o664)
        guard fd >= 0 else { return refuse(500, "cannot write into the picture folder: \(SystemCallError.last("open", path: temporary))") }
        head = []
        written = 0
        recognised = false
        return true
    }

    func fileData(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard fd >= 0 else { return false }
        written += Int64(bytes.count)
        guard written <= limits.bytesPerFile else {
            return refuse(413, "\(cleanedName) is larger than \(ByteSizeText.written(limits.bytesPerFile)), the most web.upload_max takes")
        }
        if !recognised {
            head += bytes.prefix(PictureCodecs.sniffLength - head.count)
            if head.count >= PictureCodecs.sniffLength, !recognise() { return false }
        }
        var offset = 0
        while offset < bytes.count {
            let count = write(fd, bytes.baseAddress! + offset, bytes.count - offset)
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return refuseWriting(SystemCallError.last("write", path: temporary)) }
            offset += count
        }
        return true
    }

    func finish(complete: Bool) -> HTTPResponse {
        if complete, refusal == nil { _ = endFile() }
        guard complete, refusal == nil else {
            discard()
            let (status, message) = refusal ?? (400, "the upload was cut short or is not a form the page sends")
            log("upload refused: \(message)")
            return WebApp.json(status, [("ok", .bool(false)), ("error", .string(message))])
        }
        var added: [JSONValue] = []
        for file in received {
            guard let name = place(file) else {
                discard()
                return WebApp.json(500, [("ok", .bool(false)), ("error", .string("cannot move \(file.name) into the picture folder"))] + addedSoFar(added))
            }
            added.append(.string(name))
        }
        received = []
        try? AtomicFile.flush(folder: folder)
        log("uploaded: \(added.map { if case .string(let name) = $0 { name } else { "" } }.joined(separator: ", "))")
        return WebApp.json(200, [("ok", .bool(true)), ("added", .array(added))])
    }

    func abandon() { discard() }

    // MARK: Steps

    /// Whether the first bytes are a picture or clip the show plays; the
    /// name's extension follows the content.
    private func recognise() -> Bool {
        guard let codec = PictureCodecs.codec(sniffing: head) else {
            return refuse(415, "\(cleanedName) is not a picture or clip kioskd shows (\(PictureCodecs.names))")
        }
        recognised = true
        if !codec.fileExtensions.contains(UploadName.fileExtension(of: cleanedName)), let first = codec.fileExtensions.first {
            cleanedName += "." + first
        }
        return true
    }

    /// Syncs and closes the file being received; false (and refused) when it is not whole.
    private func endFile() -> Bool {
        guard fd >= 0 else { return true }
        let open = fd
        fd = -1
        guard recognised || recognise() else {
            close(open)
            return false
        }
        // A failed sync or close can mean the data never reached the disk (a full card).
        let synced = fsync(open) == 0 ? nil : SystemCallError.last("fsync", path: temporary)
        let closed = close(open) == 0 ? nil : SystemCallError.last("close", path: temporary)
        if let failure = synced ?? closed { return refuseWriting(failure) }
        received.append(Received(temporary: temporary, name: cleanedName))
        temporary = ""
        return true
    }

    /// Renames a received file to its name, or the first free alternative; nil when none can be had.
    private func place(_ file: Received) -> String? {
        for n in 1...999 {
            let name = n == 1 ? file.name : UploadName.alternative(file.name, n)
            // RENAME_NOREPLACE: a photo of the same name, there or arriving
            // meanwhile, is never replaced; the folder's watcher sees IN_MOVED_TO.
            if renameat2(AT_FDCWD, file.temporary, AT_FDCWD, folder + "/" + name, UInt32(RENAME_NOREPLACE)) == 0 { return name }
            guard errno == EEXIST else { return nil }
        }
        return nil
    }

    /// A write that failed: a full disk is said so (507 Insufficient Storage).
    private func refuseWriting(_ failure: SystemCallError) -> Bool {
        let full = failure.errno == ENOSPC || failure.errno == EDQUOT
        return refuse(full ? 507 : 500, "\(cleanedName) was not kept: " + (full ? "the kiosk's disk is full" : failure.description))
    }

    private func refuse(_ status: Int, _ message: String) -> Bool {
        if refusal == nil { refusal = (status, message) }
        return false
    }

    /// Removes every temporary of this upload.
    private func discard() {
        if fd >= 0 { close(fd) }
        fd = -1
        if !temporary.isEmpty { unlink(temporary) }
        for file in received { unlink(file.temporary) }
        received = []
    }

    private func addedSoFar(_ added: [JSONValue]) -> [(key: String, value: JSONValue)] {
        added.isEmpty ? [] : [("added", .array(added))]
    }
}
