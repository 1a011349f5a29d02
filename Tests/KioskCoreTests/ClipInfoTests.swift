import KioskCore
import Testing

/// A clip's log words: what an operator reads of each clip met.
@Suite struct ClipInfoTests {
    @Test func theLogWordsSayCodecSizeDepthRateAndLength() {
        let phone = ClipInfo(codec: "HEVC", size: PixelSize(width: 1080, height: 1920), depth: 10, length: 12.44, framesPerSecond: 29.97, highDynamicRange: "HLG")
        #expect(phone.description == "HEVC 1080x1920 10-bit HLG, 30 fps, 12.4 s")
        let plain = ClipInfo(codec: "H.264", size: PixelSize(width: 320, height: 180), depth: 8, length: 3, framesPerSecond: 10)
        #expect(plain.description == "H.264 320x180, 10 fps, 3 s")
        // A container that says neither its rate nor its length.
        let bare = ClipInfo(codec: "VP9", size: PixelSize(width: 64, height: 48), depth: 8, length: nil, framesPerSecond: .infinity)
        #expect(bare.description == "VP9 64x48")
        #expect(ClipInfo(codec: "AV1", size: PixelSize(width: 8, height: 8), depth: 8, length: 0.06, framesPerSecond: 23.976).description == "AV1 8x8, 24 fps, 0.1 s")
    }
}
