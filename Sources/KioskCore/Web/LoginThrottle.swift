/// Wrong passwords, counted per address: past ``allowedFailures`` in
/// ``window`` seconds, kioskd-web answers 429 without hashing (an Argon2id
/// hash costs 64 MiB and a good part of a second), until the oldest of
/// them is a minute old. A right password forgets the address's failures.
///
/// An IPv6 client is counted by its /64, the block one household or
/// phone is given, so walking through its own addresses gains nothing.
/// At most ``trackedAddresses`` are remembered (the one failing longest
/// ago is forgotten first), so a flood of addresses costs bounded memory.
public struct LoginThrottle: Sendable {
    public static let allowedFailures = 5
    public static let window = 60.0
    public static let trackedAddresses = 4096

    /// Each address's failures (monotonic seconds), oldest first.
    private var failures: [String: [Double]] = [:]

    public init() {}

    /// Seconds the address must wait before it may try again (at least 1),
    /// or nil when it may try now.
    public mutating func wait(for address: String, at now: Double) -> Int? {
        let key = Self.key(for: address)
        guard var times = failures[key] else { return nil }
        times.removeAll { $0 <= now - Self.window }
        failures[key] = times.isEmpty ? nil : times
        guard times.count >= Self.allowedFailures, let oldest = times.first else { return nil }
        return max(1, Int((oldest + Self.window - now).rounded(.up)))
    }

    /// A wrong password from `address`.
    public mutating func failed(from address: String, at now: Double) {
        let key = Self.key(for: address)
        if failures[key] == nil, failures.count >= Self.trackedAddresses {
            failures = failures.filter { $0.value.last.map { $0 > now - Self.window } ?? false }
            if failures.count >= Self.trackedAddresses,
               let stalest = failures.min(by: { ($0.value.last ?? 0) < ($1.value.last ?? 0) })?.key {
                failures[stalest] = nil
            }
        }
        var times = failures[key] ?? []
        times.append(now)
        // Only the newest ones count toward a refusal.
        if times.count > Self.allowedFailures { times.removeFirst(times.count - Self.allowedFailures) }
        failures[key] = times
    }

    /// The right password from `address`: its failures are forgotten.
    public mutating func succeeded(from address: String) {
        failures[Self.key(for: address)] = nil
    }

    /// How many addresses are remembered.
    public var trackedCount: Int { failures.count }

    /// The address an attempt is counted against: IPv4 as it is, IPv6 by
    /// its first four groups (its /64) as kioskd-web writes them (eight
    /// groups of four hex digits).
    public static func key(for address: String) -> String {
        guard address.contains(":") else { return address }
        let groups = address.split(separator: ":", omittingEmptySubsequences: false)
        return groups.prefix(4).joined(separator: ":") + "::/64"
    }
}
