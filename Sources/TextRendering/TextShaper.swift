import CRaqm
import KioskCore

/// A line laid out: its glyphs in visual order (left to right, whatever the
/// script's direction), each with its face and pen position.
public struct ShapedLine {
    public struct Glyph {
        public let face: FontFace
        public let index: UInt32
        /// The glyph's origin from the line's start on the baseline, in pixels (y up).
        public let x: Double
        public let y: Double
        /// Which character of the line it draws (its first, for a cluster).
        public let cluster: Int
    }

    public let glyphs: [Glyph]
    /// The pen's travel over the whole line, in pixels.
    public let advance: Double
}

/// Lays out one line of text with libraqm: FriBidi splits it into runs by
/// direction and orders them, HarfBuzz shapes each run (ligatures, Arabic
/// joining, Indic clusters, kerning), each character on the face
/// ``FontLibrary`` chose for it. No line breaking: ``LineWrapping`` does that.
public struct TextShaper {
    /// Hinting is off: positions are the font's own, as HarfBuzz's tools give
    /// them, and glyphs are drawn at fractions of a pixel.
    static let loadFlags = Int32(FT_LOAD_NO_HINTING)

    public let fonts: FontLibrary

    public init(fonts: FontLibrary) { self.fonts = fonts }

    /// `text` (one line, no "\n") shaped at `pixelSize`.
    public func shape(_ text: String, pixelSize: Int) throws(TextError) -> ShapedLine {
        let scalars = Array(text.unicodeScalars)
        guard !scalars.isEmpty else { return ShapedLine(glyphs: [], advance: 0) }
        // Each character's face; a mark, joiner or variation selector stays
        // with the character before it, so a cluster is shaped by one font.
        var faces: [FontFace] = []
        faces.reserveCapacity(scalars.count)
        for scalar in scalars {
            if let previous = faces.last, Self.staysWithPrevious(scalar) {
                faces.append(previous)
            } else {
                faces.append(try fonts.face(for: scalar, pixelSize: pixelSize))
            }
        }
        guard let layout = raqm_create() else { throw .freeType(call: "raqm_create", code: -1) }
        defer { raqm_destroy(layout) }
        let values = scalars.map(\.value)
        guard values.withUnsafeBufferPointer({ raqm_set_text(layout, $0.baseAddress, $0.count) }) else {
            throw .freeType(call: "raqm_set_text", code: -1)
        }
        _ = raqm_set_par_direction(layout, RAQM_DIRECTION_DEFAULT)
        var start = 0
        var byFace: [UnsafeMutableRawPointer: FontFace] = [:]
        while start < faces.count {
            var end = start + 1
            while end < faces.count && faces[end] === faces[start] { end += 1 }
            guard raqm_set_freetype_face_range(layout, faces[start].face, start, end - start) else {
                throw .freeType(call: "raqm_set_freetype_face_range", code: -1)
            }
            byFace[UnsafeMutableRawPointer(faces[start].face)] = faces[start]
            start = end
        }
        _ = raqm_set_freetype_load_flags(layout, Self.loadFlags)
        guard raqm_layout(layout) else { throw .freeType(call: "raqm_layout", code: -1) }
        var count = 0
        guard let laid = raqm_get_glyphs(layout, &count) else { throw .freeType(call: "raqm_get_glyphs", code: -1) }
        var glyphs: [ShapedLine.Glyph] = []
        glyphs.reserveCapacity(count)
        var pen = 0.0
        for i in 0..<count {
            let glyph = laid[i]
            guard let ftFace = glyph.ftface, let face = byFace[UnsafeMutableRawPointer(ftFace)] else { continue }
            let scale = face.scale / 64
            glyphs.append(ShapedLine.Glyph(
                face: face, index: glyph.index, x: pen + Double(glyph.x_offset) * scale, y: Double(glyph.y_offset) * scale,
                cluster: Int(glyph.cluster)))
            pen += Double(glyph.x_advance) * scale
        }
        return ShapedLine(glyphs: glyphs, advance: pen)
    }

    /// Characters that belong to the one before them: combining marks,
    /// joiners, variation selectors, emoji modifiers and tags.
    static func staysWithPrevious(_ scalar: Unicode.Scalar) -> Bool {
        let properties = scalar.properties
        switch properties.generalCategory {
        case .nonspacingMark, .spacingMark, .enclosingMark: return true
        default: break
        }
        return properties.isVariationSelector || properties.isEmojiModifier || scalar.value == 0x200D || (0xE0020...0xE007F).contains(scalar.value)
    }
}
