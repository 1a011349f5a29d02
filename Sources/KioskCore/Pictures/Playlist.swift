/// The files the show plays, in order, under a strip that never ends: slot
/// `k` shows item `k mod count` (``CircularIndex``).
///
/// The list is always sorted (``PlaylistEntry/precedes(_:_:)``), so a file
/// that arrives or leaves is found by binary search: a change costs an
/// insertion into the array, never a new sort or a walk over every file,
/// even with 100,000 pictures. Files come and go while the show runs (the
/// live folder, a broken photo dropping out), and the rule for every change
/// is: **the picture in the centre stays in the centre.** Each change
/// returns the slot number that now holds what the given slot held, and the
/// show renumbers its strip by the difference; nothing moves on screen. If
/// the centred file itself leaves, the file that now sorts after it (the
/// next picture) takes its place.
///
/// Slot `k = lap N + c` (with `0 <= c < N`) keeps its lap: it becomes
/// `lap N' + c'`, where `N'` is the new count and `c'` the centred file's new
/// index (`c' = N'` is the first file of the next lap).
///
/// Memory: the paths, 8 bytes of rank each, and for each file whose rank
/// is not 0 (none in name order) a dictionary entry from the hash of its
/// path to its rank: 16 bytes and the table's slack, where a path key
/// would cost twice that. Two paths whose 64-bit hashes collide (about one
/// chance in 10^10 with 100,000 files) are told apart by a walk over the list.
public struct Playlist: Hashable, Sendable {
    public private(set) var files: [String]
    /// `ranks[i]` is `files[i]`'s rank.
    private var ranks: [Int64]
    /// The ranks that are not 0, by the hash of the path: how a leaving
    /// file (which can no longer be stat'ed) is found.
    private var rankOf: [Int: Int64]
    /// Each Live Photo still's movie (``PlaylistEntry/companion``): a few entries, by path.
    private var companions: [String: String]

    /// `files` in name order (each file once).
    public init(_ files: [String] = []) { self.init(entries: files.map { PlaylistEntry($0) }) }

    /// `entries` in their order (each path once; the last entry for a path
    /// wins). `sorted`: they already are (a folder listing), so they are
    /// taken as they are, without sorting again.
    public init(entries: [PlaylistEntry], sorted alreadySorted: Bool = false) {
        var sorted = alreadySorted ? entries : Self.uniqueAndSorted(entries)
        files = sorted.map(\.path)
        ranks = sorted.map(\.rank)
        companions = Dictionary(sorted.compactMap { entry in entry.companion.map { (entry.path, $0) } }, uniquingKeysWith: { _, last in last })
        sorted.removeAll { $0.rank == 0 }
        rankOf = Dictionary(sorted.map { ($0.path.hashValue, $0.rank) }, uniquingKeysWith: { _, last in last })
    }

    public var count: Int { files.count }
    public var isEmpty: Bool { files.isEmpty }
    public var index: CircularIndex { CircularIndex(count: files.count) }
    public subscript(item: Int) -> String { files[item] }
    public var entries: [PlaylistEntry] { files.indices.map(entry) }

    /// The movie of the Live Photo still at `path`, if it is one.
    public func companion(of path: String) -> String? { companions.isEmpty ? nil : companions[path] }

    /// A file's name as the control socket shows it and `goto` takes it: the path's last part.
    public static func fileName(of path: String) -> String {
        var trimmed = Substring(path)
        while trimmed.last == "/", trimmed.count > 1 { trimmed = trimmed.dropLast() }
        guard let slash = trimmed.lastIndex(of: "/"), slash != trimmed.indices.last else { return String(trimmed) }
        return String(trimmed[trimmed.index(after: slash)...])
    }

    /// The item whose file is named `name` (``fileName(of:)``), if any.
    public func item(named name: String) -> Int? { files.firstIndex { Self.fileName(of: $0) == name } }

    /// The item of the file at `path`, if it is in the playlist (binary search).
    public func item(of path: String) -> Int? {
        let rank = rankOf[path.hashValue]
        let at = insertionPoint(of: PlaylistEntry(path, rank: rank ?? 0))
        if at < files.count && files[at] == path { return at }
        // Another path with the same hash: the rank was its.
        return rank == nil ? nil : files.firstIndex(of: path)
    }

    public func contains(_ path: String) -> Bool { item(of: path) != nil }

    /// The item shown in slot `k`, or nil when the playlist is empty.
    public func item(forSlot slot: Int) -> Int? { index.item(forSlot: slot) }

    /// The file shown in slot `k`.
    public func file(forSlot slot: Int) -> String? { item(forSlot: slot).map { files[$0] } }

