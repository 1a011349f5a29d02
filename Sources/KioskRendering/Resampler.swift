import KioskCore

/// Resizes a picture with a separable tent (triangle) filter whose width grows
/// with the reduction, so downscaling averages every source pixel it covers
/// (no nearest-neighbour shimmer) and upscaling interpolates linearly.
///
/// Weights are 14-bit fixed point (rows are narrowed first and rounded to
/// 8 bits, then combined vertically) and sum exactly to one, so a flat colour
/// stays exactly that colour: what the snapshot tests rely on.
public func resample(_ image: RasterImage, to size: PixelSize) -> RasterImage {
    precondition(size.width > 0 && size.height > 0)
    if image.size == size { return image }
    let horizontal = FilterTaps(from: image.width, to: size.width)
    let vertical = FilterTaps(from: image.height, to: size.height)

    // Output rows are made one at a time from the few source rows under the
    // vertical filter, each narrowed to the new width once and kept in a
    // small ring: memory beyond the output is a few rows, and both passes
    // walk memory in order (the decoder's buffer is read once, top to bottom).
    let ringRows = vertical.width + 1
    var ring = [UInt32](repeating: 0, count: ringRows * size.width)
    var ringHolds = [Int](repeating: -1, count: ringRows)
    var sums = [Int32](repeating: 0, count: size.width * 3)
    var out = [UInt32](repeating: 0, count: size.pixelCount)
    image.pixels.withUnsafeBufferPointer { source in
        ring.withUnsafeMutableBufferPointer { ring in
            sums.withUnsafeMutableBufferPointer { sums in
                out.withUnsafeMutableBufferPointer { target in
                    for y in 0..<size.height {
                        for i in 0..<sums.count { sums[i] = 0 }
                        for t in 0..<vertical.width {
                            let weight = vertical.weights[y * vertical.width + t]
                            if weight == 0 { continue }
                            let row = vertical.first[y] + t
                            let slot = row % ringRows
                            let narrowed = UnsafeMutableBufferPointer(rebasing: ring[(slot * size.width)...].prefix(size.width))
                            if ringHolds[slot] != row {
                                horizontal.apply(source: source, offset: row * image.width, step: 1,
                                                 target: narrowed, targetOffset: 0, targetStep: 1)
                                ringHolds[slot] = row
                            }
                            for x in 0..<size.width {
                                let p = narrowed[x]
                                sums[3 * x] += Int32((p >> 16) & 0xFF) * weight
                                sums[3 * x + 1] += Int32((p >> 8) & 0xFF) * weight
                                sums[3 * x + 2] += Int32(p & 0xFF) * weight
                            }
                        }
                        let base = y * size.width
                        for x in 0..<size.width {
                            target[base + x] = FilterTaps.channel(sums[3 * x]) << 16
                                | FilterTaps.channel(sums[3 * x + 1]) << 8 | FilterTaps.channel(sums[3 * x + 2])
                        }
                    }
                }
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

    static func channel(_ sum: Int32) -> UInt32 {
        UInt32(min(255, max(0, (sum + (one >> 1)) >> 14)))
    }
}
