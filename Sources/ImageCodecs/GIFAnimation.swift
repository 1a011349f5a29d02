import KioskCore
import KioskRendering

/// A GIF played frame by frame from its file, each frame composed as
/// browsers compose it (the file's disposal methods, transparency onto what
/// was there, the kiosk's background where nothing was) and contain-fitted
/// to the slot.
///
/// Memory stays at the slot's size, whatever the GIF's: a GIF larger than
/// its slot is composed straight into a canvas of the fitted size, each
/// canvas pixel the average of the screen pixels it covers (a box filter:
/// transparent pixels leave their share of the old colour). Only the
/// bytes being read, one row of indices (the whole image for an interlaced
/// one) and the canvas are held; a 500-frame 4K GIF costs one 4K row, not
/// 500 4K frames. A GIF smaller than its slot is composed at its own size
/// and scaled up per frame by the tent ``resample(_:to:)`` used for every picture.
///
/// After the last image the file is read again from its start, so frames
/// are numbered across plays: ``nextFrame`` n is the file's image n mod count.
public final class GIFAnimation {
    public let path: String
    /// The logical screen, from the header.
    public let screen: PixelSize
    /// The size of each frame returned: the screen fitted to the slot.
    public let size: PixelSize
    /// The number of the frame ``decodeNext()`` returns next, counted across plays.
    public private(set) var nextFrame = 0
    private let reader: GIFReader
    private var canvas: GIFCanvas
    /// The last image drawn, to dispose of before the next.
    private var lastImage: GIFImage?
    /// The canvas before an image that asked for it back (disposal 3).
    private var saved: [UInt32]?
    private var imagesThisPlay = 0

    /// Opens the file at `path`, to show it fitted to `slot`.
    /// `maximumPixels` bounds the logical screen (the time a frame takes,
    /// not memory); `maximumFileBytes` the file, as for every picture.
    public convenience init(
        path: String, background: RGBColor, fittedTo slot: PixelSize, maximumPixels: Int, maximumFileBytes: Int
    ) throws(ImageFileError) {
        try self.init(input: GIFFile(path, limit: maximumFileBytes), path: path, background: background, fittedTo: slot, maximumPixels: maximumPixels)
    }

    /// Plays a GIF already in memory; `slot` nil keeps the logical screen's size.
    public convenience init(
        bytes: [UInt8], path: String, background: RGBColor, fittedTo slot: PixelSize?, maximumPixels: Int
    ) throws(ImageFileError) {
        try self.init(input: GIFBytes(bytes), path: path, background: background, fittedTo: slot, maximumPixels: maximumPixels)
    }

    private init(input: any GIFInput, path: String, background: RGBColor, fittedTo slot: PixelSize?, maximumPixels: Int) throws(ImageFileError) {
        self.path = path
        reader = try GIFReader(input, path: path)
        let screen = reader.screen
        // Refused before a row is decoded: a small file can claim a huge screen.
        guard screen.pixelCount <= maximumPixels else { throw ImageFileError(path: path, reason: .tooLarge(screen)) }
        let size = slot.map { aspectFitSize(of: screen, in: $0) } ?? screen
        self.screen = screen
        self.size = size
        let canvasSize = PixelSize(width: min(size.width, screen.width), height: min(size.height, screen.height))
        canvas = GIFCanvas(screen: screen, size: canvasSize, background: background)
    }

    /// Composes the next frame and returns it fitted to ``size``.
    public func decodeNext() throws(ImageFileError) -> RasterImage {
        try advance()
        let composed = RasterImage(size: canvas.size, pixels: canvas.pixels)
        return composed.size == size ? composed : resample(composed, to: size)
    }

