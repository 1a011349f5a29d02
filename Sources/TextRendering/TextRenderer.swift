import CRaqm
import KioskCore
import KioskRendering

/// Draws text into an ``OverlayLayer``: wrapped to the appearance's width
/// (``LineWrapping``), each line laid out by ``TextShaper`` and its glyphs
/// drawn by FreeType, then coloured, with the
/// outline (FreeType's stroker), shadow or band that keeps it legible.
///
/// Owned by one thread (see ``FontLibrary``): a worker's, never the render loop's.
public final class TextRenderer {
    public let fonts: FontLibrary
    private let shaper: TextShaper
    private var stroker: FT_Stroker?

    public init(fonts: FontLibrary) {
        self.fonts = fonts
        self.shaper = TextShaper(fonts: fonts)
    }

    deinit { if let stroker { FT_Stroker_Done(stroker) } }

    /// The lines `text` is drawn as (wrapped and cut) for `appearance`.
    public func lines(of text: String, appearance: TextAppearance) throws(TextError) -> [ShapedLine] {
        let look = Look(appearance)
        var failure: TextError?
        // Each piece measured is shaped once: a line kept is drawn as it was measured.
        var shapedPieces: [String: ShapedLine] = [:]
        let wrapped = LineWrapping.lines(of: text, width: appearance.maxWidth - 2 * look.padding, maxLines: appearance.maxLines) { piece in
            do throws(TextError) {
                let line = try shaper.shape(piece, pixelSize: appearance.pixelSize)
                shapedPieces[piece] = line
                return Int(line.advance.rounded(.up))
            } catch {
                failure = error
                return 0
            }
        }
        if let failure { throw failure }
        var shaped: [ShapedLine] = []
        for line in wrapped {
            if let measured = shapedPieces[line] { shaped.append(measured) } else { shaped.append(try shaper.shape(line, pixelSize: appearance.pixelSize)) }
        }
        return shaped
    }

    /// `text` drawn for `appearance`, upright, turned for a panel turned by
    /// `rotation`; nil when there is nothing to draw.
    public func layer(for text: String, appearance: TextAppearance, turnedBy rotation: Rotation = .none) throws(TextError) -> OverlayLayer? {
        let shaped = try lines(of: text, appearance: appearance).filter { !$0.glyphs.isEmpty }
        guard !shaped.isEmpty else { return nil }
        let look = Look(appearance)
        let primary = try fonts.primaryFace(pixelSize: appearance.pixelSize)
        let lineHeight = max(1, Int(primary.lineHeight.rounded(.up)))
        let ascender = Int(primary.ascender.rounded())
        let textWidth = Int(shaped.map(\.advance).max()!.rounded(.up))
        let size = PixelSize(width: textWidth + 2 * look.padding, height: lineHeight * shaped.count + 2 * look.padding)
        var canvas = Canvas(size: size)
        for (number, line) in shaped.enumerated() {
            let slack = Double(textWidth) - line.advance
            let start: Double
            switch appearance.alignment {
            case .left: start = 0
            case .centre: start = (slack / 2).rounded()
            case .right: start = slack.rounded()
            }
            let baseline = look.padding + number * lineHeight + ascender
            for glyph in line.glyphs {
                try draw(glyph, penX: Double(look.padding) + start + glyph.x, baseline: Double(baseline) - glyph.y, look: look, on: &canvas)
            }
        }
        return OverlayLayer(upright: canvas.finished(appearance.colour, look: look), size: size, turnedBy: rotation)
    }

