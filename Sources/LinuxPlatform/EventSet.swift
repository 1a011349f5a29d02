import CLinux

/// What a descriptor is ready for, or what happened to it: the interest a
/// source registers, and the events its handler receives.
///
/// `readable` and `hangUp` can arrive together (a client that sent a last
/// command and closed): a handler reads what is left before it lets go.
/// `hangUp` and `error` are always reported, whatever the interest.
public struct EventSet: OptionSet, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt8

    public static let readable = EventSet(rawValue: 1 << 0)
    /// Room to write: a client whose replies did not fit waits for this.
    public static let writable = EventSet(rawValue: 1 << 1)
    /// The other end is gone: a closed socket peer, an unplugged device.
    public static let hangUp = EventSet(rawValue: 1 << 2)
    /// The descriptor failed (`EPOLLERR`).
    public static let error = EventSet(rawValue: 1 << 3)

    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// The events epoll reported.
    public init(epoll events: UInt32) {
        var set: EventSet = []
        if events & EPOLLIN.rawValue != 0 { set.insert(.readable) }
        if events & EPOLLOUT.rawValue != 0 { set.insert(.writable) }
        if events & (EPOLLHUP.rawValue | EPOLLRDHUP.rawValue) != 0 { set.insert(.hangUp) }
        if events & EPOLLERR.rawValue != 0 { set.insert(.error) }
        self = set
    }

    /// The interest as epoll spells it. `EPOLLRDHUP` goes with reading, so a
    /// socket peer that closes is seen as a hang-up rather than an endless
    /// run of zero-byte reads.
    public var epollInterest: UInt32 {
        var events: UInt32 = 0
        if contains(.readable) { events |= EPOLLIN.rawValue | EPOLLRDHUP.rawValue }
        if contains(.writable) { events |= EPOLLOUT.rawValue }
        return events
    }

    public var description: String {
        let names: [(EventSet, String)] = [(.readable, "readable"), (.writable, "writable"), (.hangUp, "hang-up"), (.error, "error")]
        let present = names.filter { contains($0.0) }.map(\.1)
        return present.isEmpty ? "none" : present.joined(separator: "+")
    }
}
