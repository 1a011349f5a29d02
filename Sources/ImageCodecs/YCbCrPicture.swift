import CYUV
import Dispatch
import KioskCore
import KioskRendering
#if canImport(Glibc)
import Glibc
#endif

/// A picture as a video-coded format's decoder leaves it (HEIF and AVIF):
/// a luma plane, two chroma planes that may be subsampled, or none for
/// monochrome, and perhaps an alpha plane; 8 bits a sample, or 9 to 16 in
/// two bytes. A 12 Mpx 4:2:0 photo is 18 MB so, against 48 MB as XRGB.
///
/// Reduced to a slot, each plane is first scaled down by libyuv (SIMD, a
/// box filter: each sample the average of those it covers), and only the
/// small planes are converted. Averaging before or after the conversion
/// gives the same colours (the matrix is linear) within rounding, at a
/// fraction of the cost: a 4K AVIF's planes are reduced to 1344x756 in
/// about 6 ms, where converting and resampling 8 Mpx took 35. Otherwise
/// (a picture at or below its slot's size, or a zoom's region) it is
/// converted to XRGB a row at a time as the resampler asks for rows. So
/// the full-size picture never exists in RGB. The planes belong to the
/// decoder's image, which `owner` keeps alive.
struct YCbCrPicture {
    struct Plane {
        let base: UnsafeRawPointer
        let rowBytes: Int
    }

    /// How the samples are to be read: CICP's matrix, range, primaries and transfer.
    struct Colour {
        /// CICP matrix coefficients: 0 is GBR (no matrix), 1 BT.709, 5 and 6 BT.601, 9 BT.2020; 2 (unspecified) reads as BT.601.
        var matrix = 2
        var primaries = 2
        var transfer = 2
        var fullRange = true
        /// The content's brightest light, from its `clli` box, when it says.
        var peakNits: Float?
    }

    let size: PixelSize
    let luma: Plane
    /// Cb and Cr; nil for a monochrome picture.
    let chroma: (cb: Plane, cr: Plane)?
    /// How many columns and rows one chroma sample covers, as shifts: (1, 1) for 4:2:0, (1, 0) for 4:2:2.
    let chromaShift: (x: Int, y: Int)
    let alpha: Plane?
    /// Bits a sample: 8, or 10, 12 (and up to 16), stored in two bytes, native order.
    let depth: Int
    let alphaDepth: Int
    /// Alpha already multiplied into the colour (AVIF may say so).
    let premultiplied: Bool
    let colour: Colour
    /// The decoder's image, released when the last copy of this goes.
    let owner: AnyObject

    /// The part `rect` (stored coordinates) resampled to `size` (upright) and
    /// turned by `orientation`, as XRGB over `background`.
    func resampled(cropping rect: PixelRect, to size: PixelSize, turning orientation: ImageOrientation = .upright, background: RGBColor) -> RasterImage {
        // `size` in the stored orientation.
        let stored = orientation.uprightSize(of: size)
        if stored.width < rect.width && stored.height < rect.height {
            let small = reduced(cropping: rect, to: stored).converted(background: background)
            return orientation == .upright ? small : resample(small, to: size, turning: orientation)
        }
        let converter = RowConverter(self, background: background)
        var row = [UInt32](repeating: 0, count: rect.width)
        return row.withUnsafeMutableBufferPointer { row in
            resample(rowsOf: rect.size, to: size, turning: orientation) { y in
                converter.convert(row: rect.y + y, from: rect.x, into: row)
                return UnsafePointer(row.baseAddress!)
            }
        }
    }

