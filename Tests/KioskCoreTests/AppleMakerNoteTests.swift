import KioskCore
import Testing
import TestSupport

/// Tag 17 of Apple's makernote read from the makernote's own bytes, in
/// either byte order, and nothing from makernotes that are not Apple's or
/// are broken.
@Suite struct AppleMakerNoteTests {
    let uuid = "0B7E8D5A-51C2-4E0A-9D1B-2C7F6E3A9B10"

    /// An Apple makernote in byte order `mm` (else `II`) holding `value` as tag `tag`, type `type`.
    func note(_ value: String, tag: Int = 0x11, type: Int = 2, mm: Bool = true) -> [UInt8] {
        func n16(_ v: Int) -> [UInt8] { mm ? [UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] : [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }
        func n32(_ v: Int) -> [UInt8] { let b = (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) }; return mm ? b.reversed() : b }
        let bytes = Array(value.utf8) + [0]
        let head = Array("Apple iOS".utf8) + [0, 0, 1] + Array((mm ? "MM" : "II").utf8) + n16(1)
        let offset = head.count + 12 + 4
        let field = bytes.count <= 4 ? bytes + Array(repeating: 0, count: 4 - bytes.count) : n32(offset)
        return head + n16(tag) + n16(type) + n32(bytes.count) + field + n32(0) + (bytes.count <= 4 ? [] : bytes)
    }

    @Test func theIdentifierIsReadInEitherByteOrder() {
        #expect(AppleMakerNote.contentIdentifier(in: note(uuid)) == uuid)
        #expect(AppleMakerNote.contentIdentifier(in: note(uuid, mm: false)) == uuid)
        // A value of four bytes or fewer sits in the entry itself.
        #expect(AppleMakerNote.contentIdentifier(in: note("AB1")) == "AB1")
    }

    @Test func otherTagsTypesAndMakernotesGiveNothing() {
        #expect(AppleMakerNote.contentIdentifier(in: note(uuid, tag: 0x0B)) == nil)
        #expect(AppleMakerNote.contentIdentifier(in: note(uuid, type: 7)) == nil)
        var nikon = note(uuid)
        nikon.replaceSubrange(0..<5, with: Array("Nikon".utf8))
        #expect(AppleMakerNote.contentIdentifier(in: nikon) == nil)
        var order = note(uuid)
        order[12] = 0x58
        #expect(AppleMakerNote.contentIdentifier(in: order) == nil)
        #expect(AppleMakerNote.contentIdentifier(in: Array(note(uuid).dropLast(10))) == nil, "the value runs past the end")
        #expect(AppleMakerNote.contentIdentifier(in: []) == nil)
    }

    /// A bounded fuzz run: makernotes cut and changed at random never
    /// crash the reader, and what it reads is printable ASCII.
    @Test func brokenMakernotesNeverCrash() {
        var random = SplitMix(seed: 17)
        let good = note(uuid)
        for _ in 0..<5000 {
            var bytes = Array(good.prefix(random.below(good.count + 1)))
            for _ in 0..<random.below(4) where !bytes.isEmpty { bytes[random.below(bytes.count)] = UInt8(truncatingIfNeeded: random.next()) }
            if let read = AppleMakerNote.contentIdentifier(in: bytes) {
                #expect(read.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F })
            }
        }
    }
}
