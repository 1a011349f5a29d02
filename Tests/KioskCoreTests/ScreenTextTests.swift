import Testing
import TestSupport
@testable import KioskCore

/// The pure parts of words on the screen: wrapping, cleaning, captions
/// from templates, strftime patterns, the clock's minute and corner,
/// a message's expiry, and where text lands on a turned panel.
/// Why `body` failed with a `type`: its reason (an issue is recorded when it did not).
func reason<Failure: Error>(_ type: Failure.Type, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Any) -> String {
    switch expectError(type, sourceLocation: sourceLocation, body) {
    case let problem as SettingProblem: problem.reason
    case let error as SettingError: error.reason
    default: ""
    }
}

@Suite struct LineWrappingTests {
    /// Every character 10 pixels wide: widths easy to reason about.
    func measure(_ text: String) -> Int { text.count * 10 }

    @Test func textWrapsAtSpacesToTheWidth() {
        let lines = LineWrapping.lines(of: "the quick brown fox jumps", width: 100, maxLines: 5, measure: measure)
        #expect(lines == ["the quick", "brown fox", "jumps"])
        #expect(lines.allSatisfy { measure($0) <= 100 })
    }

    @Test func aLineBreakStartsANewLine() {
        #expect(LineWrapping.lines(of: "Title\n12 May 2024", width: 1000, maxLines: 3, measure: measure) == ["Title", "12 May 2024"])
    }

    @Test func textBeyondTheLinesIsCutWithAnEllipsisThatFits() {
        let lines = LineWrapping.lines(of: "one two three four five six seven", width: 80, maxLines: 2, measure: measure)
        #expect(lines.count == 2)
        #expect(lines[0] == "one two")
        #expect(lines[1].hasSuffix("…"))
        #expect(measure(lines[1]) <= 80)
        // Cut by a third paragraph too.
        #expect(LineWrapping.lines(of: "a\nb\nc", width: 100, maxLines: 2, measure: measure) == ["a", "b…"])
    }

    @Test func aWordWiderThanALineIsBrokenBetweenCharacters() {
        // CJK has no spaces: it wraps between characters.
        let lines = LineWrapping.lines(of: "你好世界你好世界", width: 30, maxLines: 4, measure: measure)
        #expect(lines == ["你好世", "界你好", "世界"])
    }

    @Test func textThatFitsIsUntouched() {
        #expect(LineWrapping.lines(of: "short", width: 100, maxLines: 1, measure: measure) == ["short"])
        #expect(LineWrapping.lines(of: "", width: 100, maxLines: 1, measure: measure) == [""])
    }
}

@Suite struct DisplayTextTests {
    @Test func controlsBecomeSpacesAndLineBreaksStay() {
        #expect(DisplayText.cleaned("Harbour\tat\u{07}dusk\r\nSecond   line ") == "Harbour at dusk\nSecond line")
    }

    @Test func bidiOverridesAreDropped() {
        // An override would turn "txt.exe" around; the bidi algorithm alone orders each line.
        #expect(DisplayText.cleaned("photo\u{202E}gpj.exe\u{202C} and \u{2067}isolate\u{2069}") == "photogpj.exe and isolate")
    }

    @Test func invalidUTF8BecomesReplacementCharacters() {
        let bytes: [UInt8] = [0x43, 0x61, 0x66, 0xC3, 0x28, 0xFF, 0x21]  // "Caf", a broken é, 0xFF, "!"
        let cleaned = DisplayText.cleaned(utf8: bytes)
        #expect(cleaned.hasPrefix("Caf\u{FFFD}"))
        #expect(cleaned.hasSuffix("!"))
    }

    @Test func aHugeDescriptionIsCutToWhatCanBeShown() {
        let huge = String(repeating: "word ", count: 20_000)
        let cleaned = DisplayText.cleaned(huge)
        #expect(cleaned.unicodeScalars.count <= DisplayText.maxScalars + 1)
        #expect(cleaned.hasSuffix("…"))
    }
}