    /// The part `rect` with each plane scaled to its share of `size` by
    /// libyuv's box filter, into planes of its own in `storage` (a clip's
    /// frames use one storage again and again, ``PlaneStorage/reuse()``).
    func reduced(cropping rect: PixelRect, to size: PixelSize, in storage: PlaneStorage = PlaneStorage()) -> YCbCrPicture {
        func scaled(_ plane: Plane, shift: (x: Int, y: Int), sampleDepth: Int) -> Plane {
            let bytes = sampleDepth > 8 ? 2 : 1
            let x0 = rect.x >> shift.x, y0 = rect.y >> shift.y
            let from = PixelSize(width: ((rect.x + rect.width + (1 << shift.x) - 1) >> shift.x) - x0,
                                 height: ((rect.y + rect.height + (1 << shift.y) - 1) >> shift.y) - y0)
            let to = PixelSize(width: (size.width + (1 << shift.x) - 1) >> shift.x, height: (size.height + (1 << shift.y) - 1) >> shift.y)
            let target = storage.allocate(to.pixelCount * bytes)
            YCbCrPicture.boxScale(plane.base + y0 * plane.rowBytes + x0 * bytes, rowBytes: plane.rowBytes, from: from, into: target, to: to, bytes: bytes)
            return Plane(base: UnsafeRawPointer(target), rowBytes: to.width * bytes)
        }
        let whole = (x: 0, y: 0)
        return YCbCrPicture(
            size: size, luma: scaled(luma, shift: whole, sampleDepth: depth),
            chroma: chroma.map { (cb: scaled($0.cb, shift: chromaShift, sampleDepth: depth), cr: scaled($0.cr, shift: chromaShift, sampleDepth: depth)) },
            chromaShift: chromaShift, alpha: alpha.map { scaled($0, shift: whole, sampleDepth: alphaDepth) },
            depth: depth, alphaDepth: alphaDepth, premultiplied: premultiplied, colour: colour, owner: storage)
    }

    /// libyuv's box filter from the `from` samples at `source` (rows
    /// `rowBytes` apart) to the `to` samples at `target` (packed), for
    /// samples of `bytes` (1, or 2 for 9 to 16 bits).
    static func boxScale(_ source: UnsafeRawPointer, rowBytes: Int, from: PixelSize, into target: UnsafeMutableRawPointer, to: PixelSize, bytes: Int) {
        if bytes == 2 {
            ScalePlane_16(source.assumingMemoryBound(to: UInt16.self), Int32(rowBytes / 2), Int32(from.width), Int32(from.height),
                          target.assumingMemoryBound(to: UInt16.self), Int32(to.width), Int32(to.width), Int32(to.height), kFilterBox)
        } else {
            ScalePlane(source.assumingMemoryBound(to: UInt8.self), Int32(rowBytes), Int32(from.width), Int32(from.height),
                       target.assumingMemoryBound(to: UInt8.self), Int32(to.width), Int32(to.width), Int32(to.height), kFilterBox)
        }
    }

    /// Planes of a reduced picture, freed with it.
    ///
    /// A clip reduces 30 frames a second to one size: after ``reuse()``
    /// the same buffers are lent again, in the same order, so a frame costs
    /// no new memory (each new buffer of a megabyte or more is a fresh
    /// `mmap` whose pages the kernel must fault in and clear:
    /// ``keepPictureBuffersOutOfTheHeap()``).
    final class PlaneStorage {
        private var buffers: [(base: UnsafeMutableRawPointer, bytes: Int)] = []
        private var lent = 0

        /// The planes made before are no one's now: their buffers are lent again.
        func reuse() { lent = 0 }

        func allocate(_ bytes: Int) -> UnsafeMutableRawPointer {
            defer { lent += 1 }
            let bytes = max(bytes, 1)
            if lent < buffers.count {
                if buffers[lent].bytes >= bytes { return buffers[lent].base }
                buffers[lent].base.deallocate()
                buffers[lent] = (UnsafeMutableRawPointer.allocate(byteCount: bytes, alignment: 16), bytes)
                return buffers[lent].base
            }
            buffers.append((UnsafeMutableRawPointer.allocate(byteCount: bytes, alignment: 16), bytes))
            return buffers[lent].base
        }
        deinit { buffers.forEach { $0.base.deallocate() } }
    }

    /// The whole picture at its own size, as XRGB (tests, and pictures the size of their slot).
    func converted(background: RGBColor) -> RasterImage {
        resampled(cropping: PixelRect(x: 0, y: 0, width: size.width, height: size.height), to: size, background: background)
    }
}

