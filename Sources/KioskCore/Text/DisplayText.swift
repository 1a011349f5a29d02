/// Text from outside (a photo's description, a message sent to the kiosk)
/// made safe to lay out: controls other than line breaks become spaces,
/// explicit bidi embeddings, overrides and isolates are dropped (each line
/// is ordered by the Unicode bidi algorithm alone, so a stray override
/// cannot turn the rest of the screen's text around), runs of spaces become
/// one, and anything past ``maxScalars`` is cut with an ellipsis: no more can
/// ever be shown, and a 100,000-character description costs no more to lay
/// out than a short one.
public enum DisplayText {
    /// Unicode scalars kept: far more than a caption's lines ever show.
    public static let maxScalars = 2_000

    public static func cleaned(_ text: String) -> String {
        var scalars = String.UnicodeScalarView()
        var count = 0
        var pendingSpace = false
        for scalar in text.unicodeScalars {
            if count >= maxScalars {
                scalars.append("…")
                break
            }
            let value = scalar.value
            if value == 0x0A || value == 0x2028 || value == 0x2029 {
                while scalars.last == " " { scalars.removeLast() }
                scalars.append("\n")
                pendingSpace = false
                count += 1
                continue
            }
            if (0x202A...0x202E).contains(value) || (0x2066...0x2069).contains(value) { continue }
            if value < 0x20 || (0x7F...0x9F).contains(value) || scalar == " " || scalar.properties.generalCategory == .spaceSeparator {
                pendingSpace = true
                continue
            }
            if pendingSpace && !scalars.isEmpty && scalars.last != "\n" {
                // A space at the limit is where the text is cut.
                guard count + 1 < maxScalars else { scalars.append("…"); break }
                scalars.append(" ")
                count += 1
            }
            pendingSpace = false
            scalars.append(scalar)
            count += 1
        }
        // No line starts or ends with blanks, and no blank lines are left at either end.
        var cleaned = String(scalars)
        while cleaned.last == "\n" || cleaned.last == " " { cleaned.removeLast() }
        while cleaned.first == "\n" { cleaned.removeFirst() }
        return cleaned
    }

    /// `bytes` as UTF-8, each invalid sequence a replacement character (U+FFFD), then ``cleaned(_:)``.
    public static func cleaned(utf8 bytes: some Collection<UInt8>) -> String {
        cleaned(String(decoding: bytes, as: UTF8.self))
    }
}
