import KioskCore
import TestSupport
import Testing

let bochsModes = [
    DisplayMode(size: PixelSize(width: 1280, height: 800), refreshRate: 74.99, preferred: true),
    DisplayMode(size: PixelSize(width: 1920, height: 1080), refreshRate: 60.0, preferred: false),
    DisplayMode(size: PixelSize(width: 1920, height: 1080), refreshRate: 50.0, preferred: false),
    DisplayMode(size: PixelSize(width: 1920, height: 1080), refreshRate: 59.94, preferred: false),
    DisplayMode(size: PixelSize(width: 640, height: 480), refreshRate: 59.94, preferred: false),
]

@Suite struct ModeRequestTests {
    @Test func parsesAutoSizesAndRates() {
        #expect(ModeRequest(parsing: "auto") == .preferred)
        #expect(ModeRequest(parsing: "1920x1080") == .size(PixelSize(width: 1920, height: 1080), refreshRate: nil))
        #expect(ModeRequest(parsing: "1920x1080@60") == .size(PixelSize(width: 1920, height: 1080), refreshRate: 60))
        for bad in ["", "Auto", "1920", "1920x1080@", "1920x1080@0", "1920x1080@60@2", "x1080", "1920x1080@sixty"] {
            #expect(ModeRequest(parsing: bad) == nil, "\(bad)")
        }
    }

    @Test func autoTakesThePreferredMode() {
        #expect(ModeRequest.preferred.choose(from: bochsModes) == bochsModes[0])
        // No preferred mode: the first listed (the kernel lists the largest first).
        #expect(ModeRequest.preferred.choose(from: Array(bochsModes.dropFirst())) == bochsModes[1])
        #expect(ModeRequest.preferred.choose(from: []) == nil)
    }

    @Test func aSizeTakesItsFastestModeAndARateMatchesToTheWholeHertz() {
        let fullHD = PixelSize(width: 1920, height: 1080)
        #expect(ModeRequest.size(fullHD, refreshRate: nil).choose(from: bochsModes) == bochsModes[1])
        #expect(ModeRequest.size(fullHD, refreshRate: 50).choose(from: bochsModes) == bochsModes[2])
        // 59.94 Hz answers to @60; of the two @60 modes the faster wins.
        #expect(ModeRequest.size(fullHD, refreshRate: 60).choose(from: bochsModes) == bochsModes[1])
        #expect(ModeRequest.size(PixelSize(width: 640, height: 480), refreshRate: 60).choose(from: bochsModes) == bochsModes[4])
        #expect(ModeRequest.size(fullHD, refreshRate: 30).choose(from: bochsModes) == nil)
        #expect(ModeRequest.size(PixelSize(width: 3840, height: 2160), refreshRate: nil).choose(from: bochsModes) == nil)
    }

    @Test func modesPrintAsTheConfigSpellsThem() {
        #expect(bochsModes[3].description == "1920x1080@60")
        #expect(bochsModes[0].description == "1280x800@75")
    }
}

@Suite struct RotationTests {
    @Test func quarterTurnsSwapTheLayoutSize() {
        let panel = PixelSize(width: 1920, height: 1080)
        #expect(Rotation.none.logicalSize(of: panel) == panel)
        #expect(Rotation.half.logicalSize(of: panel) == panel)
        #expect(Rotation.quarter.logicalSize(of: panel) == PixelSize(width: 1080, height: 1920))
        #expect(Rotation.threeQuarters.logicalSize(of: panel) == PixelSize(width: 1080, height: 1920))
    }

    @Test func onlyRightAnglesParse() {
        #expect(Rotation(parsing: "90") == .quarter)
        #expect(Rotation(parsing: "0") == Rotation.none)
        #expect(Rotation(parsing: "45") == nil)
        #expect(Rotation(parsing: "-90") == nil)
        #expect(Rotation(parsing: "right") == nil)
    }
}

@Suite struct CRTCChoiceTests {
    @Test func theCurrentCRTCIsKept() {
        #expect(chooseCRTC(current: 42, possibleMasks: [0b01], crtcs: [41, 42]) == 42)
    }

    @Test func otherwiseTheFirstPossibleCRTCOfAnyEncoder() {
        #expect(chooseCRTC(current: nil, possibleMasks: [0b10], crtcs: [41, 42]) == 42)
        #expect(chooseCRTC(current: 0, possibleMasks: [0b100, 0b011], crtcs: [41, 42, 43]) == 43)
        #expect(chooseCRTC(current: 99, possibleMasks: [0b01], crtcs: [41, 42]) == 41)   // stale id
    }

    @Test func noPossibleCRTCIsNil() {
        #expect(chooseCRTC(current: nil, possibleMasks: [0], crtcs: [41]) == nil)
        #expect(chooseCRTC(current: nil, possibleMasks: [], crtcs: [41]) == nil)
        #expect(chooseCRTC(current: nil, possibleMasks: [0b10], crtcs: [41]) == nil)
    }
}

@Suite struct DisplaySettingsTests {
    @Test func displaySettingsParseAndAutoMeansNil() throws {
        var settings = KioskSettings()
        try settings.set("device", to: .string("/dev/dri/card1"))
        try settings.set("connector", to: .string("HDMI-A-1"))
        try settings.set("mode", to: .string("1920x1080@60"))
        try settings.set("rotation", to: .integer(270))
        #expect(settings.display.device == "/dev/dri/card1")
        #expect(settings.display.connector == "HDMI-A-1")
        #expect(settings.display.mode == .size(PixelSize(width: 1920, height: 1080), refreshRate: 60))
        #expect(settings.display.rotation == .threeQuarters)
        try settings.set("device", to: .string("auto"))
        try settings.set("connector", to: .string("auto"))
        try settings.set("rotation", to: .string("0"))
        #expect(settings.display == DisplaySettings().with { $0.mode = .size(PixelSize(width: 1920, height: 1080), refreshRate: 60) })
    }

    @Test func badDisplaySettingsNameThemselves() {
        var settings = KioskSettings()
        for (name, value) in [("mode", SettingValue.string("big")), ("rotation", .integer(45)), ("device", .integer(0)),
                              ("connector", .string(""))] {
            let error = expectError(SettingError.self) { try settings.set(name, to: value) }
            #expect(error?.setting == name)
        }
    }
}

extension DisplaySettings {
    func with(_ change: (inout DisplaySettings) -> Void) -> DisplaySettings {
        var copy = self
        change(&copy)
        return copy
    }
}
