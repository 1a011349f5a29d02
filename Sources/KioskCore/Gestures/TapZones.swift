/// What a tap does, by where it lands across the screen (`tap_zones = true`):
/// the left fifth is `prev`, the right fifth `next`, the middle pauses or
/// resumes, as picframe's halves do but with room in the middle to stop
/// the show on a picture someone wants to look at.
public enum TapAction: Equatable, Sendable {
    case previous
    case next
    case pauseOrResume

    public init(tapAt x: Double, screenWidth: Double) {
        if x < screenWidth / 5 {
            self = .previous
        } else if x >= screenWidth * 4 / 5 {
            self = .next
        } else {
            self = .pauseOrResume
        }
    }
}

extension StripTouch {
    /// The strip's side of a gesture: pixels along x divided by the page (a
    /// slot and its spacing); a finger moving left moves the strip forward.
    /// A tap only lets the strip go on (what the tap does is a ``TapAction``);
    /// the end of a pinch or pan lets it go as well. Nil for what only the
    /// zoom follows (``ZoomTouch``): the strip stays caught meanwhile.
    public init?(_ gesture: SwipeGesture, pagePixels: Double) {
        switch gesture {
        case .caught:
            self = .caught
        case .dragged(let offset):
            self = .dragged(pictures: -offset / pagePixels)
        case .released(let offset, let velocity, let flick):
            self = .released(pictures: -offset / pagePixels, velocity: -(velocity ?? 0) / pagePixels, flick: flick)
        case .tapped, .doubleTapped, .cancelled, .zoomEnded:
            self = .cancelled
        case .pinchBegan, .pinchMoved, .panned:
            return nil
        }
    }
}