    private func draw(_ glyph: ShapedLine.Glyph, penX: Double, baseline: Double, look: Look, on canvas: inout Canvas) throws(TextError) {
        let face = glyph.face.face
        let flags = TextShaper.loadFlags | (glyph.face.hasColour ? Int32(FT_LOAD_COLOR) : 0)
        var status = FT_Load_Glyph(face, glyph.index, flags)
        guard status == 0 else { return }  // a glyph the font cannot load is left out, not the text
        var loaded: FT_Glyph?
        status = FT_Get_Glyph(face.pointee.glyph, &loaded)
        guard status == 0, let loaded else { throw .freeType(call: "FT_Get_Glyph", code: status) }
        defer { FT_Done_Glyph(loaded) }
        // Each glyph starts on a whole pixel (the pen itself keeps its
        // fractions, so spacing does not drift), as cairo places them:
        // hb-view's pixels are then the reference the tests hold it to.
        let x = penX.rounded(), y = baseline.rounded()
        if loaded.pointee.format == FT_GLYPH_FORMAT_OUTLINE {
            if look.legibility == .outline, let stroker = stroker(radius: look.outlineWidth),
               let border = Self.bitmap(of: loaded, strokedBy: stroker) {
                canvas.add(bitmapOf: border, x: Int(x), baseline: Int(y), into: .outline)
                FT_Done_Glyph(border)
            }
            guard let fill = Self.bitmap(of: loaded, strokedBy: nil) else { return }
            canvas.add(bitmapOf: fill, x: Int(x), baseline: Int(y), into: .fill)
            FT_Done_Glyph(fill)
        } else if loaded.pointee.format == FT_GLYPH_FORMAT_BITMAP {
            canvas.add(bitmapOf: loaded, x: Int(x), baseline: Int(y), into: .fill, scale: glyph.face.scale)
        }
    }

    /// A rendered copy of an outline glyph (its border alone, with a
    /// stroker); the caller frees it.
    private static func bitmap(of glyph: FT_Glyph, strokedBy stroker: FT_Stroker?) -> FT_Glyph? {
        var copy: FT_Glyph?
        guard FT_Glyph_Copy(glyph, &copy) == 0, copy != nil else { return nil }
        if let stroker, FT_Glyph_StrokeBorder(&copy, stroker, 0, 1) != 0 {
            FT_Done_Glyph(copy)
            return nil
        }
        guard FT_Glyph_To_Bitmap(&copy, FT_RENDER_MODE_NORMAL, nil, 1) == 0 else {
            FT_Done_Glyph(copy)
            return nil
        }
        return copy
    }

    private func stroker(radius: Double) -> FT_Stroker? {
        if stroker == nil {
            var made: FT_Stroker?
            guard FT_Stroker_New(fonts.freeTypeLibrary, &made) == 0 else { return nil }
            stroker = made
        }
        FT_Stroker_Set(stroker, FT_Fixed((radius * 64).rounded()), FT_STROKER_LINECAP_ROUND, FT_STROKER_LINEJOIN_ROUND, 0)
        return stroker
    }

    /// The legibility aid's measures at the text's size.
    struct Look {
        let legibility: TextLegibility
        let pixelSize: Int
        /// The outline's width in pixels.
        var outlineWidth: Double { max(1, Double(pixelSize) / 14) }
        /// The shadow's offset down and right, and its blur's radius.
        var shadowOffset: Int { max(1, Int((Double(pixelSize) / 16).rounded())) }
        var shadowBlur: Int { max(1, pixelSize / 20) }
        /// Room around the text for the aid.
        var padding: Int {
            switch legibility {
            case .outline: return Int(outlineWidth.rounded(.up)) + 1
            case .shadow: return shadowOffset + shadowBlur + 1
            case .band: return max(2, Int((Double(pixelSize) * 0.35).rounded()))
            case .none: return 0
            }
        }

        init(_ appearance: TextAppearance) {
            legibility = appearance.legibility
            pixelSize = appearance.pixelSize
        }
    }
}

/// The layer being drawn: the text's coverage, its outline's, and colour
/// glyphs (emoji) in premultiplied ARGB, combined into the layer at the end.
struct Canvas {
    enum Plane { case fill, outline }

    let size: PixelSize
    private var fill: [UInt8]
    private var outline: [UInt8]
    private var colour: [UInt32]
    private var hasColour = false

