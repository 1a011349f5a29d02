import SystemCalls

/// Why text could not be drawn. The description is the log line an operator reads.
public enum TextError: Error, Equatable, Sendable, CustomStringConvertible {
    /// fontconfig found no font file at all: nothing can be drawn.
    case noFonts
    /// A FreeType call failed (its name and error code).
    case freeType(call: String, code: Int32)
    /// fontconfig could not be started (its configuration is broken).
    case fontconfig(String)
    /// A library text needs, loaded on first use, is not installed.
    case libraryMissing(MissingLibrary)

    public var description: String {
        switch self {
        case .noFonts:
            return "no fonts are installed (fontconfig found none): text is not drawn; install the package fonts-dejavu-core"
        case .freeType(let call, let code):
            return "FreeType's \(call) failed (error \(code))"
        case .fontconfig(let why):
            return "fontconfig: \(why)"
        case .libraryMissing(let missing):
            return "text is not drawn: \(missing)"
        }
    }
}
