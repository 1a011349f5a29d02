import Foundation
import Glibc
import Synchronization
import SystemCalls
import Testing

/// Whole files, written so that a reader finds the old one or the new one,
/// never part of one (``AtomicFile``), on the real kernel and file systems.
@Suite(.serialized) struct AtomicFileTests {
    func folder() throws -> String {
        let path = NSTemporaryDirectory() + "kioskd-atomic-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    func contents(_ path: String) -> [UInt8]? { FileManager.default.contents(atPath: path).map(Array.init) }

    @Test func aFileIsReplacedWholeAndNothingIsLeftBesideIt() throws {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/photo.jpg"
        try AtomicFile.write(Array("old".utf8), to: path)
        let new = (0..<3_000_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        try AtomicFile.write(new, to: path)
        #expect(contents(path) == new)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["photo.jpg"], "no temporary left")
    }

    /// A reader on another thread, reading the whole file as fast as it can
    /// while it is rewritten 40 times, each time with another 2 MB: every
    /// read is one whole version, never a mix or a short file.
    @Test func aReaderNeverSeesHalfAFile() throws {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/shown.jpg"
        let size = 2 << 20
        try AtomicFile.write([UInt8](repeating: 0, count: size), to: path)
        let done = Atomic<Bool>(false)
        let reads = Atomic<Int>(0), torn = Atomic<Int>(0)
        let reader = Thread {
            while !done.load(ordering: .acquiring) {
                guard let bytes = FileManager.default.contents(atPath: path) else { continue }
                reads.add(1, ordering: .relaxed)
                if bytes.count != size || bytes.first.map({ first in bytes.contains { $0 != first } }) ?? true { torn.add(1, ordering: .relaxed) }
            }
        }
        reader.start()
        for version in 1...40 { try AtomicFile.write([UInt8](repeating: UInt8(version), count: size), to: path) }
        // Let it read the last version at least once.
        let before = reads.load(ordering: .relaxed)
        while reads.load(ordering: .relaxed) < before + 2 { usleep(1000) }
        done.store(true, ordering: .releasing)
        #expect(torn.load(ordering: .relaxed) == 0, "\(torn.load(ordering: .relaxed)) of \(reads.load(ordering: .relaxed)) reads saw part of a file")
        #expect(contents(path) == [UInt8](repeating: 40, count: size))
    }

    /// A full disk (a 64 KB tmpfs, mounted for the test: root only): the
    /// write fails with the call and the reason, the old file is as it was,
    /// and no temporary is left taking space.
    @Test(.enabled(if: geteuid() == 0, "mounting a small tmpfs needs root"))
    func aFullDiskLeavesTheOldFileAsItWas() throws {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        guard mount("tmpfs", folder, "tmpfs", 0, "size=64k") == 0 else {
            Issue.record("cannot mount a tmpfs at \(folder): \(String(cString: strerror(errno)))")
            return
        }
        defer { umount(folder) }
        let path = folder + "/centred-picture"
        let old = Array("/srv/photos/01.jpg\n".utf8)
        try AtomicFile.write(old, to: path)
        do {
            try AtomicFile.write([UInt8](repeating: 7, count: 200_000), to: path)
            Issue.record("200 KB written to a 64 KB file system")
        } catch {
            #expect(error.errno == ENOSPC && error.call == "write", "\(error)")
            #expect(error.description.contains("No space left on device"), "\(error)")
        }
        #expect(contents(path) == old)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["centred-picture"])
        // The space is given back: a write that fits succeeds after.
        try AtomicFile.write(Array("/srv/photos/02.jpg\n".utf8), to: path)
        #expect(contents(path) == Array("/srv/photos/02.jpg\n".utf8))
    }
}