    /// Composes the next frame without returning it (catching up to a frame).
    public func advance() throws(ImageFileError) {
        if let last = lastImage {
            switch last.disposal {
            case .keep: break
            case .background: canvas.clear(left: last.left, top: last.top, width: last.width, height: last.height)
            case .previous: if let saved { canvas.pixels = saved }
            }
            lastImage = nil
            saved = nil
        }
        var next = try reader.nextImage()
        if next == nil {
            // The end of one play: the next starts on an empty screen.
            guard imagesThisPlay > 0 else { throw ImageFileError(path: path, reason: .corrupt("the GIF has no image")) }
            try reader.rewind()
            canvas.clear()
            imagesThisPlay = 0
            next = try reader.nextImage()
        }
        guard let image = next else { throw ImageFileError(path: path, reason: .corrupt("the GIF has no image")) }
        if image.disposal == .previous { saved = canvas.pixels }
        try canvas.paint(image, from: reader)
        lastImage = image
        imagesThisPlay += 1
        nextFrame += 1
    }

    /// The frames' delays and the loop count, read without decoding a pixel.
    /// A file broken after its first image gives the images up to the break.
    /// A file without a NETSCAPE2.0 loop count plays once; a count of 0
    /// plays for ever; a count of n plays n + 1 times (browsers' reading).
    public static func schedule(ofFile path: String, maximumFileBytes: Int) throws(ImageFileError) -> FrameSchedule {
        try schedule(GIFReader(GIFFile(path, limit: maximumFileBytes), path: path))
    }

    public static func schedule(of bytes: [UInt8], path: String) throws(ImageFileError) -> FrameSchedule {
        try schedule(GIFReader(GIFBytes(bytes), path: path))
    }

    private static func schedule(_ reader: GIFReader) throws(ImageFileError) -> FrameSchedule {
        var delays: [Double] = []
        do {
            while let image = try reader.nextImage() {
                delays.append(Double(image.delay) / 100)
                try reader.skipRows()
            }
        } catch {
            // Broken after an image: it plays up to there (the broken frame then stops it, with a line in the log).
            guard !delays.isEmpty else { throw error }
        }
        guard !delays.isEmpty else { throw ImageFileError(path: reader.path, reason: .corrupt("the GIF has no image")) }
        let plays = reader.loopCount.map { $0 == 0 ? nil : $0 + 1 } ?? 1
        return FrameSchedule(delays: delays, plays: plays)
    }
}

/// The logical screen of a GIF being played, kept at `size` (at most the
/// screen's): each canvas pixel covers a box of screen pixels (screen
/// column x falls in canvas column x * width / screen width; rows alike).
/// At the screen's own size every box is one pixel and painting is exact.
struct GIFCanvas {
    let screen: PixelSize
    let size: PixelSize
    let background: UInt32
    var pixels: [UInt32]
    private let columnOf: [Int32], columnWidth: [Int32], rowOf: [Int32], rowHeight: [Int32]
    /// Sums of blue, green, red and opaque pixels per canvas column, for
    /// the canvas row being painted. 32 bits hold any box: a GIF is at
    /// most 16 Mpx (`maximumGIFPixels`), and 255 times that fits.
    private var sums: [SIMD4<UInt32>]
    private var sumsRow = -1
    private var sumsColumns = 0..<0

    /// A row value that leaves the canvas as it is (a transparent index).
    static let transparent: UInt32 = 0xFF00_0000

    init(screen: PixelSize, size: PixelSize, background: RGBColor) {
        precondition(size.width <= screen.width && size.height <= screen.height)
        self.screen = screen
        self.size = size
        self.background = background.xrgb
        pixels = [UInt32](repeating: background.xrgb, count: size.pixelCount)
        func boxes(_ from: Int, _ to: Int) -> (of: [Int32], extent: [Int32]) {
            let of = (0..<from).map { Int32($0 * to / from) }
            var extent = [Int32](repeating: 0, count: to)
            for box in of { extent[Int(box)] += 1 }
            return (of, extent)
        }
        (columnOf, columnWidth) = boxes(screen.width, size.width)
        (rowOf, rowHeight) = boxes(screen.height, size.height)
        sums = [SIMD4<UInt32>](repeating: .zero, count: size.width)
    }

    /// The whole screen back to the background (a new play).
    mutating func clear() {
        pixels.withUnsafeMutableBufferPointer { $0.update(repeating: background) }
    }

