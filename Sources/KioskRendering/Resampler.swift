import KioskCore

/// Resizes a picture with a separable tent (triangle) filter whose width grows
/// with the reduction, so downscaling averages every source pixel it covers
/// (no nearest-neighbour shimmer) and upscaling interpolates linearly; and
/// turns it upright as `orientation` says on the way, each output pixel
/// written once at its upright place (a camera's EXIF turn costs no pass of
/// its own). `size` is the upright size.
///
/// Weights are 14-bit fixed point across and 8-bit down (rows are narrowed
/// first and rounded to 8 bits, then combined vertically) and sum exactly
/// to one, so a flat colour stays exactly that colour: what the snapshot
/// tests rely on.
public func resample(_ image: RasterImage, to size: PixelSize, turning orientation: ImageOrientation = .upright) -> RasterImage {
    let target = orientation.swapsSides ? PixelSize(width: size.height, height: size.width) : size
    if image.size == target && orientation == .upright { return image }
    return image.pixels.withUnsafeBufferPointer { source in
        resample(rowsOf: image.size, to: size, turning: orientation) { source.baseAddress! + $0 * image.width }
    }
}

/// ``resample(_:to:turning:)`` of the part `rect` of `image` (which must
/// hold it), read where it is: no copy of the part is made first.
/// `reusing`: see ``resample(rowsOf:to:turning:reusing:row:)``.
public func resample(_ image: RasterImage, cropping rect: PixelRect, to size: PixelSize, reusing: consuming [UInt32]? = nil) -> RasterImage {
    precondition(rect.x >= 0 && rect.y >= 0 && rect.x + rect.width <= image.width && rect.y + rect.height <= image.height,
                 "\(rect) is not inside \(image.size)")
    var owned = consume reusing
    return image.pixels.withUnsafeBufferPointer { pixels in
        resample(rowsOf: rect.size, to: size, reusing: owned.take()) { pixels.baseAddress! + (rect.y + $0) * image.width + rect.x }
    }
}

/// ``resample(_:to:turning:)`` for a picture given a row at a time, as a
/// decoder makes them: `row(r)` is asked for rows in increasing order, each
/// at most once (some may be passed over), and what it returns need only
/// last until it is asked again. The picture is never in memory whole.
///
/// - Parameter reusing: pixels no longer needed, of the output's size,
///   written over instead of allocating anew: a zoom's frames, one after
///   another. (A picture buffer is mapped fresh from the kernel each time,
///   `keepPictureBuffersOutOfTheHeap`, and a fresh 6 MB costs 1,500 page
///   faults.) Held anywhere else, they are copied first: nothing shared changes.
public func resample(
    rowsOf sourceSize: PixelSize, to size: PixelSize, turning orientation: ImageOrientation = .upright,
    reusing: consuming [UInt32]? = nil, row source: (Int) -> UnsafePointer<UInt32>
) -> RasterImage {
    precondition(size.width > 0 && size.height > 0 && sourceSize.width > 0 && sourceSize.height > 0)
    // The output in the picture's stored orientation; its rows land upright below.
    let target = orientation.swapsSides ? PixelSize(width: size.height, height: size.width) : size
    let horizontal = FilterTaps(from: sourceSize.width, to: target.width)
    let vertical = FilterTaps(from: sourceSize.height, to: target.height, bits: 8)
    let placement = UprightPlacement(orientation, stored: target)

    // Output rows are made one at a time from the few source rows under the
    // vertical filter, each narrowed to the new width once and kept in a
    // small ring: memory beyond the output is a few rows, and both passes
    // walk memory in order (each source row is read once, top to bottom).
    // Across, the four bytes of a pixel are filtered together as one SIMD
    // vector; down, whole rows at once, tap by tap, two pixels' eight bytes
    // per 16-bit vector. Rows are padded to an even number of pixels.
    let width = target.width, padded = (target.width + 1) & ~1
    let ringRows = vertical.width + 1
    var ring = [UInt32](repeating: 0, count: ringRows * padded)
    var ringHolds = [Int](repeating: -1, count: ringRows)
    var sums = [SIMD8<UInt16>](repeating: .zero, count: padded / 2)
    var line = [UInt32](repeating: 0, count: padded)
    // Every output pixel is written below, once: no zeroing first.
    func fill(_ target: UnsafeMutableBufferPointer<UInt32>) {
        ring.withUnsafeMutableBufferPointer { ring in
            sums.withUnsafeMutableBufferPointer { sums in
                line.withUnsafeMutableBufferPointer { line in
                    let pairs = sums.count
                    for y in 0..<vertical.counts.count {
                        for t in 0..<vertical.counts[y] {
                            let row = vertical.first[y] + t
                            let slot = row % ringRows
                            let narrowed = ring.baseAddress! + slot * padded
                            if ringHolds[slot] != row {
                                horizontal.narrow(source(row), into: narrowed)
                                ringHolds[slot] = row
                            }
                            let bytes = UnsafeRawPointer(narrowed)
                            let weight = SIMD8<UInt16>(repeating: UInt16(vertical.weights[y * vertical.width + t]))
                            if t == 0 {
                                for p in 0..<pairs { sums[p] = SIMD8(truncatingIfNeeded: bytes.loadUnaligned(fromByteOffset: p &* 8, as: SIMD8<UInt8>.self)) &* weight }
                            } else {
                                for p in 0..<pairs { sums[p] &+= SIMD8(truncatingIfNeeded: bytes.loadUnaligned(fromByteOffset: p &* 8, as: SIMD8<UInt8>.self)) &* weight }
                            }
                        }
                        // Round the 8-bit fixed point back to bytes: at most 255 * 256 + 128, no clamp needed.
                        let start = target.baseAddress! + placement.start(ofRow: y)
                        let inPlace = placement.step == 1 && width == padded
                        let packed = UnsafeMutableRawPointer(inPlace ? start : line.baseAddress!)
                        for p in 0..<pairs {
                            packed.storeBytes(of: SIMD8<UInt8>(truncatingIfNeeded: (sums[p] &+ 128) &>> 8), toByteOffset: p &* 8, as: SIMD8<UInt8>.self)
                        }
                        if !inPlace {
                            let step = placement.step
                            for x in 0..<width { start[x &* step] = line[x] }
                        }
                    }
                }
            }
        }
    }
    var owned = consume reusing
    if var reused = owned.take(), reused.count == size.pixelCount {
        reused.withUnsafeMutableBufferPointer { fill($0) }
        return RasterImage(size: size, pixels: reused)
    }
    let out = [UInt32](unsafeUninitializedCapacity: size.pixelCount) { target, initialized in
        fill(target)
        initialized = size.pixelCount
    }
    return RasterImage(size: size, pixels: out)
}

