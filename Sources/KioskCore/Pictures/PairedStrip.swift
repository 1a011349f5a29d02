/// `portrait_pairs = true`: the strip's slots laid over the playlist. Each
/// slot shows a unit of ``PortraitPairs`` (one file, or two portraits side
/// by side), and slot numbers count units the way they count files without
/// pairs: slot `lap U + u` shows unit `u` of `U`, so the loop is as endless
/// and `next` moves one slot, a pair at once.
///
/// Pairing needs each file's upright size, which only its header says. The
/// show reads headers in the background, nearest the centre first
/// (``unmeasured(around:in:limit:)``), and tells each one here
/// (``measured(_:size:)``); a file not yet measured pairs with nothing. A
/// unit whose pairing could still change (``isSettled(unit:in:)``) is not
/// decoded yet, so a picture never shows alone and then jumps into a pair.
///
/// The playlist's own rules (a change keeps the centred file in the centre)
/// work on files; ``itemSlot(ofStripSlot:)`` and ``stripSlot(ofItemSlot:)``
/// translate, keeping each slot's lap.
///
/// Memory: a size per measured file, by the hash of its path (16 bytes and
/// the table's slack), and per file its unit (8 bytes) and what pairing
/// needs of it (about 24 bytes). Two paths whose
/// 64-bit hashes collide (one chance in 10^10 with 100,000 files) share a
/// size, and at worst one of them pairs when it should not.
public struct PairedStrip: Sendable, Equatable {
    public let slot: PixelSize
    public let spacing: Int
    /// Upright sizes read so far, by path hash; nil for a file whose header could not be read.
    private var sizes: [Int: PixelSize?] = [:]
    /// `unitStarts[u]`: the first playlist item unit `u` shows (the next
    /// unit's start, or the end, says whether it shows two).
    private var unitStarts: [Int32] = []
    /// `unitOfItem[i]`: the unit that shows playlist item `i`.
    private var unitOfItem: [Int32] = []

    /// What pairing needs of each file of the playlist last laid out, by
    /// item: kept so that a batch of sizes costs one pass over the
    /// playlist with no hashing (the show lays out again after each).
    private struct FileFacts: Equatable, Sendable {
        var side: PortraitPairs.Side
        var measured: Bool
        var size: PixelSize?
    }
    /// nil: the facts are rebuilt at the next layout (a file was rewritten),
    /// even for an empty playlist.
    private var laidFiles: [String]?
    private var facts: [FileFacts] = []
    /// Sizes read since the last layout, to write into ``facts``.
    private var news: [String: PixelSize?] = [:]
    private var unmeasuredCount = 0

    public init(slot: PixelSize, spacing: Int) {
        self.slot = slot
        self.spacing = spacing
    }

    /// The same files' sizes for another slot or spacing (a reload): only the layout is redone.
    public func resized(slot: PixelSize, spacing: Int) -> PairedStrip {
        var strip = PairedStrip(slot: slot, spacing: spacing)
        strip.sizes = sizes
        return strip
    }

    public var unitCount: Int { unitStarts.count }

    /// The units, in playing order (``PortraitPairs``'s rule over the files measured).
    public var units: [PortraitPairs.Unit] { unitStarts.indices.map(unit) }

    private func unit(_ unit: Int) -> PortraitPairs.Unit {
        let first = Int(unitStarts[unit])
        let end = unit + 1 < unitStarts.count ? Int(unitStarts[unit + 1]) : unitOfItem.count
        return end - first == 2 ? .pair(first, first + 1) : .single(first)
    }

    /// Every file of the playlist last laid out has been measured.
    public var allMeasured: Bool { unmeasuredCount == 0 }

