/// A length given by the operator: whole pixels, or a percentage of a reference
/// dimension (the screen width for slot width and spacing, the screen height for
/// slot height).
public enum Length: Hashable, Sendable, CustomStringConvertible {
    case pixels(Int)
    case percent(Double)

    /// Parses `1344`, `1344px` or `70%` (decimals allowed: `33.5%`).
    /// Returns nil for anything else; the caller names the setting in its error.
    public init?(parsing text: String) {
        let trimmed = text.trimmingWhitespace()
        if trimmed.hasSuffix("%") {
            guard let value = Double(trimmed.dropLast()), value.isFinite else { return nil }
            self = .percent(value)
        } else {
            let digits = trimmed.hasSuffix("px") ? String(trimmed.dropLast(2)) : trimmed
            guard let value = Int(digits) else { return nil }
            self = .pixels(value)
        }
    }

    /// The length in whole pixels. Percentages round to the nearest pixel
    /// (halves round up), so `70%` of 1920 is 1344 and `2%` of 1920 is 38.
    public func resolved(against reference: Int) -> Int {
        switch self {
        case .pixels(let value):
            return value
        case .percent(let value):
            return Int((Double(reference) * value / 100).roundedHalfUp())
        }
    }

    public var description: String {
        switch self {
        case .pixels(let value): return "\(value)"
        case .percent(let value):
            return value == value.rounded() ? "\(Int(value))%" : "\(value)%"
        }
    }
}

extension Double {
    /// Rounds to the nearest integer with halves going up (towards +infinity).
    /// Unlike `.rounded()`, this commutes with whole-pixel shifts:
    /// `(x + n).roundedHalfUp() == x.roundedHalfUp() + n` for any integer `n`,
    /// which keeps every slot exactly one pitch from its neighbour.
    public func roundedHalfUp() -> Double { (self + 0.5).rounded(.down) }
}

extension StringProtocol {
    /// Without whitespace (spaces, tabs, line breaks) at either end.
    public func trimmingWhitespace() -> String {
        String(drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
    }
}