@Suite struct CaptionTemplateTests {
    func caption(_ template: String, title: String? = "Harbour", date: String? = "12 May 2024") throws -> String {
        try CaptionTemplate(parsing: template).caption(
            value: { field in
                switch field {
                case .title: title
                case .file: "IMG_0042"
                case .folder: "Holidays"
                case .people: "Anna, Grandma"
                case .album: nil
                case .date: nil
                }
            },
            date: { _ in date })
    }

    @Test func fieldsAreFilledLineByLine() throws {
        #expect(try caption("{title}\n{date:%e %B %Y}") == "Harbour\n12 May 2024")
        #expect(try caption("{folder}: {file}") == "Holidays: IMG_0042")
        #expect(try caption("{people}\n{album}") == "Anna, Grandma", "a server's fields; a line with none left out")
        #expect(try caption("{{{title}}}") == "{Harbour}")
    }

    @Test func aLineWhoseFieldsAreAllEmptyIsLeftOut() throws {
        #expect(try caption("Title: {title}\n{date}", title: nil) == "12 May 2024")
        #expect(try caption("{title}\nTaken {date}", title: "  ", date: nil) == "")
        #expect(try caption("Our shop\n{title}", title: nil) == "Our shop")
    }

    @Test func theDatesPatternIsPassedOn() throws {
        var asked: [String] = []
        _ = try CaptionTemplate(parsing: "{date}|{date:%Y}").caption(value: { _ in nil }, date: { asked.append($0.text); return "x" })
        #expect(asked == ["%e %B %Y", "%Y"])
    }

    @Test func aBadTemplateSaysWhatIsWrong() {
        let why1 = reason(SettingProblem.self) { try CaptionTemplate(parsing: "{place}") }
        #expect(why1.contains("{place} is not a caption field") && why1.contains("{title}, {date}, {file}, {folder}"))
        let why0 = reason(SettingProblem.self) { try CaptionTemplate(parsing: "{title") }
        #expect(why0.contains("never closed"))
        let why2 = reason(SettingProblem.self) { try CaptionTemplate(parsing: "title}") }
        #expect(why2.contains("no {"))
        let why3 = reason(SettingProblem.self) { try CaptionTemplate(parsing: "{file:%Y}") }
        #expect(why3.contains("only {date}"))
        let why4 = reason(SettingProblem.self) { try CaptionTemplate(parsing: "{date:%Q}") }
        #expect(why4.contains("%Q is not a strftime conversion"))
    }
}

@Suite struct ClockAndMessageTests {
    @Test func strftimePatternsAreCheckedConversionByConversion() throws {
        _ = try StrftimePattern("%H:%M  %a %-d %b %Y %Ey %Om %_5H 100%%")
        let why5 = reason(SettingProblem.self) { try StrftimePattern("%H:%M %J") }
        #expect(why5.contains("%J"))
        let why6 = reason(SettingProblem.self) { try StrftimePattern("at 5%") }
        #expect(why6.contains("lone %"))
        #expect(try StrftimePattern("%H:%M:%S").showsSeconds)
        #expect(try StrftimePattern("%T").showsSeconds)
        #expect(try !StrftimePattern("%H:%M 100%%S").showsSeconds)
    }

    @Test func theClockSettingRefusesSeconds() throws {
        var settings = KioskSettings()
        try settings.set("clock", to: .string("%a %H:%M"))
        #expect(settings.text.clock?.text == "%a %H:%M")
        let why7 = reason(SettingError.self) { try settings.set("clock", to: .string("%H:%M:%S")) }
        #expect(why7.contains("once a minute"))
        try settings.set("clock", to: .string("none"))
        #expect(settings.text.clock == nil)
    }

