import Foundation
import ImageCodecs
import KioskCore
import KioskRendering
import Testing
import TestSupport
@testable import TextRendering

/// Text laid out and drawn by kioskd against HarfBuzz's own tools on the
/// same string, font and size: `hb-shape` for the glyphs and their
/// positions, `hb-view` (cairo) for the pixels. Each script's hard case:
/// Arabic joined right to left, Hebrew right to left, a Devanagari
/// conjunct, a CJK line, a colour emoji.
@Suite struct TextShapingTests {
    struct Sample: CustomStringConvertible {
        let family: String
        let file: String
        let text: String
        var description: String { "\(family): \(text)" }
    }

    static let pixelSize = 40
    static let samples = [
        Sample(family: "DejaVu Sans", file: "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", text: "AVATAR office Wafts"),
        Sample(family: "Noto Sans Arabic", file: "/usr/share/fonts/truetype/noto/NotoSansArabic-Regular.ttf", text: "مرحبا بالعالم"),
        Sample(family: "Noto Sans Hebrew", file: "/usr/share/fonts/truetype/noto/NotoSansHebrew-Regular.ttf", text: "שלום עולם"),
        Sample(family: "Noto Sans Devanagari", file: "/usr/share/fonts/truetype/noto/NotoSansDevanagari-Regular.ttf", text: "क्षत्रिय हिन्दी"),
        Sample(family: "WenQuanYi Micro Hei", file: "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc", text: "你好，世界"),
    ]

    /// hb-shape's glyphs for `sample`: index and pen position in 1/64 pixel, left to right.
    static func harfBuzzGlyphs(_ sample: Sample) throws -> [(index: UInt32, x: Int)] {
        let tool = Process()
        tool.executableURL = URL(fileURLWithPath: "/usr/bin/hb-shape")
        tool.arguments = ["--font-file=\(sample.file)", "--font-size=\(pixelSize * 64)", "--no-glyph-names", "--output-format=json", sample.text]
        let output = Pipe()
        tool.standardOutput = output
        try tool.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        tool.waitUntilExit()
        let glyphs = try #require(try JSONSerialization.jsonObject(with: data) as? [[String: Int]])
        var pen = 0
        return glyphs.map { glyph in
            defer { pen += glyph["ax"]! }
            return (UInt32(glyph["g"]!), pen + glyph["dx"]!)
        }
    }

    @Test(arguments: samples)
    func glyphsAndTheirPositionsAreHarfBuzzs(_ sample: Sample) throws {
        let fonts = try FontLibrary(family: sample.family)
        let line = try TextShaper(fonts: fonts).shape(sample.text, pixelSize: Self.pixelSize)
        let expected = try Self.harfBuzzGlyphs(sample)
        #expect(!expected.isEmpty)
        #expect(line.glyphs.map(\.index) == expected.map(\.index))
        let positions = line.glyphs.map { Int(($0.x * 64).rounded()) }
        // The same positions: to 1/64 pixel, FreeType's and HarfBuzz's own rounding of the font's units.
        for (ours, theirs) in zip(positions, expected.map(\.x)) {
            #expect(abs(ours - theirs) <= 1, "glyph at \(ours)/64 px, hb-shape \(theirs)/64 px")
        }
    }

    /// A colour emoji: HarfBuzz's glyph, its advance within an eighth of a
    /// pixel (Noto Color Emoji has one strike, 109 pixels, scaled to the
    /// size: hb-shape scales the font's units instead). hb-view cannot be
    /// the reference here: the cairo it uses on Debian 12 draws no colour
    /// bitmap glyphs (TextLayerTests checks the colour and the size).
    @Test func anEmojiIsHarfBuzzsGlyphAtItsAdvance() throws {
        let sample = Sample(family: "Noto Color Emoji", file: "/usr/share/fonts/truetype/noto/NotoColorEmoji.ttf", text: "😀🎉")
        let line = try TextShaper(fonts: try FontLibrary(family: "DejaVu Sans")).shape(sample.text, pixelSize: Self.pixelSize)
        let expected = try Self.harfBuzzGlyphs(sample)
        #expect(line.glyphs.map(\.index) == expected.map(\.index))
        let allColour = line.glyphs.allSatisfy { $0.face.hasColour }
        #expect(allColour)
        let positions = line.glyphs.map { Int(($0.x * 64).rounded()) }
        for (ours, theirs) in zip(positions, expected.map(\.x)) {
            #expect(abs(ours - theirs) <= 8, "glyph at \(ours)/64 px, hb-shape \(theirs)/64 px")
        }
    }

    /// The ink of an image: its pixels darker than white, cropped to their
    /// bounding box, as gray levels (0 black, 255 white).
    static func ink(_ image: RasterImage) -> (size: PixelSize, gray: [Int]) {
        var x0 = image.width, y0 = image.height, x1 = -1, y1 = -1
        for y in 0..<image.height {
            for x in 0..<image.width where image[x, y] & 0xFF < 250 {
                x0 = min(x0, x); y0 = min(y0, y); x1 = max(x1, x); y1 = max(y1, y)
            }
        }
        guard x1 >= x0 else { return (PixelSize(width: 0, height: 0), []) }
        var gray: [Int] = []
        for y in y0...y1 { for x in x0...x1 { gray.append(Int(image[x, y] & 0xFF)) } }
        return (PixelSize(width: x1 - x0 + 1, height: y1 - y0 + 1), gray)
    }