    init(size: PixelSize) {
        self.size = size
        fill = [UInt8](repeating: 0, count: size.pixelCount)
        outline = [UInt8](repeating: 0, count: size.pixelCount)
        colour = [UInt32](repeating: 0, count: size.pixelCount)
    }

    /// Adds a rendered glyph (an `FT_BitmapGlyph`) with its origin at (`x`, `baseline`).
    mutating func add(bitmapOf glyph: FT_Glyph, x: Int, baseline: Int, into plane: Plane, scale: Double = 1) {
        let bitmapGlyph = UnsafeMutableRawPointer(glyph).assumingMemoryBound(to: FT_BitmapGlyphRec.self)
        let bitmap = bitmapGlyph.pointee.bitmap
        guard let buffer = bitmap.buffer, bitmap.width > 0, bitmap.rows > 0 else { return }
        let width = Int(bitmap.width), rows = Int(bitmap.rows), pitch = Int(bitmap.pitch)
        let left = x + Int((Double(bitmapGlyph.pointee.left) * scale).rounded())
        let top = baseline - Int((Double(bitmapGlyph.pointee.top) * scale).rounded())
        switch Int32(bitmap.pixel_mode) {
        case Int32(FT_PIXEL_MODE_GRAY.rawValue):
            for row in 0..<rows {
                for column in 0..<width {
                    put(buffer[row * pitch + column], x: left + column, y: top + row, plane: plane)
                }
            }
        case Int32(FT_PIXEL_MODE_MONO.rawValue):
            for row in 0..<rows {
                for column in 0..<width where buffer[row * pitch + column / 8] & (0x80 >> UInt8(column % 8)) != 0 {
                    put(255, x: left + column, y: top + row, plane: plane)
                }
            }
        case Int32(FT_PIXEL_MODE_BGRA.rawValue):
            // Premultiplied BGRA in memory is 0xAARRGGBB read as a little-endian word.
            let target = PixelSize(width: max(1, Int((Double(width) * scale).rounded())), height: max(1, Int((Double(rows) * scale).rounded())))
            for ty in 0..<target.height {
                for tx in 0..<target.width {
                    let pixel = Self.areaAverage(buffer, pitch: pitch, size: PixelSize(width: width, height: rows), x: tx, y: ty, target: target)
                    putColour(pixel, x: left + tx, y: top + ty)
                }
            }
        default:
            return
        }
    }

    private mutating func put(_ value: UInt8, x: Int, y: Int, plane: Plane) {
        guard value > 0, x >= 0, y >= 0, x < size.width, y < size.height else { return }
        let at = y * size.width + x
        switch plane {
        case .fill: fill[at] = max(fill[at], value)
        case .outline: outline[at] = max(outline[at], value)
        }
    }

    private mutating func putColour(_ pixel: UInt32, x: Int, y: Int) {
        guard pixel >> 24 > 0, x >= 0, y >= 0, x < size.width, y < size.height else { return }
        hasColour = true
        colour[y * size.width + x] = over(pixel, colour[y * size.width + x])
    }

    /// The average of the source pixels under target pixel (`x`, `y`) when
    /// `size` is scaled to `target` (a colour emoji's strike to the text's size).
    private static func areaAverage(_ buffer: UnsafeMutablePointer<UInt8>, pitch: Int, size: PixelSize, x: Int, y: Int, target: PixelSize) -> UInt32 {
        let x0 = x * size.width / target.width, x1 = max(x0 + 1, (x + 1) * size.width / target.width)
        let y0 = y * size.height / target.height, y1 = max(y0 + 1, (y + 1) * size.height / target.height)
        var sums = (0, 0, 0, 0)
        for sy in y0..<min(y1, size.height) {
            for sx in x0..<min(x1, size.width) {
                let p = buffer + sy * pitch + sx * 4
                sums.0 += Int(p[0]); sums.1 += Int(p[1]); sums.2 += Int(p[2]); sums.3 += Int(p[3])
            }
        }
        let n = max(1, (min(x1, size.width) - x0) * (min(y1, size.height) - y0))
        return UInt32(sums.3 / n) << 24 | UInt32(sums.2 / n) << 16 | UInt32(sums.1 / n) << 8 | UInt32(sums.0 / n)
    }

