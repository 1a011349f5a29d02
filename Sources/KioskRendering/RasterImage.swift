import KioskCore

/// A picture in memory: XRGB8888 pixels (`0x00RRGGBB`), row after row with no
/// padding. This is the display's own pixel format, so pictures are copied to
/// the screen row by row without conversion.
public struct RasterImage: Sendable, Equatable {
    public let size: PixelSize
    public var pixels: [UInt32]

    public init(size: PixelSize, pixels: [UInt32]) {
        precondition(pixels.count == size.pixelCount, "pixel count does not match \(size)")
        self.size = size
        self.pixels = pixels
    }

    public init(size: PixelSize, filledWith colour: RGBColor) {
        self.init(size: size, pixels: Array(repeating: colour.xrgb, count: size.pixelCount))
    }

    public var width: Int { size.width }
    public var height: Int { size.height }

    public subscript(x: Int, y: Int) -> UInt32 {
        get { pixels[y * size.width + x] }
        set { pixels[y * size.width + x] = newValue }
    }

    /// Fills a rectangle, clipped to the image.
    public mutating func fill(x: Int, y: Int, width: Int, height: Int, with colour: RGBColor) {
        let x0 = max(0, x), x1 = min(size.width, x + width)
        let y0 = max(0, y), y1 = min(size.height, y + height)
        guard x0 < x1 else { return }
        for row in max(0, y0)..<max(y0, y1) {
            let start = row * size.width
            pixels.replaceSubrange((start + x0)..<(start + x1), with: repeatElement(colour.xrgb, count: x1 - x0))
        }
    }

    /// Copies `picture` in with its top left corner at (`x`, `y`); it must fit.
    public mutating func place(_ picture: RasterImage, x: Int, y: Int) {
        precondition(x >= 0 && y >= 0 && x + picture.width <= width && y + picture.height <= height, "\(picture.size) does not fit at \(x),\(y) in \(size)")
        for row in 0..<picture.height {
            let from = row * picture.width, to = (y + row) * width + x
            pixels.replaceSubrange(to..<(to + picture.width), with: picture.pixels[from..<(from + picture.width)])
        }
    }

    /// The pixels `rect` of the picture (which must hold it).
    public func cropped(to rect: PixelRect) -> RasterImage {
        precondition(rect.x >= 0 && rect.y >= 0 && rect.x + rect.width <= width && rect.y + rect.height <= height, "\(rect) is not inside \(size)")
        if rect.x == 0 && rect.y == 0 && rect.size == size { return self }
        var cut: [UInt32] = []
        cut.reserveCapacity(rect.width * rect.height)
        for row in rect.y..<(rect.y + rect.height) {
            let start = row * width + rect.x
            cut += pixels[start..<(start + rect.width)]
        }
        return RasterImage(size: rect.size, pixels: cut)
    }

    /// Lends the pixels as a ``PixelSurface`` to draw into.
    public mutating func withSurface<R>(_ body: (PixelSurface) throws -> R) rethrows -> R {
        let size = self.size
        return try pixels.withUnsafeMutableBytes { bytes in
            try body(PixelSurface(base: bytes.baseAddress!, size: size, bytesPerRow: size.width * 4))
        }
    }
}

/// Memory the compositor draws into: XRGB8888 rows `bytesPerRow` apart.
/// A frame in an array (snapshots) and a mapped DRM dumb buffer (whose pitch
/// may be wider than the picture) look the same through it.
///
/// Write-only by construction. A scan-out buffer is often mapped
/// write-combined, where reading is many times slower than writing (reads
/// bypass the cache); so nothing outside this module can reach its memory
/// (`base` is internal), and inside it only the compositor and ``turn(_:onto:by:)``
/// use ``row(_:)``, and only to write (`update(from:)`, `update(repeating:)`,
/// stores). `SurfaceWriteOnlyTests` checks that no frame depends on what the
/// buffer held before. A screenshot is composed again in ordinary memory
/// (``FrameRecipe``), never read back.
public struct PixelSurface {
    let base: UnsafeMutableRawPointer
    public let size: PixelSize
    public let bytesPerRow: Int

    public init(base: UnsafeMutableRawPointer, size: PixelSize, bytesPerRow: Int) {
        precondition(bytesPerRow >= size.width * 4)
        self.base = base
        self.size = size
        self.bytesPerRow = bytesPerRow
    }

    func row(_ y: Int) -> UnsafeMutablePointer<UInt32> {
        (base + y * bytesPerRow).assumingMemoryBound(to: UInt32.self)
    }
}