/// Where a row of a picture in its stored orientation lands in the upright
/// picture (row after row, `width` pixels each): the index of its first
/// pixel, and the step from one pixel to the next (1 when the row stays a
/// row, plus or minus the upright width when it becomes a column).
struct UprightPlacement {
    let step: Int
    private let origin: Int
    private let rowStep: Int

    init(_ orientation: ImageOrientation, stored: PixelSize) {
        // The inverse of ``ImageOrientation/storedPixel(forUpright:_:stored:)``:
        // which upright pixel shows stored pixel (x, y), as an index.
        let upright = orientation.uprightSize(of: stored)
        func index(ofStored x: Int, _ y: Int) -> Int {
            let w = stored.width, h = stored.height
            let (ux, uy): (Int, Int)
            switch orientation {
            case .upright: (ux, uy) = (x, y)
            case .mirrored: (ux, uy) = (w - 1 - x, y)
            case .upsideDown: (ux, uy) = (w - 1 - x, h - 1 - y)
            case .mirroredUpsideDown: (ux, uy) = (x, h - 1 - y)
            case .transposed: (ux, uy) = (y, x)
            case .turnedClockwise: (ux, uy) = (h - 1 - y, x)
            case .transversed: (ux, uy) = (h - 1 - y, w - 1 - x)
            case .turnedCounterClockwise: (ux, uy) = (y, w - 1 - x)
            }
            return uy * upright.width + ux
        }
        origin = index(ofStored: 0, 0)
        step = index(ofStored: 1, 0) - origin
        rowStep = index(ofStored: 0, 1) - origin
    }

    func start(ofRow y: Int) -> Int { origin + y * rowStep }
}

/// For each output pixel along one axis: the first source pixel it reads and
/// the fixed-point weight of each source pixel it reads. (Public for
/// ImageCodecs, which narrows a HEIC's planes with the same tent.)
public struct FilterTaps: Sendable {
    /// The horizontal pass's precision: 14 bits.
    public static let one: Int32 = 1 << 14
    public let first: [Int]
    /// Taps per output pixel that weigh something (fewer than `width`).
    public let counts: [Int]
    public let width: Int
    /// `width` per output pixel, zero-padded, summing exactly to `1 << bits`.
    public let weights: [Int16]

    /// - Parameter bits: the weights' precision: 14 across (a product with
    ///   a byte needs 22 bits, in 32-bit lanes), 8 down (255 times the
    ///   weights' sum still fits 16-bit lanes, twice as many per vector).
    public init(from sourceLength: Int, to targetLength: Int, bits: Int = 14) {
        let one = Int32(1) << bits
        let scale = Double(sourceLength) / Double(targetLength)
        let radius = max(1.0, scale)
        let width = Int((2 * radius).rounded(.up)) + 1
        var first = [Int](repeating: 0, count: targetLength)
        var counts = [Int](repeating: 0, count: targetLength)
        var weights = [Int16](repeating: 0, count: width * targetLength)
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
            var fixed = raw.map { Int32(($0 / max(total, 1e-12) * Double(one)).rounded()) }
            // Put any rounding remainder on the heaviest tap so the sum is exact.
            let heaviest = fixed.indices.max { fixed[$0] < fixed[$1] }!
            fixed[heaviest] += one - fixed.reduce(0, +)
            if fixed[heaviest] < 0 {
                // Hundreds of taps each rounded up (a reduction of more than
                // about 128:1 at 8 bits, a hostile picture's 40x9502): the
                // running sum is rounded instead, so no weight is negative
                // and they still sum exactly to one.
                var cumulative = 0.0, before: Int32 = 0
                fixed = raw.map { weight in
                    cumulative += weight / max(total, 1e-12)
                    let upTo = min(one, Int32((cumulative * Double(one)).rounded()))
                    defer { before = upTo }
                    return upTo - before
                }
                fixed[fixed.count - 1] += one - fixed.reduce(0, +)
            }
            first[i] = lo
            // Only the taps that weigh something: the window is one wider than
            // the tent, so its last tap (often the last two) is zero, and
            // skipping them cuts a slight reduction's taps from 4 to about 2.2.
            var count = max(lo, hi) - lo + 1
            while count > 1 && fixed[count - 1] == 0 { count -= 1 }
            counts[i] = count
            for t in 0..<width { weights[i * width + t] = (lo + t <= hi) ? Int16(fixed[t]) : 0 }
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
                        let pixels = source + first[i], taps = weights.baseAddress! + i &* width
                        for t in 0..<counts[i] { sum &+= Self.expand(pixels[t]) &* SIMD4(repeating: Int32(taps[t])) }
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
