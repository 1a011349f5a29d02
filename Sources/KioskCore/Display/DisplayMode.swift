/// A video mode a connector offers, as the kernel reports it.
public struct DisplayMode: Hashable, Sendable, CustomStringConvertible {
    public let size: PixelSize
    /// Frames per second, exact (pixel clock / total pixels per frame), e.g. 59.94.
    public let refreshRate: Double
    /// The connector's preferred (native) mode.
    public let preferred: Bool

    public init(size: PixelSize, refreshRate: Double, preferred: Bool) {
        self.size = size
        self.refreshRate = refreshRate
        self.preferred = preferred
    }

    /// `1920x1080@60`, the way `mode` is written in the config.
    public var description: String { "\(size)@\(Int(refreshRate.rounded()))" }
}

/// The operator's `mode` setting: `auto` (the preferred mode), `1920x1080`, or
/// `1920x1080@60`.
public enum ModeRequest: Hashable, Sendable, CustomStringConvertible {
    case preferred
    case size(PixelSize, refreshRate: Int?)

    public init?(parsing text: String) {
        if text == "auto" {
            self = .preferred
            return
        }
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), let size = PixelSize(parsing: String(parts[0])) else { return nil }
        if parts.count == 2 {
            guard let rate = Int(parts[1]), rate > 0 else { return nil }
            self = .size(size, refreshRate: rate)
        } else {
            self = .size(size, refreshRate: nil)
        }
    }

    public var description: String {
        switch self {
        case .preferred: return "auto"
        case .size(let size, nil): return "\(size)"
        case .size(let size, let rate?): return "\(size)@\(rate)"
        }
    }

    /// The mode to use from a connector's list, or nil when none matches.
    /// `auto` takes the preferred mode (else the first listed, which the kernel
    /// sorts largest first). A size takes the preferred mode of that size if
    /// it is one, else the fastest; `@R` must match the rate rounded to whole
    /// hertz (59.94 matches `@60`).
    public func choose(from modes: [DisplayMode]) -> DisplayMode? {
        switch self {
        case .preferred:
            return modes.first(where: \.preferred) ?? modes.first
        case .size(let size, let rate):
            let matching = modes.filter {
                $0.size == size && (rate == nil || Int($0.refreshRate.rounded()) == rate)
            }
            return matching.first(where: \.preferred) ?? matching.max { $0.refreshRate < $1.refreshRate }
        }
    }
}

/// How the picture is turned for a screen mounted on its side or upside down.
/// `90` draws the picture turned 90 degrees clockwise: right for a screen
/// mounted turned 90 degrees counter-clockwise. The layout uses the turned
/// size: a 1920x1080 panel at 90 shows a 1080x1920 strip.
public enum Rotation: Int, Hashable, Sendable, CaseIterable {
    case none = 0, quarter = 90, half = 180, threeQuarters = 270

    public init?(parsing text: String) {
        guard let degrees = Int(text), let rotation = Rotation(rawValue: degrees) else { return nil }
        self = rotation
    }

    /// The size the layout sees on a panel of `physical` size.
    public func logicalSize(of physical: PixelSize) -> PixelSize {
        switch self {
        case .none, .half: return physical
        case .quarter, .threeQuarters: return PixelSize(width: physical.height, height: physical.width)
        }
    }
}

/// A panel's physical size, as its connector reports it (the monitor's EDID).
public struct PhysicalSize: Equatable, Sendable {
    public let widthMillimetres: Int
    public let heightMillimetres: Int

    /// Nil when either is 0: projectors and some TVs do not say.
    public init?(widthMillimetres: Int, heightMillimetres: Int) {
        guard widthMillimetres > 0, heightMillimetres > 0 else { return nil }
        self.widthMillimetres = widthMillimetres
        self.heightMillimetres = heightMillimetres
    }

    /// Millimetres across the layout (along the strip) when frames are turned by `rotation`.
    public func millimetresAcross(turnedBy rotation: Rotation) -> Double {
        switch rotation {
        case .none, .half: return Double(widthMillimetres)
        case .quarter, .threeQuarters: return Double(heightMillimetres)
        }
    }
}

/// Picks the CRTC to drive a connector: the one its current encoder already
/// uses (no flicker, as the console left it), else the first CRTC any of its
/// encoders can drive (`possible_crtcs` is a bit mask over the card's CRTC
/// list).
///
/// - Parameters:
///   - current: the CRTC id of the connector's current encoder, if any.
///   - possibleMasks: `possible_crtcs` of each encoder the connector can use.
///   - crtcs: the card's CRTC ids in order.
public func chooseCRTC(current: UInt32?, possibleMasks: [UInt32], crtcs: [UInt32]) -> UInt32? {
    if let current, current != 0, crtcs.contains(current) { return current }
    for mask in possibleMasks {
        for (bit, crtc) in crtcs.enumerated() where bit < 32 && mask & (1 << UInt32(bit)) != 0 {
            return crtc
        }
    }
    return nil
}

extension Rotation {
    /// Where the screen's (upright) point (`x`, `y`) lands on the panel, for
    /// a screen of `screen` size: a quarter turn (clockwise) makes screen
    /// column x panel row x, and screen row y panel column `height - 1 - y`.
    public func panelPoint(ofScreenX x: Int, y: Int, screen: PixelSize) -> (x: Int, y: Int) {
        switch self {
        case .none: return (x, y)
        case .half: return (screen.width - 1 - x, screen.height - 1 - y)
        case .quarter: return (screen.height - 1 - y, x)
        case .threeQuarters: return (y, screen.width - 1 - x)
        }
    }

    /// The panel rectangle a screen rectangle lands on.
    public func panelRect(of rect: PixelRect, screen: PixelSize) -> PixelRect {
        let a = panelPoint(ofScreenX: rect.x, y: rect.y, screen: screen)
        let b = panelPoint(ofScreenX: rect.x + rect.width - 1, y: rect.y + rect.height - 1, screen: screen)
        return PixelRect(x: min(a.x, b.x), y: min(a.y, b.y), width: abs(a.x - b.x) + 1, height: abs(a.y - b.y) + 1)
    }
}
