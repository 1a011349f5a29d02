import ImageCodecs
import Testing
import TestSupport

/// A Live Photo still's content identifier, from Apple's makernote as an
/// iPhone writes it: big-endian TIFF, `Apple iOS\0`, tag 17 an ASCII UUID
/// stored after the makernote's IFD, at an offset from the makernote's start.
@Suite struct AppleContentIdentifierTests {
    let uuid = "DF64C2AE-ED3C-4778-BFCA-C15277E521D2"

    func makernote(_ entries: [(tag: Int, value: String)]) -> [UInt8] { MotionPhotoBytes.appleMakernote(entries) }

    /// A JPEG's first bytes: SOI and an APP1 EXIF segment whose Exif IFD holds `note` as its MakerNote.
    func jpegHead(makernote note: [UInt8], make: String = "Apple") -> [UInt8] {
        MotionPhotoBytes.withSegment([0xFF, 0xD8, 0xFF, 0xD9], app1: MotionPhotoBytes.exifBody(makernote: note, make: make))
    }

    @Test func anIPhonesLivePhotoStillGivesItsIdentifier() {
        let head = jpegHead(makernote: makernote([(tag: 0x0008, value: "x"), (tag: 0x0011, value: uuid)]))
        #expect(AppleContentIdentifier.read(head) == uuid)
    }

    @Test func aPhotoWithoutTheTagOrTheMakernoteHasNone() {
        #expect(AppleContentIdentifier.read(jpegHead(makernote: makernote([(tag: 0x0008, value: "x")]))) == nil)
        #expect(AppleContentIdentifier.read(jpegHead(makernote: Array("Nikon\0".utf8) + Array(repeating: 0, count: 40), make: "NIKON")) == nil)
        #expect(AppleContentIdentifier.read([0xFF, 0xD8, 0xFF, 0xD9]) == nil)
        #expect(AppleContentIdentifier.read([]) == nil)
    }

    /// Truncated and mutated makernotes give an identifier or none, never a crash.
    @Test func brokenMakernotesNeverCrash() {
        let head = jpegHead(makernote: makernote([(tag: 0x0011, value: uuid)]))
        for cut in stride(from: 0, to: head.count, by: 3) { _ = AppleContentIdentifier.read(Array(head.prefix(cut))) }
        var random = SplitMix(seed: 48)
        for _ in 0..<2000 {
            var mutated = head
            for _ in 0..<3 { mutated[random.below(mutated.count)] = UInt8(truncatingIfNeeded: random.next()) }
            _ = AppleContentIdentifier.read(mutated)
        }
    }
}
