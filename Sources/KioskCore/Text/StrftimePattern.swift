/// A strftime pattern (`"%e %B %Y"`, `"%H:%M"`) checked before it reaches
/// the C library, which prints unknown conversions as they are, silently:
/// a typo is refused at start with the conversion it did not know.
public struct StrftimePattern: Hashable, Sendable, CustomStringConvertible {
    public let text: String

    /// The conversions glibc's strftime knows (after its flags `_-0^#`, a
    /// width, and the `E`/`O` modifiers).
    static let conversions = Set("aAbBcCdDeFgGhHIjklmMnOpPrRsStTuUVwWxXyYzZ+%")
    /// Those that change within a minute, which a clock redrawn once a minute would show wrong.
    static let finerThanMinutes = Set("sSTrc+")

    public init(_ text: String) throws(SettingProblem) {
        var characters = text.makeIterator()
        while let character = characters.next() {
            guard character == "%" else { continue }
            var conversion = characters.next()
            while let flag = conversion, "_-0^#".contains(flag) || flag.isASCII && flag.isNumber { conversion = characters.next() }
            if conversion == "E" || conversion == "O" { conversion = characters.next() }
            guard let conversion else { throw SettingProblem("the pattern ends inside a conversion: a lone % is written %%", value: text) }
            guard Self.conversions.contains(conversion) else {
                throw SettingProblem("%\(conversion) is not a strftime conversion (see man strftime; a literal % is %%)", value: text)
            }
        }
        guard text.utf8.count <= 200 else { throw SettingProblem("a pattern of at most 200 bytes", value: text) }
        self.text = text
    }

    /// True when the pattern shows seconds (or anything finer than minutes).
    public var showsSeconds: Bool {
        var previous: Character = " "
        for character in text {
            if previous == "%" && Self.finerThanMinutes.contains(character) { return true }
            previous = previous == "%" && character == "%" ? " " : character
        }
        return false
    }

    public var description: String { text }
}
