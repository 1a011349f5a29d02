import KioskCore
import TestSupport
import Testing

@Suite struct LengthTests {
    @Test(arguments: [
        ("70%", Length.percent(70)), ("1344", .pixels(1344)), ("1344px", .pixels(1344)),
        ("33.5%", .percent(33.5)), (" 40 ", .pixels(40)), ("-5", .pixels(-5)), ("0%", .percent(0)),
    ])
    func parsesPixelsAndPercentages(text: String, expected: Length) {
        #expect(Length(parsing: text) == expected)
    }

    @Test(arguments: ["abc", "%", "12.5", "", "70 %x", "1e3%x", "nan%"])
    func rejectsAnythingElse(text: String) {
        #expect(Length(parsing: text) == nil)
    }

    @Test func percentagesRoundToTheNearestPixelWithHalvesUp() {
        #expect(Length.percent(70).resolved(against: 1920) == 1344)
        #expect(Length.percent(2).resolved(against: 1920) == 38)      // 38.4
        #expect(Length.percent(50).resolved(against: 1921) == 961)    // 960.5
        #expect(Length.percent(2.5).resolved(against: 1000) == 25)
        #expect(Length.pixels(40).resolved(against: 1920) == 40)
    }

    @Test func halfUpRoundingCommutesWithWholeShifts() {
        #expect((-2.5).roundedHalfUp() == -2)
        #expect((2.5).roundedHalfUp() == 3)
        #expect((-57.5).roundedHalfUp() + 1382 == (1324.5).roundedHalfUp())
    }
}

@Suite struct SettingsTests {
    @Test func defaultsAreSeventyPercentSlotsTwoPercentGapsOnBlack() {
        let settings = KioskSettings()
        #expect(settings.layout.slotWidth == .percent(70))
        #expect(settings.layout.spacing == .percent(2))
        #expect(settings.layout.slotHeight == nil)
        #expect(settings.layout.background == .black)
        #expect(settings.images == nil)
    }

    @Test func acceptsStringsAndIntegersForLengths() throws {
        var settings = KioskSettings()
        try settings.set("image_width", to: .string("60%"))
        try settings.set("spacing", to: .integer(24))
        try settings.set("slot_height", to: .string("900"))
        try settings.set("background", to: .string("#10a0Ff"))
        try settings.set("images", to: .string("/srv/photos"))
        #expect(settings.layout.slotWidth == .percent(60))
        #expect(settings.layout.spacing == .pixels(24))
        #expect(settings.layout.slotHeight == .pixels(900))
        #expect(settings.layout.background == RGBColor(red: 0x10, green: 0xA0, blue: 0xFF))
        #expect(settings.images == "/srv/photos")
    }

    @Test func badValuesNameTheSettingAndTheValue() {
        var settings = KioskSettings()
        let error = expectError(SettingError.self) { try settings.set("spacing", to: .string("wide")) }
        #expect(error?.setting == "spacing")
        #expect(error?.description.contains("\"wide\"") == true)
        #expect(error?.description.contains("70%") == true)   // shows what is expected
        #expect(throws: SettingError.self) { try settings.set("background", to: .string("red")) }
        #expect(throws: SettingError.self) { try settings.set("background", to: .integer(0xFF0000)) }
        #expect(throws: SettingError.self) { try settings.set("image_width", to: .boolean(true)) }
        #expect(throws: SettingError.self) { try settings.set("images", to: .string("")) }
        #expect(settings == KioskSettings(), "a rejected value must leave the settings as they were")
    }

    @Test func unknownSettingsListTheKnownOnes() {
        var settings = KioskSettings()
        let error = expectError(SettingError.self) { try settings.set("iamge_width", to: .integer(3)) }
        #expect(error?.setting == "iamge_width")
        #expect(error?.reason.contains("image_width") == true)
    }

    @Test func coloursParseWithOrWithoutHash() {
        #expect(RGBColor(hex: "E02828")?.xrgb == 0xE02828)
        #expect(RGBColor(hex: "#e02828")?.xrgb == 0xE02828)
        #expect(RGBColor(hex: "E0282") == nil)
        #expect(RGBColor(hex: "G02828") == nil)
        #expect(RGBColor(hex: "+02828") == nil)
        #expect(RGBColor(xrgb: 0x0A0B0C).description == "0A0B0C")
    }

