import CFontconfig
import CRaqm
import SystemCalls

/// The fonts text is drawn with: the family asked for, as fontconfig matches
/// it, then every other installed font in fontconfig's order of preference,
/// each tried in turn for a character the ones before it lack. A caption
/// mixing Latin, Arabic, CJK and emoji so draws every character any
/// installed font has. Emoji (characters drawn as emoji by default) go to a
/// colour font first where one is installed.
///
/// Faces are opened once and kept. Not thread-safe: FreeType faces belong
/// to one thread, so each thread that draws text owns its own library.
public final class FontLibrary {
    /// One font fontconfig offered: its file, its face in the file, what it covers.
    struct Candidate {
        let file: String
        let index: Int32
        let characters: OpaquePointer?  // FcCharSet, owned by `fonts`
        let isColour: Bool
    }

    /// The family's name as fontconfig matched it ("DejaVu Sans" for "sans-serif").
    public let matchedFamily: String
    /// True when the family asked for is not installed and another was matched (worth one log line).
    public let familyWasSubstituted: Bool

    private let freeType: FreeTypeLibrary
    var freeTypeLibrary: FT_Library { freeType.library }
    private let fonts: UnsafeMutablePointer<FcFontSet>
    private let candidates: [Candidate]
    private var faces: [Int: FontFace] = [:]
    private var faceForScalar: [UInt32: Int] = [:]

    /// Matches `family` among the installed fonts.
    /// - Throws: ``TextError/noFonts`` when there are none at all.
    public init(family: String) throws(TextError) {
        // fontconfig, FreeType and libraqm are mapped on first use (OnDemandLibrary).
        for library in [OnDemandLibrary.fontconfig, .freeType, .raqm] {
            do throws(MissingLibrary) { try library.open() } catch { throw .libraryMissing(error) }
        }
        guard FcInit() != 0 else { throw .fontconfig("its configuration could not be loaded") }
        var library: FT_Library?
        let status = FT_Init_FreeType(&library)
        guard status == 0, let library else { throw .freeType(call: "FT_Init_FreeType", code: status) }
        let freeType = FreeTypeLibrary(library)
        guard let pattern = FcNameParse(Self.fontconfigName(family)) else { throw .fontconfig("the family name \(family) could not be read") }
        defer { FcPatternDestroy(pattern) }
        FcConfigSubstitute(nil, pattern, FcMatchPattern)
        FcDefaultSubstitute(pattern)
        var result = FcResultNoMatch
        guard let sorted = FcFontSort(nil, pattern, FcTrue, nil, &result) else { throw .noFonts }
        var candidates: [Candidate] = []
        for i in 0..<Int(sorted.pointee.nfont) {
            guard let font = sorted.pointee.fonts[i] else { continue }
            var file: UnsafeMutablePointer<FcChar8>?
            guard FcPatternGetString(font, "file", 0, &file) == FcResultMatch, let file else { continue }
            var index: Int32 = 0
            _ = FcPatternGetInteger(font, "index", 0, &index)
            var characters: OpaquePointer?
            _ = FcPatternGetCharSet(font, "charset", 0, &characters)
            var colour: FcBool = FcFalse
            _ = FcPatternGetBool(font, "color", 0, &colour)
            candidates.append(Candidate(file: String(cString: file), index: index, characters: characters, isColour: colour != FcFalse))
        }
        guard !candidates.isEmpty else {
            FcFontSetDestroy(sorted)
            throw .noFonts
        }
        var matched: UnsafeMutablePointer<FcChar8>?
        let first = sorted.pointee.fonts[0]!
        matchedFamily = FcPatternGetString(first, "family", 0, &matched) == FcResultMatch && matched != nil ? String(cString: matched!) : family
        familyWasSubstituted = !Self.isGeneric(family) && matchedFamily.lowercased() != family.lowercased()
        self.freeType = freeType
        self.fonts = sorted
        self.candidates = candidates
    }

    deinit { FcFontSetDestroy(fonts) }

    /// The face for the family's own characters (the first match): its metrics set the line height.
    public func primaryFace(pixelSize: Int) throws(TextError) -> FontFace {
        try face(candidate: 0, pixelSize: pixelSize)
    }

