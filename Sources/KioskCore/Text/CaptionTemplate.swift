/// What a picture's caption says, from what is known about it: the
/// `caption` setting, e.g. `"{title}\n{date:%e %B %Y}"`.
///
/// Fields: `{title}` (the photo's own description: EXIF ImageDescription,
/// else XMP dc:title, else XMP dc:description, else the IPTC caption),
/// `{date}` or `{date:pattern}` (when it was taken, a strftime pattern,
/// `%e %B %Y` by default), `{file}` (the file name without its extension),
/// `{folder}` (the name of the folder it is in), and from a server that
/// says them (Immich), `{people}` (the names of the people in it) and
/// `{album}` (the album it was chosen through). An Immich photo's
/// `{title}` and `{date}` are its own when its file holds them, else the
/// server's (its description, when it was taken). `{{` and `}}` are
/// braces; a line break is one in the text, or `\n` typed as two
/// characters (on a command line). A line whose fields are all empty (a photo with no title) is
/// left out, rather than drawn as its bare words.
public struct CaptionTemplate: Hashable, Sendable, CustomStringConvertible {
    public enum Field: String, CaseIterable, Sendable {
        case title, date, file, folder, people, album
    }

    enum Part: Hashable, Sendable {
        case text(String)
        case field(Field, pattern: StrftimePattern?)
    }

    public static let defaultDatePattern = try! StrftimePattern("%e %B %Y")

    let lines: [[Part]]
    public let text: String

    public init(parsing text: String) throws(SettingProblem) {
        var lines: [[Part]] = [[]]
        var literal = ""
        var characters = Array(text)
        var i = 0
        func flush() { if !literal.isEmpty { lines[lines.count - 1].append(.text(literal)); literal = "" } }
        while i < characters.count {
            let character = characters[i]
            if character == "{" && i + 1 < characters.count && characters[i + 1] == "{" { literal.append("{"); i += 2; continue }
            if character == "}" && i + 1 < characters.count && characters[i + 1] == "}" { literal.append("}"); i += 2; continue }
            if character == "}" { throw SettingProblem("a } with no { before it (a brace is written }})", value: text) }
            if character == "\n" { flush(); lines.append([]); i += 1; continue }
            // Typed on a command line (--caption '{title}\n{date}'), \n is a line break too.
            if character == "\\" && i + 1 < characters.count && characters[i + 1] == "n" { flush(); lines.append([]); i += 2; continue }
            guard character == "{" else { literal.append(character); i += 1; continue }
            guard let close = characters[(i + 1)...].firstIndex(of: "}") else {
                throw SettingProblem("a { that is never closed (a brace is written {{)", value: text)
            }
            let inside = String(characters[(i + 1)..<close])
            let name = inside.prefix { $0 != ":" }
            guard let field = Field(rawValue: String(name)) else {
                let known = Field.allCases.map { "{\($0.rawValue)}" }.joined(separator: ", ")
                throw SettingProblem("{\(name)} is not a caption field; the fields are \(known)", value: text)
            }
            var pattern: StrftimePattern?
            if name.count < inside.count {
                guard field == .date else { throw SettingProblem("only {date} takes a pattern, as {date:%e %B %Y}", value: text) }
                pattern = try StrftimePattern(String(inside.dropFirst(name.count + 1)))
            }
            flush()
            lines[lines.count - 1].append(.field(field, pattern: pattern))
            i = close + 1
        }
        flush()
        characters = []
        self.lines = lines
        self.text = text
    }

    /// The fields the template uses.
    public var fields: Set<Field> {
        var used = Set<Field>()
        for line in lines { for case .field(let field, _) in line { used.insert(field) } }
        return used
    }

