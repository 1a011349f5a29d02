/// A corner of the screen, for the clock.
public enum ScreenCorner: String, CaseIterable, Sendable {
    case topLeft = "top-left", topRight = "top-right", bottomLeft = "bottom-left", bottomRight = "bottom-right"

    /// Where a box of `size` goes in this corner of `screen`, `margin` in from both edges.
    public func origin(of size: PixelSize, on screen: PixelSize, margin: Int) -> (x: Int, y: Int) {
        let left = margin, right = screen.width - margin - size.width
        let top = margin, bottom = screen.height - margin - size.height
        switch self {
        case .topLeft: return (left, top)
        case .topRight: return (right, top)
        case .bottomLeft: return (left, bottom)
        case .bottomRight: return (right, bottom)
        }
    }
}

/// When a clock showing hours and minutes changes: at each minute's turn.
public enum MinuteTurns {
    /// The first minute's turn after `time` (seconds since the epoch). Time
    /// zones are whole minutes from UTC, so a turn in UTC is one locally too.
    public static func next(after time: Double) -> Double {
        ((time / 60).rounded(.down) + 1) * 60
    }

    /// The minute `time` is in: the same for every instant the clock shows alike.
    public static func minute(of time: Double) -> Int64 { Int64((time / 60).rounded(.down)) }
}

/// A message sent to the kiosk (`kioskctl message`): shown until it expires
/// or is cleared, over the pictures and the clock, and kept across slides.
public struct ScreenMessage: Equatable, Sendable {
    public let text: String
    /// When it goes (monotonic seconds), or nil: until cleared.
    public let expires: Double?

    public init(text: String, expires: Double?) {
        self.text = text
        self.expires = expires
    }

    /// Still shown at `now`.
    public func isShown(at now: Double) -> Bool { expires.map { now < $0 } ?? true }
}