    @Test func theClockTurnsAtEachMinute() {
        #expect(MinuteTurns.next(after: 1_700_000_000) == 1_700_000_040)  // 22:13:20 UTC: next turn 22:14:00
        #expect(MinuteTurns.next(after: 1_700_000_040) == 1_700_000_100)  // on a turn: the next one
        #expect(MinuteTurns.minute(of: 1_700_000_039.9) == MinuteTurns.minute(of: 1_700_000_000))
        #expect(MinuteTurns.minute(of: 1_700_000_040) == MinuteTurns.minute(of: 1_700_000_000) + 1)
    }

    @Test func aCornerPutsTheBoxInsideTheMargins() {
        let screen = PixelSize(width: 1920, height: 1080), box = PixelSize(width: 200, height: 50)
        #expect(ScreenCorner.topLeft.origin(of: box, on: screen, margin: 10) == (10, 10))
        #expect(ScreenCorner.bottomRight.origin(of: box, on: screen, margin: 10) == (1710, 1020))
        let corner = ScreenCorner(rawValue: "top-right")
        #expect(corner == .topRight)
        #expect(ScreenCorner.topRight.origin(of: box, on: screen, margin: 10) == (1710, 10))
    }

    @Test func aMessageIsShownUntilItExpires() {
        let message = ScreenMessage(text: "Closing in 15 minutes", expires: 600)
        #expect(message.isShown(at: 599.9))
        #expect(!message.isShown(at: 600))
        #expect(ScreenMessage(text: "Until cleared", expires: nil).isShown(at: 1e9))
    }

    @Test func textSizeFollowsTheScreensHeight() {
        let size = TextSize(points: 20)
        #expect(size.pixels(onScreenHeight: 1080) == 27)
        #expect(size.pixels(onScreenHeight: 2160) == 53)
        #expect(size.pixels(onScreenHeight: 720) == 18)
    }

    @Test func textSettingsAreCheckedWithClearErrors() throws {
        var settings = KioskSettings()
        try settings.set("caption", to: .string("{title}\n{date:%e %B %Y}"))
        #expect(settings.text.caption?.fields == [.title, .date])
        try settings.set("text_style", to: .string("band"))
        #expect(settings.text.legibility == .band)
        let why8 = reason(SettingError.self) { try settings.set("text_style", to: .string("glow")) }
        #expect(why8.contains("outline, shadow, band or none"))
        let why9 = reason(SettingError.self) { try settings.set("text_size", to: .integer(0)) }
        #expect(why9.contains("4 to 200"))
        let why10 = reason(SettingError.self) { try settings.set("caption_lines", to: .integer(0)) }
        #expect(why10.contains("1 to 10"))
        let why11 = reason(SettingError.self) { try settings.set("locale", to: .string("de_DE; rm -rf")) }
        #expect(why11.contains("locale"))
        let why12 = reason(SettingError.self) { try settings.set("caption", to: .string("{when}")) }
        #expect(why12.contains("{when} is not a caption field"))
    }
}

@Suite struct PanelPlacementTests {
    /// Every point of a rectangle lands inside its panel rectangle, and the rectangle's area is kept.
    @Test(arguments: Rotation.allCases)
    func aScreenRectangleLandsOnItsPanelRectangle(_ rotation: Rotation) {
        let screen = PixelSize(width: 40, height: 30)
        let rect = PixelRect(x: 3, y: 5, width: 7, height: 4)
        let panel = rotation.panelRect(of: rect, screen: screen)
        #expect(panel.width * panel.height == 28)
        let turned = rotation.logicalSize(of: screen)
        for y in rect.y..<(rect.y + rect.height) {
            for x in rect.x..<(rect.x + rect.width) {
                let point = rotation.panelPoint(ofScreenX: x, y: y, screen: screen)
                #expect(point.x >= panel.x && point.x < panel.x + panel.width && point.y >= panel.y && point.y < panel.y + panel.height)
                #expect(point.x >= 0 && point.x < turned.width && point.y >= 0 && point.y < turned.height)
            }
        }
    }
}
