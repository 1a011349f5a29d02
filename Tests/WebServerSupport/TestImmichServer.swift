import Foundation
import LoopbackSupport
#if canImport(Glibc)
import Glibc
#endif

/// A stand-in for an Immich server (Tests/Fixtures/immich/stand-in-immich.py)
/// on a free loopback port: it answers from a library the test describes
/// (``Library``), and checks every request and answer against Immich's
/// specification (``problems`` must stay empty). Immich itself needs its
/// own services and a Postgres with vector extensions, which these machines
/// cannot run.
public final class TestImmichServer {
    public let port: Int
    public let folder: String
    public let apiKey: String
    public var url: String { "http://127.0.0.1:\(port)/" }
    private var process: Process?

    /// One photo (or clip): its preview's bytes are `bytes`.
    public struct Asset {
        public var id: String
        public var name: String
        public var taken: String
        public var bytes: [UInt8]
        public var albums: [String] = []
        public var people: [String] = []
        public var favourite = false
        public var type = "IMAGE"
        public var version = "v1"
        public var description: String?
        /// A Live Photo's movie: another asset's id.
        public var live: String?
        /// A Live Photo's movie is hidden: served, never listed.
        public var hidden = false

        public init(_ id: String, _ name: String, taken: String, bytes: [UInt8]) {
            self.id = id
            self.name = name
            self.taken = taken
            self.bytes = bytes
        }
    }

    public struct Library {
        public var assets: [Asset] = []
        public var albums: [(id: String, name: String)] = []
        public var people: [(id: String, name: String)] = []
        public var memories: [(year: Int, assets: [String])] = []
        /// Answers that break the specification on purpose, by path: `invalid-json`, `wrong-frame`, `wrong-asset`, `unauthorized` (HTTP 401).
        public var hostile: [String: String] = [:]
        public init() {}
    }

    public struct ServerFailure: Error, CustomStringConvertible {
        public let description: String
    }

    public init(apiKey: String = "kiosk-test-key-0123456789") throws {
        port = try LoopbackPort.free()
        self.apiKey = apiKey
        folder = NSTemporaryDirectory() + "kioskd-immich-\(getpid())-\(port)"
        try FileManager.default.createDirectory(atPath: folder + "/files", withIntermediateDirectories: true)
        try set(Library())
        try start()
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// The library it answers from, from the next request on.
    public func set(_ library: Library) throws {
        var assets: [[String: Any]] = []
        for asset in library.assets {
            let file = folder + "/files/\(asset.id)-\(asset.version)"
            try Data(asset.bytes).write(to: URL(fileURLWithPath: file))
            var entry: [String: Any] = [
                "id": asset.id, "name": asset.name, "taken": asset.taken, "file": file, "albums": asset.albums, "people": asset.people,
                "favourite": asset.favourite, "type": asset.type, "version": asset.version,
            ]
            if let description = asset.description { entry["description"] = description }
            if let live = asset.live { entry["live"] = live }
            entry["hidden"] = asset.hidden
            assets.append(entry)
        }
        let described: [String: Any] = [
            "assets": assets, "albums": library.albums.map { ["id": $0.id, "name": $0.name] },
            "people": library.people.map { ["id": $0.id, "name": $0.name] },
            "memories": library.memories.map { ["year": $0.year, "assets": $0.assets] }, "hostile": library.hostile,
        ]
        let data = try JSONSerialization.data(withJSONObject: described)
        // Whole, by a rename: the server reads it at every request.
        try data.write(to: URL(fileURLWithPath: folder + "/library.json"), options: .atomic)
    }

    /// Every request it was sent, as `METHOD /path` (and `memories for DATE`).
    public var requests: [String] {
        ((try? String(contentsOfFile: folder + "/requests.log", encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    /// Where a request or an answer did not match Immich's specification, one line each.
    public var problems: [String] {
        ((try? String(contentsOfFile: folder + "/problems.log", encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    /// The Python with openapi-core that scripts/install-deps --vm made, else the
    /// system's (Debian 13 packages openapi-core: scripts/check-debian-swift).
    public static var python: String {
        let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
        let made = package + "/.build/test-python/bin/python3"
        return FileManager.default.isExecutableFile(atPath: made) ? made : "/usr/bin/python3"
    }

    static var script: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().path + "/Fixtures/immich/stand-in-immich.py"
    }

    /// Starts it (again, on the same port), answering within 30 s.
    public func start() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.python)
        process.arguments = [Self.script, String(port), folder + "/library.json", apiKey, folder]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: Self.touch(folder + "/server.err")))
        try process.run()
        self.process = process
        let deadline = Date().addingTimeInterval(30)
        while !LoopbackPort.accepts(port) {
            guard Date() < deadline, process.isRunning else {
                let log = (try? String(contentsOfFile: folder + "/server.err", encoding: .utf8)) ?? ""
                throw ServerFailure(description: "the stand-in Immich did not listen on port \(port) (\(Self.python)): \(log)")
            }
            usleep(10_000)
        }
    }

    private static func touch(_ path: String) -> String {
        FileManager.default.createFile(atPath: path, contents: nil)
        return path
    }

    /// Stops it at once.
    public func stop() {
        guard let process else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        self.process = nil
    }
}
