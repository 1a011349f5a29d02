import KioskCore
import KioskRendering
import Testing
import TestSupport
@testable import TextRendering

/// What an operator sees of text: every character of a mixed caption drawn
/// (fontconfig's fallback), emoji in colour, long text wrapped and cut, and
/// light text legible on a light picture.
@Suite struct TextLayerTests {
    static let white = RGBColor(red: 255, green: 255, blue: 255)

    func appearance(_ legibility: TextLegibility = .outline, colour: RGBColor = white, width: Int = 4000, lines: Int = 2) -> TextAppearance {
        TextAppearance(family: "DejaVu Sans", pixelSize: 40, colour: colour, legibility: legibility, maxWidth: width, maxLines: lines)
    }

    @Test func aCaptionMixingScriptsDrawsEveryCharacterFromAFontThatHasIt() throws {
        let fonts = try FontLibrary(family: "DejaVu Sans")
        let text = "Zürich مرحبا 你好 😀"
        let line = try TextShaper(fonts: fonts).shape(text, pixelSize: 40)
        // Glyph 0 is a font's missing-character box.
        #expect(!line.glyphs.isEmpty)
        #expect(line.glyphs.allSatisfy { $0.index != 0 }, "\(line.glyphs.filter { $0.index == 0 }.map(\.cluster))")
        let scalars = Array(text.unicodeScalars)
        let cjk = try #require(line.glyphs.first { scalars[$0.cluster] == "你" })
        let emoji = try #require(line.glyphs.first { scalars[$0.cluster] == "😀" })
        let latin = try #require(line.glyphs.first { scalars[$0.cluster] == "Z" })
        #expect(cjk.face !== latin.face)
        #expect(emoji.face.hasColour)
        #expect(!latin.face.hasColour)
    }

    @Test func anEmojiIsDrawnInColourAtTheTextsSize() throws {
        let fonts = try FontLibrary(family: "DejaVu Sans")
        let layer = try #require(try TextRenderer(fonts: fonts).layer(for: "😀", appearance: appearance(.none)))
        // The grinning face is yellow: red and green well above blue.
        let yellow = layer.pixels.filter { pixel in
            let r = Int(pixel >> 16 & 0xFF), g = Int(pixel >> 8 & 0xFF), b = Int(pixel & 0xFF)
            return pixel >> 24 == 255 && r > 200 && g > 150 && b < 100
        }
        #expect(yellow.count > 200, "\(yellow.count) yellow pixels")
        var rows = Set<Int>()
        for (i, pixel) in layer.pixels.enumerated() where pixel >> 24 > 0 { rows.insert(i / layer.size.width) }
        // Noto Color Emoji's strike (109 pixels) scaled to the 40-pixel em: about 40 rows of ink.
        #expect((34...50).contains(rows.count), "\(rows.count) rows")
    }

    @Test func anUnknownFamilyFallsBackToFontconfigsBestMatch() throws {
        let fonts = try FontLibrary(family: "No Such Family Anywhere")
        #expect(fonts.familyWasSubstituted)
        #expect(!fonts.matchedFamily.isEmpty)
        let generic = try FontLibrary(family: "sans-serif")
        #expect(!generic.familyWasSubstituted)
        let layer = try TextRenderer(fonts: fonts).layer(for: "Still drawn", appearance: appearance())
        #expect(layer != nil)
    }

    @Test func longTextIsWrappedToTheWidthAndCutWithAnEllipsis() throws {
        let fonts = try FontLibrary(family: "DejaVu Sans")
        let renderer = TextRenderer(fonts: fonts)
        let text = String(repeating: "The quick brown fox jumps over the lazy dog. ", count: 40)
        let lines = try renderer.lines(of: text, appearance: appearance(width: 600, lines: 3))
        #expect(lines.count == 3)
        #expect(lines.allSatisfy { $0.advance <= 600 })
        #expect(lines[0].advance > 400, "a wrapped line fills most of the width")
        let ellipsis = try TextShaper(fonts: fonts).shape("…", pixelSize: 40)
        #expect(lines[2].glyphs.last?.index == ellipsis.glyphs.first?.index)
        let layer = try #require(try renderer.layer(for: text, appearance: appearance(width: 600, lines: 3)))
        #expect(layer.size.width <= 600)
    }

    /// The WCAG contrast between the text and what surrounds its glyphs, for
    /// `colour` text on a picture of `picture` colour, each aid drawn.
    func edgeContrast(_ legibility: TextLegibility, colour: RGBColor, on picture: RGBColor) throws -> Double {
        let fonts = try FontLibrary(family: "DejaVu Sans")
        let renderer = TextRenderer(fonts: fonts)
        let plain = try #require(try renderer.layer(for: "Sky", appearance: appearance(.none, colour: colour)))
        let aided = try #require(try renderer.layer(for: "Sky", appearance: appearance(legibility, colour: colour)))
        let pad = TextRenderer.Look(appearance(legibility)).padding
        var shown = RasterImage(size: aided.size, filledWith: picture)
        shown.pixels.withUnsafeMutableBufferPointer { target in
            aided.pixels.withUnsafeBufferPointer { OverlayLayer.blend($0.baseAddress!, count: $0.count, over: target.baseAddress!) }
        }
        // The glyphs' own pixels, from the plain layer; the edge: pixels within 2 of them that are not.
        var glyph = Set<Int>()
        for y in 0..<plain.size.height {
            for x in 0..<plain.size.width where plain.pixels[y * plain.size.width + x] >> 24 > 0 { glyph.insert((y + pad) * aided.size.width + x + pad) }
        }
        var edge: [Double] = []
        for index in glyph {
            let x = index % aided.size.width, y = index / aided.size.width
            // A shadow falls down and to the right only.
            let around = legibility == .shadow ? [(2, 0), (0, 2), (2, 2)] : [(2, 0), (-2, 0), (0, 2), (0, -2), (2, 2)]
            for (dx, dy) in around {
                let nx = x + dx, ny = y + dy
                guard nx >= 0, ny >= 0, nx < aided.size.width, ny < aided.size.height, !glyph.contains(ny * aided.size.width + nx) else { continue }
                edge.append(RGBColor(xrgb: shown[nx, ny]).luminance)
            }
        }
        edge.sort()
        let median = edge[edge.count / 2]
        return RGBColor.contrastRatio(colour.luminance, median)
    }

    /// White text on a white picture (and black on black) reads: around
    /// its glyphs the outline or band gives a WCAG contrast of at least 4.5
    /// (the AA level for text); the shadow, measured on the side it falls, at least 3.
    @Test(arguments: [TextLegibility.outline, .band, .shadow])
    func textReadsOnAPictureOfItsOwnColour(_ legibility: TextLegibility) throws {
        let black = RGBColor.black
        let threshold = legibility == .shadow ? 3.0 : 4.5
        let onWhite = try edgeContrast(legibility, colour: Self.white, on: Self.white)
        let onBlack = try edgeContrast(legibility, colour: black, on: black)
        #expect(onWhite >= threshold, "white on white: \(onWhite)")
        #expect(onBlack >= threshold, "black on black: \(onBlack)")
        // Without an aid there is none: what the aid is for.
        #expect(try edgeContrast(.none, colour: Self.white, on: Self.white) < 1.1)
    }
}
