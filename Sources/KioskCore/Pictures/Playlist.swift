/// The files the show plays, in order, under a strip that never ends: slot
/// `k` shows item `k mod count` (``CircularIndex``).
///
/// Files come and go while the show runs (a broken photo drops out; later,
/// the live folder adds and removes them). The rule for every change: **the
/// picture in the centre stays in the centre.** Each change therefore
/// returns the slot number that now holds what the given slot held, and the
/// show renumbers its strip by the difference; nothing moves on screen. If
/// the centred file itself leaves, the file after it takes its place.
///
/// Slot `k = lap N + c` (with `0 <= c < N`) keeps its lap: it becomes
/// `lap N' + c'`, where `N'` is the new count and `c'` the centred file's new
/// index.
public struct Playlist: Hashable, Sendable {
    public private(set) var files: [String]

    public init(_ files: [String] = []) { self.files = files }

    public var count: Int { files.count }

    /// A file's name as the control socket shows it and `goto` takes it: the path's last part.
    public static func fileName(of path: String) -> String {
        var trimmed = Substring(path)
        while trimmed.last == "/", trimmed.count > 1 { trimmed = trimmed.dropLast() }
        guard let slash = trimmed.lastIndex(of: "/"), slash != trimmed.indices.last else { return String(trimmed) }
        return String(trimmed[trimmed.index(after: slash)...])
    }

    /// The item whose file is named `name` (``fileName(of:)``), if any.
    public func item(named name: String) -> Int? { files.firstIndex { Self.fileName(of: $0) == name } }
    public var isEmpty: Bool { files.isEmpty }
    public var index: CircularIndex { CircularIndex(count: files.count) }
    public subscript(item: Int) -> String { files[item] }

    /// The item shown in slot `k`, or nil when the playlist is empty.
    public func item(forSlot slot: Int) -> Int? { index.item(forSlot: slot) }

    /// The file shown in slot `k`.
    public func file(forSlot slot: Int) -> String? { item(forSlot: slot).map { files[$0] } }

    /// Removes `item`; returns the slot that now shows what `slot` showed
    /// (or, if that was `item`, the file after it).
    public mutating func remove(at item: Int, keepingSlot slot: Int) -> Int {
        precondition(files.indices.contains(item))
        let newSlot = index.slotKeepingItem(atSlot: slot, afterRemoving: item)
        files.remove(at: item)
        return newSlot
    }

    /// Inserts `file` so it becomes item `item` (later items move up one);
    /// returns the slot that now shows what `slot` showed.
    public mutating func insert(_ file: String, at item: Int, keepingSlot slot: Int) -> Int {
        precondition((0...files.count).contains(item))
        defer { files.insert(file, at: item) }
        guard let centred = self.item(forSlot: slot) else { return slot }
        let lap = (slot - centred) / count
        return lap * (count + 1) + (item <= centred ? centred + 1 : centred)
    }

    /// Replaces the whole list (a rescan, a new order); returns the slot
    /// that now shows what `slot` showed. Files that left go first, one at a
    /// time under the rule above, so a vanished centred file hands the centre
    /// to the next file that stays.
    public mutating func replace(with newFiles: [String], keepingSlot slot: Int) -> Int {
        let staying = Set(newFiles)
        var slot = slot
        for item in files.indices.reversed() where !staying.contains(files[item]) {
            slot = remove(at: item, keepingSlot: slot)
        }
        defer { files = newFiles }
        guard let centred = item(forSlot: slot), let newItem = newFiles.firstIndex(of: files[centred]) else {
            return slot
        }
        let lap = (slot - centred) / count
        return lap * newFiles.count + newItem
    }
}