    /// Removes `item`; returns the slot that now shows what `slot` showed
    /// (or, if that was `item`, the file after it).
    public mutating func remove(at item: Int, keepingSlot slot: Int) -> Int {
        precondition(files.indices.contains(item))
        let newSlot = index.slotKeepingItem(atSlot: slot, afterRemoving: item)
        rankOf[files[item].hashValue] = nil
        companions[files[item]] = nil
        files.remove(at: item)
        ranks.remove(at: item)
        return newSlot
    }

    /// Applies a batch of changes at once; see ``PlaylistEdit``. Files to
    /// remove that are not in the playlist are passed over; a file added
    /// that is already there with the same rank stays where it is (it was
    /// rewritten; a new companion is taken), and with another rank it moves
    /// (it leaves and arrives).
    public mutating func apply(_ change: PlaylistChange, keepingSlot slot: Int) -> PlaylistEdit {
        let arrivingPaths = Set(change.added.map(\.path))
        var leaving: [Int] = change.removed.filter { !arrivingPaths.contains($0) }.compactMap(item(of:))
        var arriving: [PlaylistEntry] = []
        for entry in Self.uniqueAndSorted(change.added) {
            if let item = item(of: entry.path) {
                if ranks[item] == entry.rank {
                    companions[entry.path] = entry.companion
                    continue
                }
                leaving.append(item)
            }
            arriving.append(entry)
        }
        leaving = Array(Set(leaving)).sorted()
        guard !leaving.isEmpty || !arriving.isEmpty else { return PlaylistEdit(slot: slot) }

        let centred = item(forSlot: slot).map { (item: $0, entry: entry($0), lap: (slot - $0) / count) }
        for item in leaving { companions[files[item]] = nil }
        for entry in arriving { companions[entry.path] = entry.companion }
        if leaving.count + arriving.count <= Self.mostSingleEdits {
            for item in leaving.reversed() {
                rankOf[files[item].hashValue] = nil
                files.remove(at: item)
                ranks.remove(at: item)
            }
            for entry in arriving { insert(entry) }
        } else {
            merge(removing: leaving, adding: arriving)
        }
        var edit = PlaylistEdit(slot: slot, removed: leaving, added: arriving.compactMap { item(of: $0.path) }.sorted())
        // The centred file (wherever it sorts now), or what now sorts after
        // it (the next picture), keeps the centre, on the same lap.
        if let centred, !files.isEmpty {
            edit.slot = centred.lap * files.count + (item(of: centred.entry.path) ?? insertionPoint(of: centred.entry))
        }
        return edit
    }

    /// Replaces the whole list (a rescan, a new order) by the changes that
    /// make it `entries` (sorted by ``PlaylistEntry/precedes(_:_:)``, each
    /// path once, as a folder listing is): files that stayed keep their
    /// pictures and the centre keeps its file, as in
    /// ``apply(_:keepingSlot:)``. One walk over both lists; only the
    /// differences are applied.
    ///
    /// `scope`: only the files whose path begins with it are replaced (one
    /// library's listing, in a show fed by several, ``LibraryStatus``); the
    /// others stay where they sort. `entries` are all within it.
    public mutating func replace(with entries: [PlaylistEntry], keepingSlot slot: Int, within scope: String? = nil) -> PlaylistEdit {
        var change = PlaylistChange()
        var i = 0, j = 0
        while i < files.count || j < entries.count {
            if i < files.count, let scope, !files[i].hasPrefix(scope) {
                i += 1
            } else if i < files.count, j < entries.count, files[i] == entries[j].path, ranks[i] == entries[j].rank,
               companion(of: files[i]) == entries[j].companion {
                i += 1
                j += 1
            } else if j == entries.count || (i < files.count && PlaylistEntry.precedes(entry(i), entries[j])) {
                change.removed.append(files[i])
                i += 1
            } else {
                change.added.append(entries[j])
                j += 1
            }
        }
        return apply(change, keepingSlot: slot)
    }

    /// Shuffles the files at `places` among those places, each taking the
    /// rank of its new place (`order = "shuffle"`, see ``ShuffleRounds``):
    /// the rest of the playlist stays as it is.
    public mutating func shuffle(_ places: Range<Int>, using random: inout some RandomNumberGenerator) {
        precondition(places.lowerBound >= 0 && places.upperBound <= files.count)
        files[places].shuffle(using: &random)
        for item in places where ranks[item] != 0 { rankOf[files[item].hashValue] = ranks[item] }
    }

    /// Files under `folder` (a path ending in `/`): a folder that was
    /// removed or moved away. One walk over the list.
    public func files(under folder: String) -> [String] { files.filter { $0.hasPrefix(folder) } }

    // MARK: Order

