import KioskCore
import Testing

/// A listing holds back pictures that may still be being copied, and lets
/// each in once it has been quiet for the settle time.
@Suite struct SettlingFilesTests {
    let settle = SettlingFiles.settleTime
    /// A file last written at `written` (Unix seconds), `size` bytes long.
    func file(_ size: Int64, written: Double) -> FileSignature {
        FileSignature(size: size, modified: Int64(written * 1e9), changed: Int64(written * 1e9))
    }

    @Test func aFileIsFreshForTheSettleTimeAfterItsLastWriteAndWhenDatedAhead() {
        let wall = 1_800_000_000.0
        #expect(file(10, written: wall - 0.5).isFresh(atWallTime: wall))
        #expect(file(10, written: wall - settle + 0.01).isFresh(atWallTime: wall))
        #expect(!file(10, written: wall - settle).isFresh(atWallTime: wall))
        #expect(!file(10, written: wall - 86_400).isFresh(atWallTime: wall))
        // A clock that disagrees (a share's server ahead of the kiosk): held until it is quiet here.
        #expect(file(10, written: wall + 30).isFresh(atWallTime: wall))
        // A rename sets the change time, not the modification time: an old photo moved in is not fresh.
        let moved = FileSignature(size: 10, modified: Int64((wall - 3600) * 1e9), changed: Int64(wall * 1e9))
        #expect(!moved.isFresh(atWallTime: wall))
    }

    /// A copy that keeps growing is held; once it stops, it joins a settle
    /// time later, and not before.
    @Test func aGrowingCopyIsHeldUntilItIsQuiet() {
        var settling = SettlingFiles()
        let wall = 1_800_000_000.0
        let entry = PlaylistEntry("/p/slow.jpg")
        settling.hold(entry, signature: file(4096, written: wall), at: 100)
        #expect(settling.due == 100 + settle)
        #expect(settling.dueFiles(at: 100 + settle - 0.01).isEmpty)
        #expect(settling.dueFiles(at: 100 + settle) == ["/p/slow.jpg"])
        // Grown since: held again.
        var now = 100 + settle
        let grown = settling.looked(at: entry.path, signature: file(8192, written: wall + settle - 0.1), now: now, wallNow: wall + settle)
        #expect(grown == nil)
        #expect(settling.due == now + settle)
        // Unchanged, but written too lately to be sure: held again.
        now += 0.5
        let recent = settling.looked(at: entry.path, signature: file(8192, written: wall + settle - 0.1), now: now, wallNow: wall + settle + 0.5)
        #expect(recent == nil)
        // Unchanged and quiet for the settle time: it joins, once.
        now += settle
        let settled = settling.looked(at: entry.path, signature: file(8192, written: wall + settle - 0.1), now: now, wallNow: wall + 2 * settle + 0.5)
        #expect(settled == entry)
        #expect(settling.held.isEmpty)
        #expect(settling.due == nil)
        let twice = settling.looked(at: entry.path, signature: file(8192, written: wall), now: now, wallNow: wall + 100)
        #expect(twice == nil)
    }

    @Test func aHeldFileThatIsDeletedClosedOrUnderAFolderThatLeftIsForgotten() {
        var settling = SettlingFiles()
        let signature = file(1, written: 0)
        for path in ["/p/a.jpg", "/p/b.jpg", "/p/trip/c.jpg", "/p/trip/d.jpg", "/p/tripe.jpg"] {
            settling.hold(PlaylistEntry(path), signature: signature, at: 0)
        }
        let deleted = settling.looked(at: "/p/a.jpg", signature: nil, now: settle, wallNow: 100)
        #expect(deleted == nil)
        let forgotten = settling.forget("/p/b.jpg")
        let again = settling.forget("/p/b.jpg")
        #expect(forgotten && !again)
        settling.forget(under: "/p/trip/")
        #expect(settling.held.keys.sorted() == ["/p/tripe.jpg"])
        settling.clear()
        #expect(settling.due == nil)
    }
}

/// Only mounts at, above or below the picture folder matter to it.
@Suite struct MountTableTests {
    static let mountinfo = """
        22 1 0:21 / / rw,relatime shared:1 - ext4 /dev/vda rw
        23 22 0:22 / /proc rw,nosuid,nodev,noexec,relatime shared:12 - proc proc rw
        24 22 0:23 / /var/lib rw,relatime shared:2 - ext4 /dev/vdb rw
        31 24 8:1 / /var/lib/kioskd/pictures/USB\\040stick rw,relatime - vfat /dev/sda1 rw
        40 22 0:45 / /run/user/1000 rw - tmpfs tmpfs rw
        41 22 0:46 / /var/libx rw - tmpfs tmpfs rw
        garbage line
        42 22 0:47 /x relative rw - tmpfs tmpfs rw
        """

    @Test func theFolderSeesTheMountsAboveAndBelowItAndNoOthers() {
        let table = MountTable(mountinfo: Self.mountinfo)
        #expect(table.mounts.count == 6)
        let relevant = table.relevant(to: "/var/lib/kioskd/pictures/")
        #expect(relevant.map(\.mountPoint) == ["/", "/var/lib", "/var/lib/kioskd/pictures/USB stick"])
        #expect(relevant.map(\.id) == [22, 24, 31])
        #expect(table.relevant(to: "/").count == 6)
    }

    /// A mount elsewhere leaves the folder's view as it was; one over it or inside it does not.
    @Test func aMountElsewhereChangesNothingForTheFolder() {
        let before = MountTable(mountinfo: Self.mountinfo)
        let elsewhere = MountTable(mountinfo: Self.mountinfo + "\n50 22 0:50 / /snap/core/1 ro - squashfs /dev/loop0 ro")
        #expect(elsewhere.relevant(to: "/var/lib/kioskd/pictures") == before.relevant(to: "/var/lib/kioskd/pictures"))
        let over = MountTable(mountinfo: Self.mountinfo + "\n51 24 0:51 / /var/lib/kioskd rw - nfs server:/photos rw")
        #expect(over.relevant(to: "/var/lib/kioskd/pictures") != before.relevant(to: "/var/lib/kioskd/pictures"))
        let inside = MountTable(mountinfo: Self.mountinfo + "\n52 24 0:52 / /var/lib/kioskd/pictures/2024 rw - nfs s:/x rw")
        #expect(inside.relevant(to: "/var/lib/kioskd/pictures") != before.relevant(to: "/var/lib/kioskd/pictures"))
        // The stick pulled: its mount is gone.
        let pulled = MountTable(mountinfo: Self.mountinfo.split(separator: "\n").filter { !$0.contains("USB") }.joined(separator: "\n"))
        #expect(pulled.relevant(to: "/var/lib/kioskd/pictures") != before.relevant(to: "/var/lib/kioskd/pictures"))
    }

    @Test func escapesAreDecodedAndBadOnesKept() {
        let table = MountTable(mountinfo: "1 0 0:1 / /a\\011b\\012c\\134d\\0 rw - x y rw\n2 0 0:1 / /e\\999 rw - x y rw")
        #expect(table.mounts.map(\.mountPoint) == ["/a\tb\nc\\d\\0", "/e\\999"])
    }
}
