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
    // The four bytes of a pixel are filtered together as one SIMD vector.
    let ringRows = vertical.width + 1
    var ring = [UInt32](repeating: 0, count: ringRows * size.width)
    var ringHolds = [Int](repeating: -1, count: ringRows)
    var out = [UInt32](repeating: 0, count: size.pixelCount)
    image.pixels.withUnsafeBufferPointer { source in
        ring.withUnsafeMutableBufferPointer { ring in
            out.withUnsafeMutableBufferPointer { target in
                var rows: [(UnsafeMutablePointer<UInt32>, Int32)] = []
                rows.reserveCapacity(vertical.width)
                for y in 0..<size.height {
                    rows.removeAll(keepingCapacity: true)
                    for t in 0..<vertical.counts[y] {
                        let row = vertical.first[y] + t
                        let slot = row % ringRows
                        let narrowed = ring.baseAddress! + slot * size.width
                        if ringHolds[slot] != row {
                            horizontal.narrow(source.baseAddress! + row * image.width, into: narrowed)
                            ringHolds[slot] = row
                        }
                        rows.append((narrowed, vertical.weights[y * vertical.width + t]))
                    }
                    let line = target.baseAddress! + y * size.width
                    for x in 0..<size.width {
                        var sum = SIMD4<Int32>(repeating: 0)
                        for (row, weight) in rows { sum &+= FilterTaps.expand(row[x]) &* weight }
                        line[x] = FilterTaps.pack(sum)
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
    /// Taps per output pixel (fewer than `width` at the edges).
    let counts: [Int]
    let width: Int
    let weights: [Int32]   // `width` per output pixel, zero-padded

    init(from sourceLength: Int, to targetLength: Int) {
        let scale = Double(sourceLength) / Double(targetLength)
        let radius = max(1.0, scale)
        let width = Int((2 * radius).rounded(.up)) + 1
        var first = [Int](repeating: 0, count: targetLength)
        var counts = [Int](repeating: 0, count: targetLength)
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
            counts[i] = max(lo, hi) - lo + 1
            for t in 0..<width { weights[i * width + t] = (lo + t <= hi) ? fixed[t] : 0 }
        }
        self.first = first
        self.counts = counts
        self.width = width
        self.weights = weights
    }

    /// Filters one row of `first`-indexed source pixels into `target`.
    func narrow(_ source: UnsafePointer<UInt32>, into target: UnsafeMutablePointer<UInt32>) {
        weights.withUnsafeBufferPointer { weights in
            first.withUnsafeBufferPointer { first in
                counts.withUnsafeBufferPointer { counts in
                    for i in 0..<first.count {
                        var sum = SIMD4<Int32>(repeating: 0)
                        let pixels = source + first[i], taps = i * width
                        for t in 0..<counts[i] { sum &+= Self.expand(pixels[t]) &* weights[taps + t] }
                        target[i] = Self.pack(sum)
                    }
                }
            }
        }
    }

    /// XRGB8888 as four 32-bit lanes, one per byte.
    @inline(__always)
    static func expand(_ pixel: UInt32) -> SIMD4<Int32> {
        SIMD4<Int32>(truncatingIfNeeded: unsafeBitCast(pixel, to: SIMD4<UInt8>.self))
    }

    /// Rounds 14-bit fixed-point lanes back to bytes (the X byte is zero).
    @inline(__always)
    static func pack(_ sum: SIMD4<Int32>) -> UInt32 {
        let bytes = ((sum &+ (one >> 1)) &>> 14).clamped(lowerBound: .zero, upperBound: SIMD4(repeating: 255))
        return unsafeBitCast(SIMD4<UInt8>(truncatingIfNeeded: bytes), to: UInt32.self) & 0x00FF_FFFF
    }
}