extension YCbCrPicture {
    /// A picture that comes a row of tiles at a time (``HEIFCodec``'s grids,
    /// through libheif's tile API or ``HEIFGridTiles``), resampled to `fitted` as it comes:
    /// `row(r)` gives the tiles of tile row `r`, left to right, each at
    /// least `tiling.tile` in size, and is asked for each row once, top to
    /// bottom. Only that row of tiles is held.
    static func resampled(
        _ tiling: HEIFCodec.TileLayout, to fitted: PixelSize, background: RGBColor,
        row tiles: (Int) throws(ImageFileError) -> [YCbCrPicture]
    ) throws(ImageFileError) -> RasterImage {
        // Narrower than the picture: each row of tiles is joined and its
        // planes narrowed before any conversion, and the resampler is left
        // only the rows to reduce.
        let narrowing = fitted.width < tiling.size.width
        let rowWidth = narrowing ? fitted.width : tiling.size.width
        var band: [(picture: YCbCrPicture, converter: RowConverter)] = []
        var bandRow = -1
        var failure: ImageFileError?
        var line = [UInt32](repeating: 0, count: rowWidth)
        let picture = line.withUnsafeMutableBufferPointer { line in
            resample(rowsOf: PixelSize(width: rowWidth, height: tiling.size.height), to: fitted) { y in
                let shifted = y + tiling.offset.y
                let row = shifted / tiling.tile.height
                if row != bandRow && failure == nil {
                    band = []   // the last row of tiles goes before the next is decoded
                    do throws(ImageFileError) {
                        let decoded = try tiles(row)
                        let pictures = narrowing ? [narrowed(decoded, tiling, to: rowWidth)] : decoded
                        band = pictures.map { ($0, RowConverter($0, background: background)) }
                    } catch {
                        failure = error
                    }
                    bandRow = row
                }
                let local = shifted - row * tiling.tile.height
                if narrowing, let narrowed = band.first {
                    if local < narrowed.picture.size.height { narrowed.converter.convert(row: local, from: 0, into: line) }
                    return UnsafePointer(line.baseAddress!)
                }
                for (column, tile) in band.enumerated() {
                    // The part of the picture's row this tile covers, and where it is in the tile.
                    let start = column * tiling.tile.width - tiling.offset.x
                    let from = max(0, start), to = min(tiling.size.width, start + tiling.tile.width)
                    guard from < to, local < tile.picture.size.height, to - start <= tile.picture.size.width else { continue }
                    tile.converter.convert(row: local, from: from - start, into: UnsafeMutableBufferPointer(rebasing: line[from..<to]))
                }
                return UnsafePointer(line.baseAddress!)
            }
        }
        if let failure { throw failure }
        return picture
    }

    /// A row of tiles (each at least `tiling.tile`, all of one layout and
    /// depth, as a grid's are) joined side by side, and the picture's
    /// columns in it narrowed to `width` plane by plane (``narrowColumns``);
    /// its rows are kept.
    private static func narrowed(_ tiles: [YCbCrPicture], _ tiling: HEIFCodec.TileLayout, to width: Int) -> YCbCrPicture {
        let first = tiles[0], storage = PlaneStorage()
        func narrowed(_ plane: (YCbCrPicture) -> Plane?, shift: (x: Int, y: Int), depth: Int) -> Plane? {
            let bytes = depth > 8 ? 2 : 1
            let tileWidth = (tiling.tile.width + (1 << shift.x) - 1) >> shift.x
            let rows = (tiling.tile.height + (1 << shift.y) - 1) >> shift.y
            let joinedWidth = tileWidth * tiles.count
            // Joined only to be narrowed: freed at once, not kept with the picture.
            let joined = UnsafeMutableRawPointer.allocate(byteCount: max(1, joinedWidth * rows * bytes), alignment: 16)
            defer { joined.deallocate() }
            for (index, tile) in tiles.enumerated() {
                guard let source = plane(tile) else { return nil }
                for row in 0..<rows {
                    (joined + (row * joinedWidth + index * tileWidth) * bytes).copyMemory(from: source.base + row * source.rowBytes, byteCount: tileWidth * bytes)
                }
            }
            let x0 = tiling.offset.x >> shift.x
            let from = min(joinedWidth - x0, ((tiling.offset.x + tiling.size.width + (1 << shift.x) - 1) >> shift.x) - x0)
            let to = (width + (1 << shift.x) - 1) >> shift.x
            let target = storage.allocate(to * rows * bytes)
            narrowColumns(joined + x0 * bytes, rowBytes: joinedWidth * bytes, from: PixelSize(width: from, height: rows),
                          into: target, width: to, bytes: bytes)
            return Plane(base: UnsafeRawPointer(target), rowBytes: to * bytes)
        }
        let whole = (x: 0, y: 0)
        let chroma = first.chroma == nil ? nil : narrowed({ $0.chroma?.cb }, shift: first.chromaShift, depth: first.depth).flatMap { cb in
            narrowed({ $0.chroma?.cr }, shift: first.chromaShift, depth: first.depth).map { (cb: cb, cr: $0) }
        }
        return YCbCrPicture(
            size: PixelSize(width: width, height: tiling.tile.height),
            luma: narrowed({ $0.luma }, shift: whole, depth: first.depth)!, chroma: chroma, chromaShift: first.chromaShift,
            alpha: first.alpha == nil ? nil : narrowed({ $0.alpha }, shift: whole, depth: first.alphaDepth),
            depth: first.depth, alphaDepth: first.alphaDepth, premultiplied: first.premultiplied, colour: first.colour, owner: storage)
    }