    @Test func screenSizesParse() {
        #expect(PixelSize(parsing: "1920x1080") == PixelSize(width: 1920, height: 1080))
        #expect(PixelSize(parsing: "1280X800") == PixelSize(width: 1280, height: 800))
        #expect(PixelSize(parsing: "0x800") == nil)
        #expect(PixelSize(parsing: "1920") == nil)
        #expect(PixelSize(parsing: "1920x1080x2") == nil)
        #expect(PixelSize(parsing: "-1920x1080") == nil)
    }
}

@Suite struct EXIFSettingTests {
    @Test func exifRotateIsOnByDefaultAndTakesBooleans() throws {
        var settings = KioskSettings()
        #expect(settings.exifRotate)
        try settings.set("exif_rotate", to: .boolean(false))
        #expect(!settings.exifRotate)
        try settings.set("exif_rotate", to: .string("true"))
        #expect(settings.exifRotate)
        let error = expectError(SettingError.self) { try settings.set("exif_rotate", to: .string("yes")) }
        #expect(error?.setting == "exif_rotate")
    }
}

@Suite struct InputSettingTests {
    @Test func inputIsAutoByDefaultAndTakesNoneAPathOrAList() throws {
        var settings = KioskSettings()
        #expect(settings.input.devices == nil && !settings.input.grab && settings.input.tapZones)
        #expect(settings.input.calibration == TouchMapping.identity && settings.motion.resumeAfter == 30)
        try settings.set("input", to: .string("none"))
        #expect(settings.input.devices == [])
        try settings.set("input", to: .string("/dev/input/event7"))
        #expect(settings.input.devices == ["/dev/input/event7"])
        try settings.set("input", to: .string("auto"))
        #expect(settings.input.devices == nil)
        for bad: SettingValue in [.string("/etc/passwd"), .string("../event3"), .string("/dev/input/../../etc/shadow"), .list([.integer(3)])] {
            let error = expectError(SettingError.self) { try settings.set("input", to: bad) }
            #expect(error?.reason.hasPrefix("expected \"auto\", \"none\", or a list of /dev/input/eventN paths") == true)
        }
    }

    /// The matrix as libinput's udev property writes it, or a TOML list.
    @Test func calibrationTakesSixNumbers() throws {
        var settings = KioskSettings()
        try settings.set("calibration", to: .string("0 -1 1 1 0 0"))
        #expect(settings.input.calibration == [0, -1, 1, 1, 0, 0])
        try settings.set("calibration", to: .list([.integer(1), .float(0), .integer(0), .integer(0), .float(1.5), .integer(0)]))
        #expect(settings.input.calibration == [1, 0, 0, 0, 1.5, 0])
        for bad: SettingValue in [.string("1 0 0"), .string("1 0 0 0 1 x"), .list([.boolean(true)]), .float(1)] {
            let error = expectError(SettingError.self) { try settings.set("calibration", to: bad) }
            #expect(error?.setting == "calibration")
        }
        #expect(settings.input.calibration == [1, 0, 0, 0, 1.5, 0], "a refused value changes nothing")
    }
}

@Suite struct MotionAndCacheSettingTests {
    @Test func motionDefaultsAreEightSecondsAndAnEasedSlide() throws {
        var settings = KioskSettings()
        #expect(settings.motion == { var m = MotionSettings(); m.interval = 8; m.transition = 0.45; m.easing = .easeInOut; return m }())
        try settings.set("interval", to: .integer(20))
        try settings.set("transition", to: .string("0.8"))
        try settings.set("easing", to: .string("ease-out"))
        #expect(settings.motion.interval == 20 && settings.motion.transition == 0.8 && settings.motion.easing == .easeOut)
    }

    @Test(arguments: [("interval", SettingValue.integer(0)), ("interval", .string("soon")), ("transition", .float(-1)),
                      ("transition", .float(.nan)), ("easing", .string("bouncy")), ("cache_mb", .integer(0)),
                      ("cache_mb", .string("lots"))])
    func badMotionAndCacheValuesAreRefusedByName(_ name: String, _ value: SettingValue) {
        var settings = KioskSettings()
        let error = expectError(SettingError.self) { try settings.set(name, to: value) }
        #expect(error?.setting == name)
        #expect(settings == KioskSettings())
    }

    @Test func cacheIsAutoOrWholeMegabytes() throws {
        var settings = KioskSettings()
        #expect(settings.cacheMegabytes == nil)
        try settings.set("cache_mb", to: .integer(48))
        #expect(settings.cacheMegabytes == 48)
        try settings.set("cache_mb", to: .string("auto"))
        #expect(settings.cacheMegabytes == nil)
    }
}
