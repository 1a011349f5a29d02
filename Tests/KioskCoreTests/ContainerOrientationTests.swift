import KioskCore
import Testing

/// A HEIF or AVIF container turns its picture with `irot` (quarter turns
/// anticlockwise) and then `imir`; the same turns as EXIF names them.
@Suite struct ContainerOrientationTests {
    @Test func quarterTurnsAreTheEXIFTurns() {
        #expect(ImageOrientation(quarterTurnsAnticlockwise: 0, mirror: nil) == .upright)
        #expect(ImageOrientation(quarterTurnsAnticlockwise: 1, mirror: nil) == .turnedCounterClockwise)
        #expect(ImageOrientation(quarterTurnsAnticlockwise: 2, mirror: nil) == .upsideDown)
        #expect(ImageOrientation(quarterTurnsAnticlockwise: 3, mirror: nil) == .turnedClockwise)
    }

    /// The box's own note: mode 0 is EXIF 4, mode 1 is EXIF 2.
    @Test func mirrorsAloneAreTheEXIFMirrors() {
        #expect(ImageOrientation(quarterTurnsAnticlockwise: 0, mirror: .topAndBottom) == .mirroredUpsideDown)
        #expect(ImageOrientation(quarterTurnsAnticlockwise: 0, mirror: .leftAndRight) == .mirrored)
    }

    /// Turned, then mirrored: a phone's selfie held upright.
    @Test func aTurnThenAMirrorIsATransposeOrATransverse() {
        // A quarter turn anticlockwise takes the top right corner to the top
        // left; exchanging left and right takes it back: it stays where it
        // was, the anti-diagonal's end (EXIF 7).
        #expect(ImageOrientation(quarterTurnsAnticlockwise: 1, mirror: .leftAndRight) == .transversed)
        // Clockwise, the top left corner goes to the top right, and the mirror
        // brings it back: the main diagonal (EXIF 5). So does a turn
        // anticlockwise with top and bottom exchanged.
        #expect(ImageOrientation(quarterTurnsAnticlockwise: 3, mirror: .leftAndRight) == .transposed)
        #expect(ImageOrientation(quarterTurnsAnticlockwise: 1, mirror: .topAndBottom) == .transposed)
        // Every combination is some orientation, and all eight are reached.
        let all = Set((0..<4).flatMap { turns in [nil, .topAndBottom, .leftAndRight].map { ImageOrientation(quarterTurnsAnticlockwise: turns, mirror: $0) } })
        #expect(all.count == 8)
    }
}
