import Foundation
import ImageCodecs
@testable import KioskApp
import KioskCore
import Testing

@Suite struct ShowPicturesTests {
    /// A file listed, then deleted before it was decoded (an operator tidying
    /// the folder): one line, dropped from the playlist, the show goes on.
    @Test func aFileDeletedBetweenListingAndDecodingIsSkipped() throws {
        let folder = try PictureFolder([("a.png", flatPNG(red)), ("b.png", flatPNG(green)), ("c.png", flatPNG(blue))])
        var pictures = ShowPictures(folder: try ImageFolder(listing: folder.path), background: background, exifRotate: true)
        try FileManager.default.removeItem(atPath: folder.path + "/b.png")
        let geometry = try CarouselGeometry(screen: PixelSize(width: 1920, height: 1080), settings: LayoutSettings())
        pictures.loadVisible(geometry, at: 0)
        #expect(pictures.playlist.map { ($0 as NSString).lastPathComponent } == ["a.png", "c.png"])
        #expect(pictures.log == ["skipping \(folder.path)/b.png: open failed: No such file or directory (errno 2)"])
        #expect(pictures.picture(0)?[600, 500] == red)
        #expect(pictures.picture(1)?[600, 500] == blue)
    }
}
