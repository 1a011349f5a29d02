/// How a piece of text on the screen looks: its font, size and colour, and
/// what keeps it legible on any picture.
public struct TextAppearance: Hashable, Sendable {
    /// A fontconfig family name ("DejaVu Sans", "sans-serif"): characters the
    /// family lacks come from whichever installed font has them.
    public var family: String
    /// The size in pixels: the em square's height (``TextSize/pixels(onScreenHeight:)``).
    public var pixelSize: Int
    public var colour: RGBColor
    public var legibility: TextLegibility
    /// The widest a line may be, in pixels: longer text wraps at word boundaries.
    public var maxWidth: Int
    /// Lines beyond this many are cut, the last ending with an ellipsis.
    public var maxLines: Int
    public var alignment: TextAlignment

    public init(
        family: String, pixelSize: Int, colour: RGBColor = RGBColor(red: 255, green: 255, blue: 255), legibility: TextLegibility = .outline,
        maxWidth: Int, maxLines: Int = 2, alignment: TextAlignment = .centre
    ) {
        self.family = family
        self.pixelSize = max(1, pixelSize)
        self.colour = colour
        self.legibility = legibility
        self.maxWidth = max(1, maxWidth)
        self.maxLines = max(1, maxLines)
        self.alignment = alignment
    }
}

/// What keeps light text readable on a light picture (and dark on dark).
public enum TextLegibility: String, CaseIterable, Sendable {
    /// A dark (or, for dark text, light) border around every glyph.
    case outline
    /// A soft dark copy of the text, a little down and to the right.
    case shadow
    /// A translucent dark band behind the lines.
    case band
    /// Nothing: for text on a plain part of the screen (and to compare glyphs with other renderers).
    case none
}

/// Where each line sits in the width of the widest: right-to-left lines keep
/// their own direction inside it.
public enum TextAlignment: String, CaseIterable, Sendable {
    case left, centre, right
}

/// A text size in points, relative to the screen's height so one config reads
/// alike at 720p and at 4K: a point is what it would be on a 1080-line screen
/// at 96 dots per inch (4/3 of a pixel there), scaled to the screen's lines.
public struct TextSize: Hashable, Sendable {
    public var points: Double

    public init(points: Double) { self.points = points }

    /// The em height in pixels on a screen `height` pixels tall (at least 1).
    public func pixels(onScreenHeight height: Int) -> Int {
        max(1, Int((points * 4 / 3 * Double(height) / 1080).rounded()))
    }
}