    /// Each of the `from.height` rows of `from.width` samples at `source`
    /// (rows `rowBytes` apart) narrowed to `width` samples at `target`
    /// (packed) by the resampler's tent (``FilterTaps``), for samples of
    /// `bytes` (1, or 2 for 9 to 16 bits): with the resampler's tent down,
    /// the picture as if converted whole and resampled. Not libyuv: asked
    /// for a box with the rows kept, its ScaleFilterReduce reads two columns
    /// for each (every third column alone at exactly a third), and fine
    /// detail comes out as moiré.
    /// The rows are split between the cores (the tiles' decode, just before,
    /// has them all): a 12 Mpx grid's columns took about 120 ms on one.
    static func narrowColumns(_ source: UnsafeRawPointer, rowBytes: Int, from: PixelSize, into target: UnsafeMutableRawPointer, width: Int, bytes: Int) {
        let taps = FilterTaps(from: from.width, to: width)
        let parts = max(1, min(sysconf(Int32(_SC_NPROCESSORS_ONLN)), from.height / 64))
        let (source, target) = (UInt(bitPattern: source), UInt(bitPattern: target))
        DispatchQueue.concurrentPerform(iterations: parts) { part in
            narrowColumns(
                UnsafeRawPointer(bitPattern: source)!, rowBytes: rowBytes, rows: (from.height * part / parts)..<(from.height * (part + 1) / parts),
                taps: taps, into: UnsafeMutableRawPointer(bitPattern: target)!, width: width, bytes: bytes)
        }
    }

    private static func narrowColumns(
        _ source: UnsafeRawPointer, rowBytes: Int, rows: Range<Int>, taps: FilterTaps, into target: UnsafeMutableRawPointer, width: Int, bytes: Int
    ) {
        @inline(__always) func narrow<Sample: FixedWidthInteger & UnsignedInteger>(_: Sample.Type) {
            taps.weights.withUnsafeBufferPointer { weights in
                taps.first.withUnsafeBufferPointer { first in
                    taps.counts.withUnsafeBufferPointer { counts in
                        for y in rows {
                            let row = (source + y &* rowBytes).assumingMemoryBound(to: Sample.self)
                            let out = (target + y &* width &* bytes).assumingMemoryBound(to: Sample.self)
                            for i in 0..<width {
                                let samples = row + first[i], tap = weights.baseAddress! + i &* taps.width
                                var sum = 0
                                for t in 0..<counts[i] { sum &+= Int(samples[t]) &* Int(tap[t]) }
                                // Weights of 14 bits summing to one: no clamp.
                                out[i] = Sample(truncatingIfNeeded: (sum &+ Int(FilterTaps.one / 2)) >> 14)
                            }
                        }
                    }
                }
            }
        }
        if bytes == 2 { narrow(UInt16.self) } else { narrow(UInt8.self) }
    }
}