    /// Lays the strip over `playlist` again (its files or their sizes
    /// changed; `edit`, when given, is what changed it since the last
    /// layout). Returns true when any slot now shows other pictures.
    ///
    /// Cost: one pass over the files with arithmetic only, when sizes
    /// arrived or `edit` says which files came and went; a playlist changed
    /// otherwise (a shuffle) also hashes each file's name and path once
    /// (`make bench`: `pairs_layout_100k_ms`, `pairs_playlist_change_100k_ms`).
    @discardableResult
    public mutating func layOut(_ playlist: Playlist, after edit: PlaylistEdit? = nil) -> Bool {
        let files = playlist.files
        if let edit, laidFiles != nil, facts.count - edit.removed.count + edit.added.count == files.count {
            for item in edit.removed.reversed() {
                if !facts[item].measured { unmeasuredCount -= 1 }
                facts.remove(at: item)
            }
            for item in edit.added { facts.insert(facts(of: files[item]), at: item) }
            unmeasuredCount += edit.added.filter { !facts[$0].measured }.count
            laidFiles = files
        }
        if files != laidFiles {
            // The same storage compares equal at once: this is a changed playlist.
            laidFiles = files
            facts = files.map(facts(of:))
            unmeasuredCount = facts.reduce(0) { $0 + ($1.measured ? 0 : 1) }
        } else {
            for (path, size) in news {
                guard let item = playlist.item(of: path) else { continue }
                if !facts[item].measured { unmeasuredCount -= 1 }
                facts[item].measured = true
                facts[item].size = size
            }
        }
        news = [:]
        // PortraitPairs's walk, into flat arrays: no closure, no enum per unit.
        let count = facts.count
        var starts: [Int32] = []
        starts.reserveCapacity(count)
        var unitOf = [Int32](repeating: 0, count: count)
        var item = 0
        while item < count {
            let unit = Int32(starts.count)
            starts.append(Int32(item))
            unitOf[item] = unit
            if item + 1 < count,
               PortraitPairs.share((facts[item].side, facts[item].size), (facts[item + 1].side, facts[item + 1].size), slot: slot, spacing: spacing) {
                unitOf[item + 1] = unit
                item += 2
            } else {
                item += 1
            }
        }
        guard starts != unitStarts || unitOf.count != unitOfItem.count else { return false }
        unitStarts = starts
        unitOfItem = unitOf
        return true
    }

    private func facts(of file: String) -> FileFacts {
        let size = sizes[file.hashValue]
        return FileFacts(side: PortraitPairs.side(of: file), measured: size != nil, size: size ?? nil)
    }

    /// The header of `path` said its upright size is `size` (nil: it could
    /// not be read; the file pairs with nothing, and its decode says why).
    /// Takes effect at the next ``layOut(_:)``.
    public mutating func measured(_ path: String, size: PixelSize?) {
        sizes[path.hashValue] = .some(size)
        news[path] = .some(size)
    }

    /// A file was rewritten: its size is read again.
    public mutating func forget(_ path: String) {
        sizes[path.hashValue] = nil
        news[path] = nil
        laidFiles = nil   // its facts are rebuilt at the next layout
    }

    /// True once item `item`'s size is known (as of the last layout).
    public func isMeasured(item: Int) -> Bool { facts[item].measured }

    /// The unit that shows playlist item `item`.
    public func unit(ofItem item: Int) -> Int { Int(unitOfItem[item]) }

    /// The playlist items unit `unit` shows, left to right.
    public func items(ofUnit unit: Int) -> [Int] { self.unit(unit).items }

    /// True when unit `unit`'s pictures are decided: a pair, or a single
    /// file that can no longer pair with either neighbour (each of the two
    /// is on the wrong side for it, or both sizes are known).
    public func isSettled(unit: Int, in playlist: Playlist) -> Bool {
        guard case .single(let item) = self.unit(unit) else { return true }
        return !couldPair(item - 1) && !couldPair(item)
    }

    /// True when items `first` and `first + 1` may yet share a slot: their
    /// sides allow it and a size is still unknown.
    private func couldPair(_ first: Int) -> Bool {
        guard first >= 0, first + 1 < facts.count, facts[first].side == .left, facts[first + 1].side == .right else { return false }
        return !facts[first].measured || !facts[first + 1].measured
    }

    /// Up to `limit` files not yet measured, nearest item `item` first
    /// (after it, then before it, in turn, around the loop).
    public func unmeasured(around item: Int, in playlist: Playlist, limit: Int) -> [String] {
        guard !allMeasured, !playlist.isEmpty, facts.count == playlist.count else { return [] }
        var found: [Int] = []
        let index = playlist.index
        var distance = 0
        while distance <= playlist.count / 2 && found.count < limit {
            // Once round the loop: the two sides meet at the far item only.
            let sides = distance == 0 || 2 * distance == playlist.count ? [item + distance] : [item + distance, item - distance]
            for slot in sides {
                guard let at = index.item(forSlot: slot), !facts[at].measured else { continue }
                found.append(at)
                if found.count == limit { break }
            }
            distance += 1
        }
        return found.map { playlist[$0] }
    }

    /// The strip slot showing the file in playlist slot `slot` (`lap N + c`
    /// for `N` files becomes `lap U + unit(c)`).
    public func stripSlot(ofItemSlot slot: Int) -> Int {
        guard let item = CircularIndex(count: unitOfItem.count).item(forSlot: slot) else { return slot }
        return (slot - item) / unitOfItem.count * unitCount + Int(unitOfItem[item])
    }

    /// The playlist slot of the first file shown in strip slot `slot`.
    public func itemSlot(ofStripSlot slot: Int) -> Int {
        guard let unit = CircularIndex(count: unitCount).item(forSlot: slot) else { return slot }
        return (slot - unit) / unitCount * unitOfItem.count + Int(unitStarts[unit])
    }
}
