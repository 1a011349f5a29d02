import KioskCore
import Testing

/// The folder's changes reach the show in batches: a copy of many files
/// is a few playlist changes, not one per file.
@Suite struct FolderChangeBatchTests {
    /// Files copied in one after another, 1/16 s apart: nothing goes out
    /// while they keep coming, until half a second after the first.
    @Test func aSteadyCopyGoesOutEveryHalfSecond() {
        var batch = FolderChangeBatch()
        var sent: [(at: Double, files: Int)] = []
        for step in 0..<30 {
            let now = Double(step) / 16
            batch.event(at: now)
            batch.added(PlaylistEntry("/p/\(step).jpg"), at: now)
            if let change = batch.takeIfDue(at: now) { sent.append((now, change.added.count)) }
        }
        #expect(sent.map(\.at) == [0.5, 1.0625, 1.625])
        #expect(sent.map(\.files) == [9, 9, 9])
        // The rest goes once the folder is quiet for 0.1 s.
        #expect(batch.due == 29.0 / 16 + FolderChangeBatch.quietTime)
        #expect(batch.takeIfDue(at: 1.9) == nil)
        #expect(batch.takeIfDue(at: 1.92)?.added.count == 3)
        #expect(batch.due == nil)
    }

    /// A file counts once in a batch: its last version arrives; one that
    /// arrives and leaves again within the batch only leaves.
    @Test func aFileCountsOnceInABatch() {
        var batch = FolderChangeBatch()
        batch.added(PlaylistEntry("/p/a.jpg", rank: 1), at: 0)
        batch.added(PlaylistEntry("/p/a.jpg", rank: 2), at: 0.01)
        batch.added(PlaylistEntry("/p/b.jpg"), at: 0.02)
        batch.removed("/p/b.jpg", at: 0.03)
        batch.removed("/p/c.jpg", at: 0.04)
        batch.added(PlaylistEntry("/p/c.jpg"), at: 0.05)
        let change = batch.take()
        #expect(change?.added == [PlaylistEntry("/p/a.jpg", rank: 2), PlaylistEntry("/p/c.jpg")])
        #expect(change?.removed == ["/p/b.jpg"])
        #expect(batch.take() == nil)
    }

    /// A subfolder that leaves takes what the batch held under it; events
    /// that change no picture (a hidden file) still hold the batch back.
    @Test func aSubfolderLeavingTakesItsFilesAndAnyEventKeepsTheBatchWaiting() {
        var batch = FolderChangeBatch()
        batch.added(PlaylistEntry("/p/trip/1.jpg"), at: 0)
        batch.added(PlaylistEntry("/p/home.jpg"), at: 0)
        batch.removed("/p/trip/2.jpg", at: 0)
        batch.forget(under: "/p/trip/")
        #expect(batch.change == PlaylistChange(added: [PlaylistEntry("/p/home.jpg")]))
        batch.event(at: 0.08)
        #expect(batch.takeIfDue(at: 0.15) == nil)
        #expect(batch.takeIfDue(at: 0.18)?.added.map(\.path) == ["/p/home.jpg"])
        batch.added(PlaylistEntry("/p/x.jpg"), at: 1)
        batch.clear()
        #expect(batch.take() == nil && batch.due == nil)
    }
}