    /// hb-view's major version. HarfBuzz 7 and later draw through their own
    /// cairo font (hb-cairo): the outlines rasterised by cairo, at the pen's
    /// fractions of a pixel (Debian 13's 10.2). Before, through cairo 1.16's
    /// FreeType font: FreeType's rasteriser, each glyph on a whole pixel, as
    /// kioskd draws them (Debian 12's 6.0).
    static func hbViewMajorVersion() throws -> Int {
        let tool = Process()
        tool.executableURL = URL(fileURLWithPath: "/usr/bin/hb-view")
        tool.arguments = ["--version"]
        let output = Pipe()
        tool.standardOutput = output
        try tool.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        tool.waitUntilExit()
        // "hb-view (HarfBuzz) 6.0.0"
        return text.split(separator: " ").dropFirst(2).first.flatMap { Int($0.prefix { $0.isNumber }) } ?? 0
    }

    /// A layer blended over white, as a panel would show it.
    static func overWhite(_ layer: OverlayLayer) -> RasterImage {
        var image = RasterImage(size: layer.size, filledWith: RGBColor(red: 255, green: 255, blue: 255))
        image.pixels.withUnsafeMutableBufferPointer { target in
            layer.pixels.withUnsafeBufferPointer { OverlayLayer.blend($0.baseAddress!, count: $0.count, over: target.baseAddress!) }
        }
        return image
    }

    /// Black text on white, drawn by kioskd and by hb-view: the same ink box
    /// (to a pixel) and the same ink (the coverage summed, to 1%). Where
    /// hb-view rasterises with FreeType (HarfBuzz before 7: Debian 12, CI),
    /// also pixel by pixel: within a mean of 1 gray level (of 255) and a
    /// 99th percentile of 12. Both draw unhinted outlines with 8-bit
    /// coverage, each glyph from a whole pixel; what is left is rounding at
    /// the edges (measured: means 0.26 to 0.48, 99th percentiles 5 to 8).
    /// HarfBuzz 7 and later rasterise with cairo's own rasteriser at
    /// fractions of a pixel (Debian 13: means 4.7 to 12.4 against kioskd's
    /// whole pixels, the same ink boxes).
    @Test(arguments: samples)
    func pixelsAreHbViews(_ sample: Sample) throws {
        let fonts = try FontLibrary(family: sample.family)
        let renderer = TextRenderer(fonts: fonts)
        let appearance = TextAppearance(family: sample.family, pixelSize: Self.pixelSize, colour: .black, legibility: .none, maxWidth: 4000, maxLines: 1, alignment: .left)
        let layer = try #require(try renderer.layer(for: sample.text, appearance: appearance))
        let ours = Self.ink(Self.overWhite(layer))

        let png = FileManager.default.temporaryDirectory.appendingPathComponent("hb-view-\(getpid())-\(sample.family).png").path
        defer { try? FileManager.default.removeItem(atPath: png) }
        try runTool("hb-view", ["--font-file=\(sample.file)", "--font-size=\(Self.pixelSize)", "--margin=0", "-O", "png", "-o", png, sample.text])
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: png)))
        let theirs = Self.ink(try PNGCodec.decode(bytes, path: png, background: RGBColor(red: 255, green: 255, blue: 255), maximumPixels: 1 << 24))

        #expect(ours.size.width > 0)
        #expect(abs(ours.size.width - theirs.size.width) <= 1 && abs(ours.size.height - theirs.size.height) <= 1, "ink \(ours.size) against hb-view's \(theirs.size)")
        let width = min(ours.size.width, theirs.size.width), height = min(ours.size.height, theirs.size.height)
        var differences: [Int] = []
        for y in 0..<height {
            for x in 0..<width { differences.append(abs(ours.gray[y * ours.size.width + x] - theirs.gray[y * theirs.size.width + x])) }
        }
        differences.sort()
        let mean = Double(differences.reduce(0, +)) / Double(max(1, differences.count))
        let percentile99 = differences[differences.count * 99 / 100]
        let inkOurs = ours.gray.reduce(0) { $0 + 255 - $1 }, inkTheirs = theirs.gray.reduce(0) { $0 + 255 - $1 }
        #expect(abs(Double(inkOurs) / Double(max(inkTheirs, 1)) - 1) <= 0.01, "ink \(inkOurs) against hb-view's \(inkTheirs)")
        // Pixel by pixel only where hb-view rasterises with FreeType, as kioskd does.
        guard try Self.hbViewMajorVersion() < 7 else { return }
        #expect(mean <= 1, "mean difference \(mean)")
        #expect(percentile99 <= 12, "99th percentile \(percentile99)")
    }
}