    /// Past this many files changed at once, a batch is merged in one pass
    /// rather than inserted one at a time (each insertion moves the tail).
    static let mostSingleEdits = 16

    /// Item `item`'s file and rank.
    public func entry(_ item: Int) -> PlaylistEntry { PlaylistEntry(files[item], rank: ranks[item], companion: companion(of: files[item])) }

    /// The first item that does not sort before `entry` (`count` when all do).
    public func insertionPoint(of entry: PlaylistEntry) -> Int {
        var low = 0, high = files.count
        while low < high {
            let middle = (low + high) / 2
            if PlaylistEntry.precedes(PlaylistEntry(files[middle], rank: ranks[middle]), entry) { low = middle + 1 } else { high = middle }
        }
        return low
    }

    private mutating func insert(_ entry: PlaylistEntry) {
        let at = insertionPoint(of: entry)
        files.insert(entry.path, at: at)
        ranks.insert(entry.rank, at: at)
        if entry.rank != 0 { rankOf[entry.path.hashValue] = entry.rank }
    }

    /// Removes the items `leaving` (ascending) and adds `arriving` (sorted, none present) in one pass.
    private mutating func merge(removing leaving: [Int], adding arriving: [PlaylistEntry]) {
        var newFiles: [String] = [], newRanks: [Int64] = []
        let total = files.count - leaving.count + arriving.count
        newFiles.reserveCapacity(total)
        newRanks.reserveCapacity(total)
        var next = 0, skip = 0
        for item in files.indices {
            if skip < leaving.count && leaving[skip] == item {
                rankOf[files[item].hashValue] = nil
                skip += 1
                continue
            }
            let staying = PlaylistEntry(files[item], rank: ranks[item])
            while next < arriving.count && PlaylistEntry.precedes(arriving[next], staying) {
                newFiles.append(arriving[next].path)
                newRanks.append(arriving[next].rank)
                next += 1
            }
            newFiles.append(staying.path)
            newRanks.append(staying.rank)
        }
        for entry in arriving[next...] {
            newFiles.append(entry.path)
            newRanks.append(entry.rank)
        }
        for entry in arriving where entry.rank != 0 { rankOf[entry.path.hashValue] = entry.rank }
        files = newFiles
        ranks = newRanks
    }

    private static func uniqueAndSorted(_ entries: [PlaylistEntry]) -> [PlaylistEntry] {
        var last: [String: Int] = [:]
        for (at, entry) in entries.enumerated() { last[entry.path] = at }
        let unique = last.count == entries.count ? entries : entries.indices.filter { last[entries[$0].path] == $0 }.map { entries[$0] }
        return unique.sorted(by: PlaylistEntry.precedes)
    }
}

/// A file in the playlist and where it sorts.
public struct PlaylistEntry: Hashable, Sendable {
    public var path: String
    /// What sorts first: 0 for every file in name order; the time a photo
    /// was taken or modified (`order = "taken"`, `"mtime"`); a shuffle's
    /// random number. Equal ranks sort by path in ``NaturalOrder``.
    public var rank: Int64
    /// An iPhone Live Photo still's movie, the MOV beside it (``LivePhotoFolder``):
    /// it plays as the still's motion and is never in the playlist itself.
    public var companion: String?

    public init(_ path: String, rank: Int64 = 0, companion: String? = nil) {
        self.path = path
        self.rank = rank
        self.companion = companion
    }

    /// True when `a` plays before `b`.
    public static func precedes(_ a: PlaylistEntry, _ b: PlaylistEntry) -> Bool {
        a.rank != b.rank ? a.rank < b.rank : NaturalOrder.precedes(path: a.path, b.path)
    }
}

/// Files that left the folder and files that arrived (or were rewritten),
/// taken in one batch: one animation, one renumbering.
public struct PlaylistChange: Hashable, Sendable {
    public var removed: [String]
    public var added: [PlaylistEntry]

    public init(removed: [String] = [], added: [PlaylistEntry] = []) {
        self.removed = removed
        self.added = added
    }

    public var isEmpty: Bool { removed.isEmpty && added.isEmpty }
}

/// What a batch of changes did to the playlist: the slot that now shows
/// what the centred slot showed (the strip renumbers by the difference),
/// the old items that left, and the new items that arrived (both ascending).
public struct PlaylistEdit: Hashable, Sendable {
    public var slot: Int
    /// Items before the change (a moved file is in both lists).
    public var removed: [Int] = []
    /// Items after the change.
    public var added: [Int] = []

    public init(slot: Int, removed: [Int] = [], added: [Int] = []) {
        self.slot = slot
        self.removed = removed
        self.added = added
    }

    public var isEmpty: Bool { removed.isEmpty && added.isEmpty }
}
