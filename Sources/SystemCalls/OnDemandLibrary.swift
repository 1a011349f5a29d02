import COnDemand

/// A C library kioskd maps only when a feature first needs it (COnDemand):
/// a show of JPEGs with no broker and no text never loads the decoders of
/// the other formats, libmosquitto with OpenSSL, or the text stack, about
/// 8 MB of resident memory between them.
///
/// The Swift module that wraps the library calls ``open()`` before its
/// first call into it: each format's codec as it reads a picture, MQTT's
/// connection, the font library, and a photo's XMP and IPTC titles.
/// Because nothing links against these libraries, the Debian package lists
/// them by hand (scripts/make-deb asks dpkg which package holds each
/// soname below).
public enum OnDemandLibrary: CaseIterable, Sendable {
    case heif, avif, mosquitto, raqm, freeType, fontconfig, exempi, iptcData, webP, webPDemux, gif, spng, yuv
    /// FFmpeg's three, for video clips, opened together (``ImageCodecs``' `ClipCodec`).
    case avUtil, avCodec, avFormat
    /// A server's photo library: HTTP (libcurl, with its TLS), a WebDAV server's XML (Expat) and an Immich server's JSON (Jansson).
    case curl, expat, jansson

    /// The soname opened: the one the headers kioskd was built with belong to.
    public var soname: String { String(cString: on_demand_soname(cLibrary)) }

    /// The Debian package that installs it, named as Debian's policy names
    /// a shared library's package: the soname's name and number
    /// (libavif.so.16 in libavif16), with a hyphen between when the name
    /// ends in a digit; or the name it was given for 64-bit time_t (libcurl4t64).
    public var package: String {
        if let renamed = on_demand_package(cLibrary) { return String(cString: renamed) }
        let name = soname
        guard let range = name.firstRange(of: ".so.") else { return name }
        let base = name[..<range.lowerBound], number = name[range.upperBound...]
        return String(base) + (base.last?.isNumber == true ? "-" : "") + String(number)
    }

    /// Maps the library and fills its functions, the first time; every
    /// call after returns at once (the codecs call it for each picture), with
    /// the error's room on the stack. Throws when it cannot be loaded,
    /// naming the package to install.
    public func open() throws(MissingLibrary) {
        let library = cLibrary
        let reason: String? = withUnsafeTemporaryAllocation(of: CChar.self, capacity: 512) { words in
            guard on_demand_open(library, words.baseAddress, words.count) != 0 else { return nil }
            return String(decoding: words.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        if let reason { throw MissingLibrary(library: self, reason: reason) }
    }

    private var cLibrary: on_demand_library {
        switch self {
        case .heif: on_demand_heif
        case .avif: on_demand_avif
        case .mosquitto: on_demand_mosquitto
        case .raqm: on_demand_raqm
        case .freeType: on_demand_freetype
        case .fontconfig: on_demand_fontconfig
        case .exempi: on_demand_exempi
        case .iptcData: on_demand_iptcdata
        case .webP: on_demand_webp
        case .webPDemux: on_demand_webpdemux
        case .gif: on_demand_gif
        case .spng: on_demand_spng
        case .yuv: on_demand_yuv
        case .avUtil: on_demand_avutil
        case .avCodec: on_demand_avcodec
        case .avFormat: on_demand_avformat
        case .curl: on_demand_curl
        case .expat: on_demand_expat
        case .jansson: on_demand_jansson
        }
    }
}

/// A library loaded on demand that is not there, or not whole: dlopen's
/// or dlsym's words, and the package that installs it.
public struct MissingLibrary: Error, Equatable, Sendable, CustomStringConvertible {
    public let library: OnDemandLibrary
    public let reason: String

    public init(library: OnDemandLibrary, reason: String) {
        self.library = library
        self.reason = reason
    }

    public var description: String { "\(library.soname) cannot be loaded (it comes with the package \(library.package)): \(reason)" }
}