    /// A rectangle of the screen back to the background (disposal 2).
    mutating func clear(left: Int, top: Int, width: Int, height: Int) {
        let row = [UInt32](repeating: background, count: width)
        row.withUnsafeBufferPointer { row in
            for y in 0..<height { add(row: top + y, values: row, left: left) }
        }
        flush()
    }

    /// Reads `image`'s pixels and paints them: transparent indices (and
    /// indices past the colour table) leave what is there.
    mutating func paint(_ image: GIFImage, from reader: GIFReader) throws(ImageFileError) {
        // Every byte an index can be: the transparent one and those past the table leave the canvas.
        var table = [UInt32](repeating: Self.transparent, count: 256)
        for (index, colour) in image.colours.prefix(256).enumerated() where index != image.transparent { table[index] = colour }
        var values = [UInt32](repeating: Self.transparent, count: image.width)
        try reader.readRows(of: image) { y, indices in
            values.withUnsafeMutableBufferPointer { values in
                table.withUnsafeBufferPointer { table in
                    for x in 0..<image.width { values[x] = table[Int(indices[x])] }
                }
                add(row: image.top + y, values: UnsafeBufferPointer(values), left: image.left)
            }
        }
        flush()
    }

    /// Adds one screen row's values, starting at screen column `left`
    /// (clipped to the screen), to its canvas row's sums. Rows come top to
    /// bottom; a canvas row is written when the rows move past it.
    private mutating func add(row y: Int, values: UnsafeBufferPointer<UInt32>, left: Int) {
        guard y >= 0, y < screen.height else { return }
        let x0 = max(0, left), x1 = min(screen.width, left + values.count)
        guard x0 < x1 else { return }
        let canvasRow = Int(rowOf[y])
        if canvasRow != sumsRow { flush() }
        sumsRow = canvasRow
        let first = Int(columnOf[x0]), last = Int(columnOf[x1 - 1])
        sumsColumns = sumsColumns.isEmpty ? first..<(last + 1) : min(first, sumsColumns.lowerBound)..<max(last + 1, sumsColumns.upperBound)
        let one = SIMD4<UInt32>(0, 0, 0, 1)
        sums.withUnsafeMutableBufferPointer { sums in
            columnOf.withUnsafeBufferPointer { columnOf in
                for x in x0..<x1 {
                    let value = values[x &- left]
                    guard value & Self.transparent == 0 else { continue }
                    // XRGB8888's bytes in memory: blue, green, red, 0.
                    sums[Int(columnOf[x])] &+= SIMD4(truncatingIfNeeded: unsafeBitCast(value, to: SIMD4<UInt8>.self)) &+ one
                }
            }
        }
    }

    /// Writes the canvas row being summed: each pixel becomes the average of
    /// its box, its opaque pixels' colours and the old colour for the rest.
    private mutating func flush() {
        guard sumsRow >= 0 else { return }
        let height = UInt32(rowHeight[sumsRow])
        let base = sumsRow * size.width
        for c in sumsColumns {
            let sum = sums[c]
            let opaque = sum[3]
            guard opaque > 0 else { continue }
            sums[c] = .zero
            let area = UInt32(columnWidth[c]) * height, rest = area - opaque
            let old = pixels[base + c]
            // (old * rest + sum + area / 2) / area in each channel. Each is a
            // whole number below 2^53, so the division in Double rounds to
            // the true quotient, and its whole part is the integer division's
            // (which, in 64 bits, took a third of the GIF's time).
            let a = Double(area), r = Double(rest), half = Double(area / 2)
            func channel(_ lane: Int, _ shift: UInt32) -> UInt32 {
                UInt32(((Double(old >> shift & 0xFF) * r + Double(sum[lane]) + half) / a).rounded(.down)) << shift
            }
            pixels[base + c] = channel(2, 16) | channel(1, 8) | channel(0, 0)
        }
        sumsRow = -1
        sumsColumns = 0..<0
    }
}
