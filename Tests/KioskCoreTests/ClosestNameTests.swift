import KioskCore
import TestSupport
import Testing

@Suite struct ClosestNameTests {
    @Test(arguments: [
        ("imagewidth", "image_width"), ("image-width", "image_width"), ("Image_Width", "image_width"),
        ("intervall", "interval"), ("backgroud", "background"), ("tranistion", "transition"),
        ("roation", "rotation"), ("spaceing", "spacing"), ("socket_grup", "socket_group"), ("tap_zone", "tap_zones"),
    ])
    func aTypoFindsTheSettingMeant(typed: String, meant: String) {
        #expect(closestName(to: typed, among: KioskSettings.table.keys) == meant)
    }

    @Test func aNameNothingLikeASettingFindsNone() {
        for typed in ["xyzzy", "contrast", "a", "", "volume"] {
            #expect(closestName(to: typed, among: KioskSettings.table.keys) == nil, "\(typed)")
        }
    }

    @Test func theRefusalSaysWhichSettingWasMeant() {
        var settings = KioskSettings()
        let error = expectError(SettingError.self) { try settings.set("intervall", to: .integer(5)) }
        #expect(error?.reason.hasPrefix("unknown setting; did you mean interval? known settings are images, ") == true, "\(String(describing: error))")
        let other = expectError(SettingError.self) { try settings.set("volume", to: .integer(5)) }
        #expect(other?.reason.hasPrefix("unknown setting; known settings are images, ") == true)
    }
}
