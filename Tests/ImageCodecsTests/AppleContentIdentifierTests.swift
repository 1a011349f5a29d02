import ImageCodecs
import Testing
import TestSupport

/// A Live Photo still's content identifier, from Apple's makernote as an
/// iPhone writes it: big-endian TIFF, `Apple iOS\0`, tag 17 an ASCII UUID
/// stored after the makernote's IFD, at an offset from the makernote's start.
@Suite struct AppleContentIdentifierTests {
    let uuid = "DF64C2AE-ED3C-4778-BFCA-C15277E521D2"

    func be16(_ v: Int) -> [UInt8] { [UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
    func be32(_ v: Int) -> [UInt8] { [UInt8(v >> 24 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }

    /// An Apple makernote holding `entries` (tag, ASCII value), values after the IFD.
    func makernote(_ entries: [(tag: Int, value: String)]) -> [UInt8] {
        var head = Array("Apple iOS".utf8) + [0, 0, 1] + Array("MM".utf8) + be16(entries.count)
        var values: [UInt8] = []
        let valuesStart = head.count + 12 * entries.count + 4
        for entry in entries {
            let bytes = Array(entry.value.utf8) + [0]
            head += be16(entry.tag) + be16(2) + be32(bytes.count) + be32(valuesStart + values.count)
            values += bytes
        }
        return head + be32(0) + values
    }

    /// A JPEG's first bytes: SOI and an APP1 EXIF segment whose Exif IFD holds `note` as its MakerNote.
    func jpegHead(makernote note: [UInt8], make: String = "Apple") -> [UInt8] {
        let makeBytes = Array(make.utf8) + [0]
        // IFD0 at 8: Make (ASCII, after the IFD) and the Exif IFD's pointer.
        let ifd0 = 8, ifd0Size = 2 + 2 * 12 + 4
        let makeAt = ifd0 + ifd0Size, exifAt = makeAt + makeBytes.count
        let exifSize = 2 + 12 + 4, noteAt = exifAt + exifSize
        var tiff = Array("MM".utf8) + be16(42) + be32(ifd0)
        tiff += be16(2) + be16(0x010F) + be16(2) + be32(makeBytes.count) + be32(makeAt)
        tiff += be16(0x8769) + be16(4) + be32(1) + be32(exifAt) + be32(0)
        tiff += makeBytes
        tiff += be16(1) + be16(0x927C) + be16(7) + be32(note.count) + be32(noteAt) + be32(0)
        tiff += note
        let app1 = Array("Exif".utf8) + [0, 0] + tiff
        return [0xFF, 0xD8, 0xFF, 0xE1] + be16(app1.count + 2) + app1 + [0xFF, 0xD9]
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