/// Y, Cb and Cr samples to XRGB through tables: for each possible sample
/// value, its share of red, green and blue in 8-bit levels with 12 bits of
/// fraction, range and depth folded in. A pixel is then three or four
/// additions and a clamp.
///
/// For 8-bit full-range samples the tables reproduce libheif's own integer
/// conversion (coefficients in 1/256ths, each product rounded as it
/// rounds), so kioskd shows such a picture as `heif-convert` writes it.
/// Deeper samples are scaled so their maximum is 255. Chroma is taken from
/// the sample covering the pixel, as libheif does. An HDR transfer (PQ,
/// HLG) goes through ``HDRToneMapping`` instead of being cut to 8 bits.
///
/// Limited-range luma is stretched from 16...235 to 0...255 for monochrome
/// too, as libavif's conversion (avifImageYUVToRGB) does at every depth:
/// a limited-range 4:0:0 AVIF shows the greys it was made from. avifdec's
/// 8-bit PNG of one holds the luma plane copied as it is, and so does
/// heif-convert's (libheif 1.15 to 1.23): neither is the reference here.
private struct RowConverter {
    let picture: YCbCrPicture
    /// Five tables of `1 << depth` entries, one after another: luma, red from Cr, green from Cb, green from Cr, blue from Cb.
    let tables: [Int32]
    let alphaLevels: [UInt8]
    let blend: AlphaCompositor
    let toneMapping: HDRToneMapping?
    static let fraction: Int32 = 12

    init(_ picture: YCbCrPicture, background: RGBColor) {
        self.picture = picture
        blend = AlphaCompositor(background)
        let colour = picture.colour
        toneMapping = HDRToneMapping.Transfer(cicp: colour.transfer).map {
            HDRToneMapping(transfer: $0, wideGamut: colour.primaries == 9, peakNits: colour.peakNits)
        }
        let count = 1 << picture.depth
        let scale = Double(1 << (picture.depth - 8)), maximum = Double(count - 1)
        let one = Double(1 << Self.fraction)
        // Kr and Kb of the matrix (libheif's and libavif's table); BT.601 when unspecified.
        let (kr, kb): (Double, Double) = switch colour.matrix {
        case 1: (0.2126, 0.0722)
        case 4: (0.30, 0.11)
        case 7: (0.212, 0.087)
        case 9, 10: (0.2627, 0.0593)
        default: (0.299, 0.114)
        }
        let crToRed = 2 * (1 - kr), cbToBlue = 2 * (1 - kb)
        let cbToGreen = -2 * kb * (1 - kb) / (1 - kb - kr), crToGreen = -2 * kr * (1 - kr) / (1 - kb - kr)
        // Each sample in 8-bit levels: luma 0...255, chroma centred on 0.
        func lumaLevel(_ s: Int) -> Double {
            colour.fullRange ? Double(s) * 255 / maximum : (Double(s) - 16 * scale) * 255 / (219 * scale)
        }
        func chromaLevel(_ s: Int) -> Double {
            colour.fullRange ? (Double(s) - 128 * scale) * 255 / maximum : (Double(s) - 128 * scale) * 255 / (224 * scale)
        }
        func table(_ level: (Int) -> Double) -> [Int32] { (0..<count).map { Int32((level($0) * one).rounded()) } }
        if picture.chroma == nil || colour.matrix == 0 {
            // Monochrome, or GBR: no matrix (convert takes green from luma, red from Cr, blue from Cb).
            let direct = table { lumaLevel($0) + 0.5 }
            tables = direct + direct + [Int32](repeating: 0, count: 2 * count) + direct
        } else if picture.depth == 8 && colour.fullRange && toneMapping == nil {
            let r = Int32((256 * crToRed).rounded()), g1 = Int32((256 * cbToGreen).rounded())
            let g2 = Int32((256 * crToGreen).rounded()), b = Int32((256 * cbToBlue).rounded())
            let luma = (0..<256).map { Int32($0) << Self.fraction }
            let red = (0..<256).map { ((r * Int32($0 - 128) + 128) >> 8) << Self.fraction }
            let greenFromCb = (0..<256).map { (g1 * Int32($0 - 128)) << (Self.fraction - 8) }
            let greenFromCr = (0..<256).map { (g2 * Int32($0 - 128) + 128) << (Self.fraction - 8) }
            let blue = (0..<256).map { ((b * Int32($0 - 128) + 128) >> 8) << Self.fraction }
            tables = luma + red + greenFromCb + greenFromCr + blue
        } else {
            tables = table { lumaLevel($0) + 0.5 } + table { crToRed * chromaLevel($0) } + table { cbToGreen * chromaLevel($0) }
                + table { crToGreen * chromaLevel($0) } + table { cbToBlue * chromaLevel($0) }
        }
        let alphaMaximum = (1 << picture.alphaDepth) - 1
        alphaLevels = picture.alpha == nil ? [] : (0...alphaMaximum).map { UInt8((Double($0) * 255 / Double(alphaMaximum)).rounded()) }
    }

