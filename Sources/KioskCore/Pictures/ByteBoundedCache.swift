/// Finished pictures, kept by urgency within a budget in bytes.
///
/// The show says what it wants, most urgent first (``want(_:)``), and
/// everything else is dropped at once. A finished picture is stored only if it
/// is still wanted, evicting less urgent ones when the budget is tight; if
/// nothing less urgent is held, the new picture is the one left out. So the
/// cache never holds more than `budget` bytes, and what it holds is always the
/// most urgent pictures that fit.
public struct ByteBoundedCache<Key: Hashable, Value> {
    public let budget: Int
    public private(set) var bytes = 0
    /// What the show wants, most urgent first.
    public private(set) var wanted: [Key] = []
    private var urgency: [Key: Int] = [:]
    private var entries: [Key: (value: Value, bytes: Int)] = [:]

    public init(budget: Int) {
        precondition(budget >= 0)
        self.budget = budget
    }

    public subscript(key: Key) -> Value? { entries[key]?.value }
    public var count: Int { entries.count }

    /// Sets what the show wants now, most urgent first, and drops the rest.
    public mutating func want(_ keys: [Key]) {
        wanted = keys
        urgency = [:]
        for (rank, key) in keys.enumerated() where urgency[key] == nil { urgency[key] = rank }
        for key in entries.keys where urgency[key] == nil { remove(key) }
    }

    /// The wanted keys not held yet, most urgent first: as many as the budget
    /// allows if each missing one costs `estimatedBytes` (a slot's worth).
    public func missing(estimatedBytes: Int) -> [Key] {
        var total = 0
        var result: [Key] = []
        for key in wanted {
            let cost = entries[key]?.bytes ?? estimatedBytes
            guard total + cost <= budget else { break }
            total += cost
            if entries[key] == nil { result.append(key) }
        }
        return result
    }

    /// Stores `value` if it is still wanted and fits, evicting less urgent
    /// pictures to make room. Returns whether it was kept.
    @discardableResult
    public mutating func insert(_ value: Value, bytes size: Int, for key: Key) -> Bool {
        guard let rank = urgency[key], size <= budget else { return false }
        remove(key)
        while bytes + size > budget {
            let leastUrgent = entries.keys.max { urgency[$0]! < urgency[$1]! }!
            guard urgency[leastUrgent]! > rank else { return false }
            remove(leastUrgent)
        }
        entries[key] = (value, size)
        bytes += size
        return true
    }

    /// Drops the value for `key` (stale: its file was rewritten); it stays wanted, so it is missing now.
    public mutating func forget(_ key: Key) { remove(key) }

    private mutating func remove(_ key: Key) {
        if let old = entries.removeValue(forKey: key) { bytes -= old.bytes }
    }
}