    /// The caption for a picture. `value` gives each field's words (nil or
    /// empty when the picture has none); `date` formats its date with a pattern.
    public func caption(value: (Field) -> String?, date: (StrftimePattern) -> String?) -> String {
        var shown: [String] = []
        for line in lines {
            var words = ""
            var hasField = false, filled = false
            for part in line {
                switch part {
                case .text(let text):
                    words += text
                case .field(let field, let pattern):
                    hasField = true
                    let value = field == .date ? date(pattern ?? Self.defaultDatePattern) : value(field)
                    let cleaned = (value ?? "").trimmingWhitespace()
                    if !cleaned.isEmpty { filled = true }
                    words += cleaned
                }
            }
            if hasField && !filled { continue }
            let line = words.trimmingWhitespace()
            if !line.isEmpty { shown.append(line) }
        }
        return shown.joined(separator: "\n")
    }

    public var description: String { text }
}

extension SettingFormat where Value == CaptionTemplate? {
    /// `caption`: a template, or `""` (nil) for none.
    static var caption: Self {
        SettingFormat(read: { value in
            guard case .string(let text) = value else { throw SettingProblem("expected a caption template like \"{title}\\n{date:%e %B %Y}\", or \"\"") }
            guard !text.isEmpty, text != "none" else { return nil }
            guard text.utf8.count <= 1000 else { throw SettingProblem("a template of at most 1000 bytes") }
            return try CaptionTemplate(parsing: text)
        }, write: { .string($0?.text ?? "") })
    }
}

extension SettingFormat where Value == StrftimePattern? {
    /// `clock`: a strftime pattern without seconds, or `none`.
    static var clock: Self {
        SettingFormat(read: { value in
            guard case .string(let text) = value else { throw SettingProblem("expected a strftime pattern like \"%H:%M\", or none") }
            guard !text.isEmpty, text != "none" else { return nil }
            let pattern = try StrftimePattern(text)
            guard !pattern.showsSeconds else {
                throw SettingProblem("the clock changes once a minute, at the minute's turn: a pattern without seconds (%S, %s, %T, %r, %c, %+)")
            }
            return pattern
        }, write: { .string($0?.text ?? "none") })
    }
}

extension SettingFormat where Value == Int {
    /// `caption_lines`: 1 to 10.
    static var captionLines: Self {
        SettingFormat(read: { value in
            guard case .integer(let lines) = value, (1...10).contains(lines) else { throw SettingProblem("expected 1 to 10 lines") }
            return lines
        }, write: { .integer($0) })
    }
}

extension SettingFormat where Value == String {
    /// `text_font`: a family name fontconfig can parse.
    static var fontFamily: Self {
        SettingFormat(read: { value in
            guard case .string(let family) = value, !family.isEmpty, family.utf8.count <= 100,
                  family.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value != 0x7F }) else {
                throw SettingProblem("expected a font family like \"DejaVu Sans\" or sans-serif (fc-list : family lists them)")
            }
            return family
        }, write: { .string($0) })
    }
}

extension SettingFormat where Value == String? {
    /// `locale`: a locale's name (`de_DE.UTF-8`, `C`), or `""` (nil) for the environment's.
    static var locale: Self {
        SettingFormat(read: { value in
            guard case .string(let name) = value else { throw SettingProblem("expected a locale's name like de_DE.UTF-8") }
            if name.isEmpty { return nil }
            guard name.utf8.count <= 64, name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "_.-@".contains($0)) }) else {
                throw SettingProblem("expected a locale's name like de_DE.UTF-8 (locale -a lists those installed)")
            }
            return name
        }, write: { .string($0 ?? "") })
    }
}

extension SettingFormat where Value == TextSize {
    /// `text_size`: points, 4 to 200.
    static var textSize: Self {
        SettingFormat(read: { value in
            guard let points = value.number, points.isFinite, points >= 4, points <= 200 else {
                throw SettingProblem("expected a size in points from 4 to 200, e.g. 20")
            }
            return TextSize(points: points)
        }, write: { $0.points == $0.points.rounded() ? .integer(Int($0.points)) : .float($0.points) })
    }
}
