/// Motion photos and Live Photo stills built as phones write them, byte by
/// byte, around a real JPEG the test encodes: an XMP packet in an APP1
/// segment (Google's Motion Photo 1.0, the older MVIMG), and Apple's
/// makernote with a Live Photo's content identifier in an EXIF segment.
public enum MotionPhotoBytes {
    /// `jpeg` with an APP1 segment of `body` right after its SOI.
    public static func withSegment(_ jpeg: [UInt8], app1 body: [UInt8]) -> [UInt8] {
        let length = body.count + 2
        return Array(jpeg.prefix(2)) + [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + body + Array(jpeg.dropFirst(2))
    }

    /// `jpeg` with `packet` as its standard XMP.
    public static func withXMP(_ jpeg: [UInt8], _ packet: String) -> [UInt8] {
        withSegment(jpeg, app1: Array("http://ns.adobe.com/xap/1.0/".utf8) + [0] + Array(packet.utf8))
    }

    /// An XMP packet around `description` (rdf:Description elements).
    public static func xmp(_ description: String) -> String {
        """
        <?xpacket begin="\u{FEFF}" id="W5M0MpCehiHzreSzNTczkc9d"?>
        <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
        \(description)
        </rdf:RDF></x:xmpmeta>
        <?xpacket end="w"?>
        """
    }

    /// Google's Motion Photo 1.0 as a Pixel writes it (attributes, `GCamera`
    /// for the camera namespace): a primary JPEG and a movie of `videoLength` bytes after it.
    public static func googleXMP(videoLength: Int) -> String {
        xmp("""
        <rdf:Description rdf:about="" xmlns:GCamera="http://ns.google.com/photos/1.0/camera/"
          xmlns:Container="http://ns.google.com/photos/1.0/container/" xmlns:Item="http://ns.google.com/photos/1.0/container/item/"
          GCamera:MotionPhoto="1" GCamera:MotionPhotoVersion="1" GCamera:MotionPhotoPresentationTimestampUs="968644">
         <Container:Directory><rdf:Seq>
          <rdf:li rdf:parseType="Resource"><Container:Item Item:Mime="image/jpeg" Item:Semantic="Primary" Item:Length="0" Item:Padding="0"/></rdf:li>
          <rdf:li rdf:parseType="Resource"><Container:Item Item:Mime="video/mp4" Item:Semantic="MotionPhoto" Item:Length="\(videoLength)"/></rdf:li>
         </rdf:Seq></Container:Directory>
        </rdf:Description>
        """)
    }

    /// An older MVIMG's XMP: only `GCamera:MicroVideoOffset`, the movie's length counted from the end.
    public static func microVideoXMP(offset: Int) -> String {
        xmp("""
        <rdf:Description rdf:about="" xmlns:GCamera="http://ns.google.com/photos/1.0/camera/"
          GCamera:MicroVideo="1" GCamera:MicroVideoVersion="1" GCamera:MicroVideoOffset="\(offset)"
          GCamera:MicroVideoPresentationTimestampUs="1331607"/>
        """)
    }

    static func be16(_ v: Int) -> [UInt8] { [UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
    static func be32(_ v: Int) -> [UInt8] { [UInt8(v >> 24 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }

    /// An Apple makernote as an iPhone writes it: big-endian, `Apple iOS\0`,
    /// `entries` (tag, ASCII value) with their values after the IFD, at
    /// offsets from the makernote's start (tag 17 is the content identifier).
    public static func appleMakernote(_ entries: [(tag: Int, value: String)]) -> [UInt8] {
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

    /// An APP1 EXIF segment's body: IFD0 with `Make` and the Exif IFD, whose MakerNote is `note`.
    public static func exifBody(makernote note: [UInt8], make: String = "Apple") -> [UInt8] {
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
        return Array("Exif".utf8) + [0, 0] + tiff
    }

    /// `jpeg` as a Live Photo's still: its EXIF carries `identifier` in Apple's makernote.
    public static func livePhotoStill(_ jpeg: [UInt8], identifier: String) -> [UInt8] {
        withSegment(jpeg, app1: exifBody(makernote: appleMakernote([(tag: 0x0008, value: "x"), (tag: 0x0011, value: identifier)])))
    }
}