    /// The layer: band or shadow, outline, the text in `textColour`, then colour glyphs.
    func finished(_ textColour: RGBColor, look: TextRenderer.Look) -> [UInt32] {
        // The aid is dark behind light text and light behind dark text.
        let aid: UInt32 = textColour.luminance > 0.5 ? 0x00_0000 : 0xFF_FFFF
        var pixels = [UInt32](repeating: 0, count: size.pixelCount)
        switch look.legibility {
        case .band:
            pixels = [UInt32](repeating: premultiplied(aid, alpha: 150), count: size.pixelCount)
        case .shadow:
            let shadow = shadowCoverage(offset: look.shadowOffset, blur: look.shadowBlur)
            for i in pixels.indices where shadow[i] > 0 { pixels[i] = premultiplied(aid, alpha: UInt32(shadow[i]) * 3 / 4) }
        case .outline:
            for i in pixels.indices where outline[i] > 0 { pixels[i] = over(premultiplied(aid, alpha: UInt32(outline[i])), pixels[i]) }
        case .none:
            break
        }
        let text = textColour.xrgb & 0xFF_FFFF
        for i in pixels.indices where fill[i] > 0 { pixels[i] = over(premultiplied(text, alpha: UInt32(fill[i])), pixels[i]) }
        if hasColour {
            for i in pixels.indices where colour[i] >> 24 > 0 { pixels[i] = over(colour[i], pixels[i]) }
        }
        return pixels
    }

    /// The text's coverage (colour glyphs' alpha too) moved by `offset` and box-blurred by `blur` each way.
    private func shadowCoverage(offset: Int, blur: Int) -> [UInt8] {
        let width = size.width, height = size.height
        var moved = [Int](repeating: 0, count: size.pixelCount)
        for y in offset..<max(offset, height) {
            for x in offset..<max(offset, width) {
                let from = (y - offset) * width + (x - offset)
                moved[y * width + x] = max(Int(fill[from]), Int(colour[from] >> 24))
            }
        }
        var across = [Int](repeating: 0, count: size.pixelCount)
        let span = 2 * blur + 1
        for y in 0..<height {
            for x in 0..<width {
                var sum = 0
                for dx in -blur...blur where x + dx >= 0 && x + dx < width { sum += moved[y * width + x + dx] }
                across[y * width + x] = sum / span
            }
        }
        var blurred = [UInt8](repeating: 0, count: size.pixelCount)
        for y in 0..<height {
            for x in 0..<width {
                var sum = 0
                for dy in -blur...blur where y + dy >= 0 && y + dy < height { sum += across[(y + dy) * width + x] }
                blurred[y * width + x] = UInt8(min(255, sum / span))
            }
        }
        return blurred
    }
}

/// `rgb` at `alpha`, premultiplied.
func premultiplied(_ rgb: UInt32, alpha: UInt32) -> UInt32 {
    let a = min(alpha, 255)
    let r = ((rgb >> 16) & 0xFF) * a / 255, g = ((rgb >> 8) & 0xFF) * a / 255, b = (rgb & 0xFF) * a / 255
    return a << 24 | r << 16 | g << 8 | b
}

/// Premultiplied `top` over premultiplied `under`.
func over(_ top: UInt32, _ under: UInt32) -> UInt32 {
    let keep = 255 - (top >> 24)
    func channel(_ shift: UInt32) -> UInt32 {
        min(255, ((top >> shift) & 0xFF) + ((under >> shift) & 0xFF) * keep / 255) << shift
    }
    return channel(24) | channel(16) | channel(8) | channel(0)
}
