import KioskCore

/// The picture turned or mirrored upright, as its EXIF orientation says.
public func upright(_ image: RasterImage, _ orientation: ImageOrientation) -> RasterImage {
    if orientation == .upright { return image }
    let size = orientation.uprightSize(of: image.size)
    var pixels = [UInt32](repeating: 0, count: size.pixelCount)
    image.pixels.withUnsafeBufferPointer { source in
        pixels.withUnsafeMutableBufferPointer { out in
            for y in 0..<size.height {
                for x in 0..<size.width {
                    let s = orientation.storedPixel(forUpright: x, y, stored: image.size)
                    out[y * size.width + x] = source[s.y * image.width + s.x]
                }
            }
        }
    }
    return RasterImage(size: size, pixels: pixels)
}