    /// Row `y` from column `x` on, as many pixels as `row` holds.
    func convert(row y: Int, from x: Int, into row: UnsafeMutableBufferPointer<UInt32>) {
        if picture.depth == 8 {
            convert(row: y, from: x, into: row, as: UInt8.self)
        } else {
            convert(row: y, from: x, into: row, as: UInt16.self)
        }
    }

    @inline(__always)
    private func convert<Sample: FixedWidthInteger & UnsignedInteger>(row y: Int, from x0: Int, into row: UnsafeMutableBufferPointer<UInt32>, as _: Sample.Type) {
        let count = 1 << picture.depth, limit = count - 1
        let alphaLimit = alphaLevels.count - 1
        @inline(__always) func sample(_ plane: YCbCrPicture.Plane, _ x: Int, _ y: Int) -> Int {
            min(Int(plane.base.load(fromByteOffset: y &* plane.rowBytes &+ x &* MemoryLayout<Sample>.size, as: Sample.self)), limit)
        }
        @inline(__always) func alpha(_ plane: YCbCrPicture.Plane, _ x: Int) -> UInt32 {
            let raw = picture.alphaDepth > 8
                ? Int(plane.base.load(fromByteOffset: y &* plane.rowBytes &+ 2 &* x, as: UInt16.self))
                : Int(plane.base.load(fromByteOffset: y &* plane.rowBytes &+ x, as: UInt8.self))
            return UInt32(alphaLevels[min(raw, alphaLimit)])
        }
        @inline(__always) func level(_ v: Int32) -> UInt32 { UInt32(min(max(v >> Self.fraction, 0), 255)) }
        let signalMaximum = HDRToneMapping.signalSteps - 1
        @inline(__always) func signal(_ v: Int32) -> Int {
            // 8-bit levels with 12 bits of fraction to a step of the 12-bit signal.
            min(max(Int(v) * signalMaximum / (255 << Int(Self.fraction)), 0), signalMaximum)
        }
        let shift = picture.chromaShift, gbr = picture.colour.matrix == 0
        // Unwrapped once, not for each pixel: Swift 6.0 (Debian 13's) copies
        // an optional tuple of planes, or the optional tone mapping, through
        // its type's metadata each time it is unwrapped in the loop
        // (avif_decode_ratio_vs_bare 1.27 there before, 1.05 to 1.09 after).
        let hasChroma = picture.chroma != nil, hasAlpha = picture.alpha != nil, premultiplied = picture.premultiplied
        let cbPlane = picture.chroma?.cb ?? picture.luma, crPlane = picture.chroma?.cr ?? picture.luma, alphaPlane = picture.alpha ?? picture.luma
        let lumaPlane = picture.luma
        // The loop twice over, with and without tone mapping, rather than an optional unwrapped at each pixel.
        @inline(__always) func pixels(_ colour: (Int32, Int32, Int32) -> (UInt32, UInt32, UInt32)) {
            tables.withUnsafeBufferPointer { tables in
                let luma = tables.baseAddress!, redFromCr = luma + count, greenFromCb = redFromCr + count
                let greenFromCr = greenFromCb + count, blueFromCb = greenFromCr + count
                for i in 0..<row.count {
                    let x = x0 &+ i
                    var r: Int32, g: Int32, b: Int32
                    let l = luma[sample(lumaPlane, x, y)]
                    if hasChroma {
                        let cb = sample(cbPlane, x >> shift.x, y >> shift.y), cr = sample(crPlane, x >> shift.x, y >> shift.y)
                        (r, g, b) = gbr
                            ? (redFromCr[cr], l, blueFromCb[cb])
                            : (l &+ redFromCr[cr], l &+ greenFromCb[cb] &+ greenFromCr[cr], l &+ blueFromCb[cb])
                    } else {
                        (r, g, b) = (l, l, l)
                    }
                    let (red, green, blue) = colour(r, g, b)
                    guard hasAlpha else {
                        row[i] = red << 16 | green << 8 | blue
                        continue
                    }
                    let a = alpha(alphaPlane, x)
                    if premultiplied {
                        // The colour already carries its alpha: add the background's share.
                        @inline(__always) func add(_ c: UInt32, _ background: UInt32) -> UInt32 { min(255, c + (background * (255 - a) + 127) / 255) }
                        row[i] = add(red, blend.red) << 16 | add(green, blend.green) << 8 | add(blue, blend.blue)
                    } else {
                        row[i] = blend.over(red, green, blue, alpha: a)
                    }
                }
            }
        }
        if let toneMapping {
            pixels { r, g, b in
                let mapped = toneMapping.map(signal(r), signal(g), signal(b))
                return (UInt32(mapped.0), UInt32(mapped.1), UInt32(mapped.2))
            }
        } else {
            pixels { r, g, b in (level(r), level(g), level(b)) }
        }
    }
}

