import Foundation
import ImageCodecs
import KioskCore
import KioskRendering
import Testing
import TestSupport

/// Motion photos made here as the phones make them: a real JPEG, its XMP
/// in an APP1 segment, and the movie after it (Google's Motion Photo 1.0,
/// the older MVIMG, Samsung's trailer); the probe finds exactly the movie's
/// bytes, and nothing where the XMP outlived its video.
@Suite struct MotionPhotoProbeTests {
    /// A stand-in movie: an `ftyp` box, a `moov` header and bytes.
    let movie: [UInt8] = {
        // In parts: Swift 6.0's type checker gives up on the sum written whole.
        let fileType: [UInt8] = [0, 0, 0, 0x18] + Array("ftypisom".utf8) + [0, 0, 2, 0] + Array("isomiso2".utf8)
        let movieBox: [UInt8] = [0, 0, 0x10, 0x08] + Array("moov".utf8)
        return fileType + movieBox + [UInt8](repeating: 0x42, count: 4096)
    }()

    func still() throws -> [UInt8] {
        try JPEGCodec.encode(RasterImage(size: PixelSize(width: 64, height: 48), filledWith: RGBColor(xrgb: 0x3060C0)))
    }

    func withXMP(_ jpeg: [UInt8], _ packet: String) -> [UInt8] { MotionPhotoBytes.withXMP(jpeg, packet) }
    func xmp(_ description: String) -> String { MotionPhotoBytes.xmp(description) }
    func googleXMP(videoLength: Int) -> String { MotionPhotoBytes.googleXMP(videoLength: videoLength) }

    func write(_ bytes: [UInt8]) throws -> (path: String, folder: ScratchFolder) {
        let folder = try ScratchFolder()
        return (try folder.write("PXL_20260501_123456789.MP.jpg", bytes), folder)
    }

    func range(_ bytes: [UInt8]) throws -> Range<Int64>? {
        let file = try write(bytes)
        return MotionPhotoProbe.video(in: file.path)
    }

    @Test func aGoogleMotionPhotosMovieIsFoundByItsDirectory() throws {
        let photo = withXMP(try still(), googleXMP(videoLength: movie.count))
        let file = try write(photo + movie)
        let facts = try #require(MotionPhotoProbe.read(file.path))
        #expect(facts.saysMotionPhoto)
        #expect(facts.directory.map(\.semantic) == ["Primary", "MotionPhoto"])
        #expect(facts.directory.last?.length == Int64(movie.count))
        #expect(MotionPhotoProbe.video(in: file.path) == Int64(photo.count)..<Int64(photo.count + movie.count))
    }

    /// Samsung writes the directory's items as elements, not attributes.
    @Test func theDirectoryIsReadInItsElementFormToo() throws {
        let packet = xmp("""
        <rdf:Description rdf:about="" xmlns:GCamera="http://ns.google.com/photos/1.0/camera/"
          xmlns:Container="http://ns.google.com/photos/1.0/container/" xmlns:Item="http://ns.google.com/photos/1.0/container/item/">
         <GCamera:MotionPhoto>1</GCamera:MotionPhoto>
         <Container:Directory><rdf:Seq>
          <rdf:li rdf:parseType="Resource"><Container:Item rdf:parseType="Resource">
            <Item:Mime>image/jpeg</Item:Mime><Item:Semantic>Primary</Item:Semantic><Item:Length>0</Item:Length><Item:Padding>0</Item:Padding>
          </Container:Item></rdf:li>
          <rdf:li rdf:parseType="Resource"><Container:Item rdf:parseType="Resource">
            <Item:Mime>video/mp4</Item:Mime><Item:Semantic>MotionPhoto</Item:Semantic><Item:Length>\(movie.count)</Item:Length>
          </Container:Item></rdf:li>
         </rdf:Seq></Container:Directory>
        </rdf:Description>
        """)
        let photo = withXMP(try still(), packet)
        #expect(try range(photo + movie) == Int64(photo.count)..<Int64(photo.count + movie.count))
    }

    @Test func anMVIMGsMovieIsFoundByItsOffset() throws {
        let photo = withXMP(try still(), MotionPhotoBytes.microVideoXMP(offset: movie.count))
        #expect(try range(photo + movie) == Int64(photo.count)..<Int64(photo.count + movie.count))
    }

    /// An MVIMG whose XMP exempi wrote (its own serialisation: elements,
    /// the prefix it was given registered anew), the movie appended.
    @Test func anOffsetWrittenByExempiIsRead() throws {
        let folder = try ScratchFolder()
        let path = try folder.write("MVIMG_20190101_120000.jpg", try still())
        let camera = ["-w", "-n", "http://ns.google.com/photos/1.0/camera/", "GCamera"]
        try runTool("exempi", camera + ["-s", "GCamera:MicroVideo", "-v", "1", path])
        try runTool("exempi", camera + ["-s", "GCamera:MicroVideoOffset", "-v", "\(movie.count)", path])
        let photo = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        try folder.write("MVIMG_20190101_120000.jpg", photo + movie)
        #expect(MotionPhotoProbe.video(in: path) == Int64(photo.count)..<Int64(photo.count + movie.count))
    }

    /// An editor kept the XMP and dropped the movie: nothing plays. A
    /// plain photo has nothing either.
    @Test func xmpThatOutlivedItsMovieFindsNothing() throws {
        let photo = withXMP(try still(), googleXMP(videoLength: movie.count))
        #expect(try range(photo) == nil)
        #expect(try range(try still()) == nil)
    }

    /// The directory's length is wrong (a gain map not listed), but the
    /// XMP says it is a motion photo: the scan finds the movie's `ftyp`.
    @Test func wrongLengthsFallBackToTheMoviesFileType() throws {
        let photo = withXMP(try still(), googleXMP(videoLength: movie.count + 300))
        let gainMap = Array(repeating: UInt8(0x55), count: 300)
        #expect(try range(photo + gainMap + movie) == Int64(photo.count + 300)..<Int64(photo.count + 300 + movie.count))
    }

    /// Samsung's trailer gives the exact movie, though its MicroVideoOffset counts the trailer too.
    @Test func samsungsTrailerGivesTheExactMovie() throws {
        func le32(_ v: Int) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }
        let name = Array("MotionPhoto_Data".utf8)
        // Each sum in parts, typed: Swift 6.0's type checker gives up on them written whole.
        let blockType: [UInt8] = [0, 0, 0x30, 0x0a]
        let block: [UInt8] = blockType + le32(name.count) + name + movie
        let header: [UInt8] = Array("SEFH".utf8) + le32(107) + le32(1)
        let directory: [UInt8] = header + blockType + le32(block.count) + le32(block.count)
        let footer: [UInt8] = le32(directory.count) + Array("SEFT".utf8)
        let trailer: [UInt8] = block + directory + footer
        let packet = xmp("""
        <rdf:Description rdf:about="" xmlns:GCamera="http://ns.google.com/photos/1.0/camera/"
          GCamera:MicroVideo="1" GCamera:MicroVideoOffset="\(trailer.count - 24)"/>
        """)
        let photo = withXMP(try still(), packet)
        let start = photo.count + 8 + name.count
        #expect(try range(photo + trailer) == Int64(start)..<Int64(start + movie.count))
    }
}
