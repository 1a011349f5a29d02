/// Breaks text into lines no wider than a width: at spaces where it can,
/// inside a word only when the word alone is wider than a line (a long URL,
/// or CJK, which has no spaces). Lines beyond a limit are cut, and the last
/// kept line ends with an ellipsis.
///
/// The width of a piece of text comes from `measure` (its shaped advance in
/// pixels), so kerning, ligatures and fallback fonts count as they will be
/// drawn; the breaking itself is here, where it can be tested alone.
public enum LineWrapping {
    /// The character that ends text cut short.
    public static let ellipsis: Character = "…"

    /// `text` (paragraphs separated by "\n") as at most `maxLines` lines, each
    /// no wider than `width` by `measure` where any single character fits.
    public static func lines(of text: String, width: Int, maxLines: Int, measure: (String) -> Int) -> [String] {
        let limit = max(1, maxLines)
        var lines: [String] = []
        var cut = false
        paragraphs: for paragraph in text.split(separator: "\n", omittingEmptySubsequences: false) {
            for line in wrap(paragraph, width: width, limit: limit - lines.count + 1, measure: measure) {
                if lines.count == limit { cut = true; break paragraphs }
                lines.append(line)
            }
        }
        guard cut, let last = lines.popLast() else { return lines }
        lines.append(shortened(last, toFitWith: String(ellipsis), width: width, measure: measure))
        return lines
    }

    /// One paragraph's lines, stopping once there are `limit` of them (one
    /// more than are kept says that the text goes on).
    private static func wrap(_ paragraph: Substring, width: Int, limit: Int, measure: (String) -> Int) -> [String] {
        var lines: [String] = []
        var line = ""
        for word in paragraph.split(separator: " ", omittingEmptySubsequences: true) {
            if lines.count >= limit { return lines }
            let joined = line.isEmpty ? String(word) : line + " " + word
            if measure(joined) <= width { line = joined; continue }
            if !line.isEmpty { lines.append(line) }
            line = ""
            // A word wider than a line alone is broken between its characters.
            for character in word {
                let longer = line + String(character)
                if !line.isEmpty && measure(longer) > width {
                    lines.append(line)
                    if lines.count >= limit { return lines }
                    line = String(character)
                } else {
                    line = longer
                }
            }
        }
        lines.append(line)
        return lines
    }

    /// `line` with characters dropped from its end until it and `tail` fit `width`.
    static func shortened(_ line: String, toFitWith tail: String, width: Int, measure: (String) -> Int) -> String {
        var kept = Substring(line)
        while !kept.isEmpty && measure(kept + tail) > width {
            kept = kept.dropLast()
            while kept.last == " " { kept = kept.dropLast() }
        }
        return kept + tail
    }
}
