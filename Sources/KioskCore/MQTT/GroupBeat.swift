#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A group's shared wall-clock beat: its kiosks slide together with no
/// message per slide, each working out from its own clock (kept by NTP,
/// chrony or systemd-timesyncd) where the group is, as info-beamer's
/// devices do. Published retained on `kioskd/group/<group>/beat`, so a
/// kiosk that joins or restarts takes the group's picture at the next beat.
///
/// Slide k starts at `epoch + k x interval` (Unix seconds, `CLOCK_REALTIME`)
/// and goes to playlist item `position + k` (round the loop); item
/// `position` is the group's picture from `epoch` until the first slide.
/// While `paused`, nothing slides and the group stays on `position`.
public struct GroupBeat: Equatable, Sendable, Codable {
    public var epoch: Double
    public var interval: Double
    public var position: Int
    public var paused: Bool
    /// The kiosk that published it (for the log and for people reading the broker).
    public var by: String

    public init(epoch: Double, interval: Double, position: Int, paused: Bool = false, by: String) {
        self.epoch = epoch
        self.interval = interval
        self.position = position
        self.paused = paused
        self.by = by
    }

    /// The beat as published.
    public var payload: JSONObject {
        ["epoch": .double(epoch), "interval": .double(interval), "position": .int(position), "paused": .bool(paused), "by": .string(by)]
    }

    /// Why a beat read from the broker is not one to follow.
    public var problem: String? {
        guard epoch.isFinite, epoch > 0, epoch < 1e11 else { return "its epoch is not a Unix time" }
        guard interval.isFinite, interval >= 0.1, interval <= 86_400 else { return "its interval is not 0.1 to 86400 seconds" }
        guard position >= 0 else { return "its position is negative" }
        return nil
    }

    /// The last slide started by `time` (negative: before the epoch, none yet).
    public func slide(at time: Double) -> Int {
        Int(((time - epoch) / interval).rounded(.down))
    }

    /// When slide `k` starts.
    public func start(ofSlide k: Int) -> Double { epoch + Double(k) * interval }

    /// How long ago, at `time`, the group took its current picture: since
    /// the last slide's start, or since the epoch while paused or before
    /// the first slide. A member that slides a little late starts its
    /// slide from then, so every member's lands on the same instant.
    public func sinceSlide(at time: Double) -> Double {
        time - start(ofSlide: paused ? 0 : max(0, slide(at: time)))
    }

    /// The group's picture at `time`, in a playlist of `count` (nil for an empty one).
    public func item(at time: Double, count: Int) -> Int? {
        guard count > 0 else { return nil }
        let k = paused ? 0 : max(0, slide(at: time))
        return ((position + k) % count + count) % count
    }

    /// The next slide after `time`: its number and when it starts; nil while paused.
    public func nextSlide(after time: Double) -> (k: Int, at: Double)? {
        guard !paused else { return nil }
        let k = max(0, slide(at: time) + 1)
        return (k, start(ofSlide: k))
    }
}

extension GroupBeat {
    /// The beat a payload from the broker holds, or why it holds none to follow.
    public struct Refusal: Error, Equatable, Sendable {
        public let reason: String
    }

    public static func read(_ payload: [UInt8]) -> Result<GroupBeat, Refusal> {
        let beat: GroupBeat
        do { beat = try JSONDecoder().decode(GroupBeat.self, from: Data(payload)) } catch {
            return .failure(Refusal(reason: "it is not a beat's JSON: {\"epoch\": Unix seconds, \"interval\": seconds, \"position\": a picture, \"paused\": false, \"by\": a name}"))
        }
        if let problem = beat.problem { return .failure(Refusal(reason: problem)) }
        return .success(beat)
    }
}