    /// The face to draw `scalar` with: the first font that has it (a colour
    /// font first for emoji), or the primary face, which draws its
    /// missing-glyph box, when none has.
    public func face(for scalar: Unicode.Scalar, pixelSize: Int) throws(TextError) -> FontFace {
        if let known = faceForScalar[scalar.value] { return try face(candidate: known, pixelSize: pixelSize) }
        let covering = candidates.indices.filter { covers(candidates[$0], scalar) }
        // Emoji go to a colour font first; a face that will not open is passed over.
        let tried = scalar.properties.isEmojiPresentation ? covering.filter { candidates[$0].isColour } + covering : covering
        for candidate in tried {
            guard let face = try? face(candidate: candidate, pixelSize: pixelSize) else { continue }
            faceForScalar[scalar.value] = candidate
            return face
        }
        faceForScalar[scalar.value] = 0
        return try face(candidate: 0, pixelSize: pixelSize)
    }

    private func covers(_ candidate: Candidate, _ scalar: Unicode.Scalar) -> Bool {
        guard let characters = candidate.characters else { return false }
        return FcCharSetHasChar(characters, scalar.value) != 0
    }

    private func face(candidate: Int, pixelSize: Int) throws(TextError) -> FontFace {
        if let face = faces[candidate] {
            try face.setPixelSize(pixelSize)
            return face
        }
        let face = try FontFace(library: freeType, file: candidates[candidate].file, index: candidates[candidate].index)
        try face.setPixelSize(pixelSize)
        faces[candidate] = face
        return face
    }

    /// Generic names fontconfig maps to whatever is installed: no log line when they are.
    private static func isGeneric(_ family: String) -> Bool {
        ["sans-serif", "sans", "serif", "monospace", "mono", "emoji", "system-ui"].contains(family.lowercased())
    }

    /// A family name in fontconfig's name syntax, where "-", ":" and "," have meanings.
    private static func fontconfigName(_ family: String) -> String {
        var escaped = ""
        for character in family {
            if character == "-" || character == ":" || character == "," || character == "\\" { escaped.append("\\") }
            escaped.append(character)
        }
        return escaped
    }
}

/// A FreeType library, done when the last face opened in it (and the
/// ``FontLibrary``) is gone: a shaped line's glyphs keep their faces, and so
/// the library, however long they are kept.
final class FreeTypeLibrary {
    let library: FT_Library
    init(_ library: FT_Library) { self.library = library }
    deinit { FT_Done_FreeType(library) }
}

/// One FreeType face at one pixel size. A colour bitmap font (Noto Color
/// Emoji) has fixed sizes only: it is used at its nearest strike, and its
/// glyphs and advances are scaled by ``scale`` to the size asked for.
public final class FontFace {
    let face: FT_Face
    /// Kept so the library outlives the face.
    private let owner: FreeTypeLibrary
    /// The face's pixels to the size asked for: 1 for an outline font.
    public private(set) var scale: Double = 1
    public let isScalable: Bool
    public let hasColour: Bool
    private var pixelSize = 0

    init(library: FreeTypeLibrary, file: String, index: Int32) throws(TextError) {
        var face: FT_Face?
        let status = FT_New_Face(library.library, file, FT_Long(index), &face)
        guard status == 0, let face else { throw .freeType(call: "FT_New_Face(\(file))", code: status) }
        self.face = face
        owner = library
        isScalable = face.pointee.face_flags & FT_Long(FT_FACE_FLAG_SCALABLE) != 0
        hasColour = face.pointee.face_flags & FT_Long(FT_FACE_FLAG_COLOR) != 0
    }

    deinit { FT_Done_Face(face) }

    func setPixelSize(_ pixels: Int) throws(TextError) {
        guard pixels != pixelSize else { return }
        if isScalable {
            let status = FT_Set_Pixel_Sizes(face, 0, FT_UInt(pixels))
            guard status == 0 else { throw .freeType(call: "FT_Set_Pixel_Sizes", code: status) }
            scale = 1
        } else {
            // The strike nearest the size, scaled to it.
            let count = Int(face.pointee.num_fixed_sizes)
            guard count > 0, let sizes = face.pointee.available_sizes else { throw .freeType(call: "FT_Select_Size", code: -1) }
            var best = 0
            for i in 0..<count where abs(Int(sizes[i].y_ppem) / 64 - pixels) < abs(Int(sizes[best].y_ppem) / 64 - pixels) { best = i }
            let status = FT_Select_Size(face, FT_Int(best))
            guard status == 0 else { throw .freeType(call: "FT_Select_Size", code: status) }
            scale = Double(pixels) / (Double(sizes[best].y_ppem) / 64)
        }
        pixelSize = pixels
    }

    /// The face's ascent and descent at the current size, in pixels (26.6 → pixels, scaled).
    public var ascender: Double { Double(face.pointee.size.pointee.metrics.ascender) / 64 * scale }
    public var lineHeight: Double { Double(face.pointee.size.pointee.metrics.height) / 64 * scale }
}
