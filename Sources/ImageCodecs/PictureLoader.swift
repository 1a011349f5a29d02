import KioskCore
import KioskRendering

/// Turns a picture file into a ``RasterImage`` fitted to a slot: read, decode
/// (JPEG or PNG, recognised by content, not by name), scale once.
public struct PictureLoader: Sendable {
    /// Files above this size are refused unread.
    public var maximumFileBytes = 256 << 20
    /// Decoded pictures above this many pixels are refused before allocation.
    /// 64 Mpx covers a 50 Mpx camera at full size (PNGs decode at full size).
    public var maximumDecodedPixels = 64 << 20
    /// Composited under transparent PNG pixels.
    public var background: RGBColor
    /// Show camera JPEGs upright, as their EXIF Orientation tag says.
    public var exifRotate: Bool

    public init(background: RGBColor, exifRotate: Bool = true) {
        self.background = background
        self.exifRotate = exifRotate
    }

    /// Loads `path` and contain-fits it into `slot`.
    public func load(_ path: String, fittedTo slot: PixelSize) throws(ImageFileError) -> RasterImage {
        let bytes = try readWholeFile(path, limit: maximumFileBytes)
        guard !bytes.isEmpty else { throw ImageFileError(path: path, reason: .empty) }
        switch PictureFormat(sniffing: bytes) {
        case .jpeg:
            // Fit the upright picture from the header's full size; the
            // DCT-scaled decode (in stored orientation) is only a cheaper
            // starting point, turned upright before the resampler.
            let stored = try JPEGCodec.size(of: bytes, path: path)
            let orientation = exifRotate ? EXIFOrientation.read(bytes) : .upright
            let fitted = aspectFitSize(of: orientation.uprightSize(of: stored), in: slot)
            let decoded = try JPEGCodec.decode(
                bytes, path: path, minimumSize: orientation.uprightSize(of: fitted), maximumPixels: maximumDecodedPixels)
            return resample(upright(decoded, orientation), to: fitted)
        case .png:
            let decoded = try PNGCodec.decode(bytes, path: path, background: background, maximumPixels: maximumDecodedPixels)
            return resample(decoded, to: aspectFitSize(of: decoded.size, in: slot))
        case nil:
            throw ImageFileError(path: path, reason: .notAnImage)
        }
    }
}

/// The formats the kiosk decodes, told apart by their first bytes.
public enum PictureFormat: Sendable {
    case jpeg, png

    public init?(sniffing bytes: [UInt8]) {
        if bytes.starts(with: [0xFF, 0xD8, 0xFF]) {
            self = .jpeg
        } else if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            self = .png
        } else {
            return nil
        }
    }
}
