import KioskCore

/// Resizes a picture with a separable tent (triangle) filter whose width grows
/// with the reduction, so downscaling averages every source pixel it covers
/// (no nearest-neighbour shimmer) and upscaling interpolates linearly.
///
/// Weights are 14-bit fixed point and sum exactly to one, so a flat colour
/// stays exactly that colour: what the snapshot tests rely on.
public func resample(_ image: RasterImage, to size: PixelSize) -> RasterImage {
    precondition(size.width > 0 && size.height > 0)
    if image.size == size { return image }
    let horizontal = FilterTaps(from: image.width, to: size.width)
    let vertical = FilterTaps(from: image.height, to: size.height)

    // Pass 1: rows to the new width. Pass 2: columns to the new height.
    var wide = [UInt32](repeating: 0, count: size.width * image.height)
    image.pixels.withUnsafeBufferPointer { source in
        wide.withUnsafeMutableBufferPointer { target in
            for y in 0..<image.height {
                horizontal.apply(source: source, offset: y * image.width, step: 1,
                                 target: target, targetOffset: y * size.width, targetStep: 1)
            }
        }
    }
    var out = [UInt32](repeating: 0, count: size.pixelCount)
    wide.withUnsafeBufferPointer { source in
        out.withUnsafeMutableBufferPointer { target in
            for x in 0..<size.width {
                vertical.apply(source: source, offset: x, step: size.width,
                               target: target, targetOffset: x, targetStep: size.width)
            }
        }
    }
    return RasterImage(size: size, pixels: out)
}

/// For each output pixel along one axis: the first source pixel it reads and
/// the fixed-point weight of each source pixel it reads.
struct FilterTaps {
    static let one: Int32 = 1 << 14
    let first: [Int]
    let width: Int
    let weights: [Int32]   // `width` per output pixel, zero-padded

    init(from sourceLength: Int, to targetLength: Int) {
        let scale = Double(sourceLength) / Double(targetLength)
        let radius = max(1.0, scale)
        let width = Int((2 * radius).rounded(.up)) + 1
        var first = [Int](repeating: 0, count: targetLength)
        var weights = [Int32](repeating: 0, count: width * targetLength)
        for i in 0..<targetLength {
            let centre = (Double(i) + 0.5) * scale - 0.5
            let lo = max(0, Int((centre - radius).rounded(.down)) + 1)
            let hi = min(sourceLength - 1, lo + width - 1)
            var raw = [Double](repeating: 0, count: width)
            for j in lo...max(lo, hi) {
                raw[j - lo] = max(0, 1 - abs(Double(j) - centre) / radius)
            }
            let total = raw.reduce(0, +)
            if total == 0 { raw[0] = 1 }   // cannot happen for sane sizes; stay safe
            var fixed = raw.map { Int32(($0 / max(total, 1e-12) * Double(Self.one)).rounded()) }
            // Put any rounding remainder on the heaviest tap so the sum is exact.
            let heaviest = fixed.indices.max { fixed[$0] < fixed[$1] }!
            fixed[heaviest] += Self.one - fixed.reduce(0, +)
            first[i] = lo
            for t in 0..<width { weights[i * width + t] = (lo + t <= hi) ? fixed[t] : 0 }
        }
        self.first = first
        self.width = width
        self.weights = weights
    }

    func apply(source: UnsafeBufferPointer<UInt32>, offset: Int, step: Int,
               target: UnsafeMutableBufferPointer<UInt32>, targetOffset: Int, targetStep: Int) {
        weights.withUnsafeBufferPointer { weights in
            for i in 0..<first.count {
                var r: Int32 = 0, g: Int32 = 0, b: Int32 = 0
                let base = i * width
                var s = offset + first[i] * step
                for t in 0..<width {
                    let w = weights[base + t]
                    if w != 0 {
                        let p = source[s]
                        r += Int32((p >> 16) & 0xFF) * w
                        g += Int32((p >> 8) & 0xFF) * w
                        b += Int32(p & 0xFF) * w
                    }
                    s += step
                    if w == 0 && t > 0 { break }
                }
                target[targetOffset + i * targetStep] =
                    Self.channel(r) << 16 | Self.channel(g) << 8 | Self.channel(b)
            }
        }
    }

    private static func channel(_ sum: Int32) -> UInt32 {
        UInt32(min(255, max(0, (sum + (one >> 1)) >> 14)))
    }
}