extension YCbCrPicture {
    /// The whole picture as XRGB by libyuv's SIMD conversion: 8-bit
    /// Y'CbCr 4:2:0, 4:2:2 or 4:4:4 without alpha or an HDR transfer, in
    /// BT.601 (limited or full range), BT.709 or BT.2020 (limited range).
    /// A clip's frames come 30 a second, where the exact converter
    /// (``RowConverter``, which photos keep) costs about ten times as much;
    /// libyuv's fixed point is within a level or two of it. Nil for
    /// anything else.
    ///
    /// `reusing`: an array to write the pixels into when it is the right
    /// size (a clip's frame let go); unless the caller holds the only
    /// reference to it, Swift copies it first, and nothing else changes.
    func convertedBySIMD(reusing reused: consuming [UInt32] = []) -> RasterImage? {
        guard let conversion = simdConversion, let chroma else { return nil }
        var converted: Int32 = -1
        func convert(into pixels: UnsafeMutableBufferPointer<UInt32>) {
            converted = conversion(
                luma.base.assumingMemoryBound(to: UInt8.self), Int32(luma.rowBytes),
                chroma.cb.base.assumingMemoryBound(to: UInt8.self), Int32(chroma.cb.rowBytes),
                chroma.cr.base.assumingMemoryBound(to: UInt8.self), Int32(chroma.cr.rowBytes),
                UnsafeMutableRawPointer(pixels.baseAddress!).assumingMemoryBound(to: UInt8.self), Int32(size.width * 4),
                Int32(size.width), Int32(size.height))
            // libyuv writes an opaque alpha; XRGB's top byte is 0.
            for i in 0..<size.pixelCount { pixels[i] &= 0x00FF_FFFF }
        }
        var pixels = consume reused
        if size.pixelCount > 0 && pixels.count == size.pixelCount {
            pixels.withUnsafeMutableBufferPointer { convert(into: $0) }
        } else {
            pixels = [UInt32](unsafeUninitializedCapacity: size.pixelCount) { pixels, initialized in
                convert(into: pixels)
                initialized = size.pixelCount
            }
        }
        return converted == 0 ? RasterImage(size: size, pixels: pixels) : nil
    }

    typealias SIMDConversion = @convention(c) (
        UnsafePointer<UInt8>?, Int32, UnsafePointer<UInt8>?, Int32, UnsafePointer<UInt8>?, Int32, UnsafeMutablePointer<UInt8>?, Int32, Int32, Int32
    ) -> Int32

    /// libyuv's conversion for the picture's sampling, matrix and range;
    /// nil when ``convertedBySIMD(reusing:)`` cannot convert it.
    var simdConversion: SIMDConversion? {
        guard depth == 8, alpha == nil, chroma != nil, HDRToneMapping.Transfer(cicp: colour.transfer) == nil else { return nil }
        // The conversions for 4:2:0, 4:2:2 and 4:4:4 of one matrix and range.
        let family: [SIMDConversion]? = switch (colour.matrix, colour.fullRange) {
        case (5, false), (6, false): [I420ToARGB, I422ToARGB, I444ToARGB]
        case (5, true), (6, true): [J420ToARGB, J422ToARGB, J444ToARGB]
        case (1, false): [H420ToARGB, H422ToARGB, H444ToARGB]
        case (9, false): [U420ToARGB, U422ToARGB, U444ToARGB]
        default: nil
        }
        let layout: Int? = switch (chromaShift.x, chromaShift.y) {
        case (1, 1): 0
        case (1, 0): 1
        case (0, 0): 2
        default: nil
        }
        guard let family, let layout else { return nil }
        return family[layout]
    }
}
