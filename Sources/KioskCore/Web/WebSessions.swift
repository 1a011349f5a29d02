/// The logged-in browsers of kioskd-web, by their cookie's token, each with
/// the CSRF token its page sends with every change. Kept in memory: a
/// restart of kioskd-web logs everyone out. A session unused for
/// ``idleLifetime`` ends; past ``capacity`` sessions the one unused
/// longest ends, so logins cannot grow memory without bound. The tokens are
/// made by the caller (random bytes, libsodium).
public struct WebSessions: Sendable {
    public struct Session: Sendable, Equatable {
        /// What a request that changes something must carry (X-CSRF-Token).
        public let csrf: String
        public fileprivate(set) var lastUsed: Double
    }

    /// A month: a family's phone stays logged in between visits.
    public static let idleLifetime = 30.0 * 86_400
    public static let capacity = 64

    private var byToken: [String: Session] = [:]

    public init() {}

    public var count: Int { byToken.count }

    /// A new session for `token`, whose page is given `csrf`.
    public mutating func open(token: String, csrf: String, at now: Double) {
        byToken = byToken.filter { now - $0.value.lastUsed < Self.idleLifetime }
        if byToken.count >= Self.capacity, let unused = byToken.min(by: { $0.value.lastUsed < $1.value.lastUsed })?.key {
            byToken[unused] = nil
        }
        byToken[token] = Session(csrf: csrf, lastUsed: now)
    }

    /// The session `token` names, marked used now; nil when there is none
    /// (never made, logged out, or unused too long).
    public mutating func use(_ token: String, at now: Double) -> Session? {
        guard var session = byToken[token] else { return nil }
        guard now - session.lastUsed < Self.idleLifetime else {
            byToken[token] = nil
            return nil
        }
        session.lastUsed = now
        byToken[token] = session
        return session
    }

    /// Logs `token` out.
    public mutating func close(_ token: String) { byToken[token] = nil }
}
