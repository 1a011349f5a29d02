// Regenerates demo/images: numbered cards in different colours and aspect
// ratios (landscape, portrait, square, panorama), so the carousel's layout,
// order and wrap-around are obvious at a glance.
//
//     swift run make-demo-images demo/images
import ImageCodecs
import KioskCore
import KioskRendering

#if canImport(Glibc)
import Glibc
#endif

struct Card {
    let number: Int
    let aspect: (Int, Int)
    let colour: RGBColor
}

// Landscape cards sit next to card 1, so the first frame shows both
// neighbours peeking in (a portrait picture is centred in its slot and, at
// the default 70% slot width, stays off screen as a neighbour).
let cards = [
    Card(number: 1, aspect: (4, 3), colour: RGBColor(hex: "C62828")!),
    Card(number: 2, aspect: (16, 9), colour: RGBColor(hex: "EF6C00")!),
    Card(number: 3, aspect: (3, 4), colour: RGBColor(hex: "2E7D32")!),
    Card(number: 4, aspect: (1, 1), colour: RGBColor(hex: "00838F")!),
    Card(number: 5, aspect: (3, 2), colour: RGBColor(hex: "1565C0")!),
    Card(number: 6, aspect: (2, 3), colour: RGBColor(hex: "6A1B9A")!),
    Card(number: 7, aspect: (9, 16), colour: RGBColor(hex: "AD1457")!),
    Card(number: 8, aspect: (21, 9), colour: RGBColor(hex: "8D6E00")!),
]

/// A 5x7 bitmap font for the characters the cards use.
let glyphs: [Character: [String]] = [
    "0": ["01110", "10001", "10011", "10101", "11001", "10001", "01110"],
    "1": ["00100", "01100", "00100", "00100", "00100", "00100", "01110"],
    "2": ["01110", "10001", "00001", "00010", "00100", "01000", "11111"],
    "3": ["11111", "00010", "00100", "00010", "00001", "10001", "01110"],
    "4": ["00010", "00110", "01010", "10010", "11111", "00010", "00010"],
    "5": ["11111", "10000", "11110", "00001", "00001", "10001", "01110"],
    "6": ["00110", "01000", "10000", "11110", "10001", "10001", "01110"],
    "7": ["11111", "00001", "00010", "00100", "01000", "01000", "01000"],
    "8": ["01110", "10001", "10001", "01110", "10001", "10001", "01110"],
    "9": ["01110", "10001", "10001", "01111", "00001", "00010", "01100"],
    ":": ["00000", "01100", "01100", "00000", "01100", "01100", "00000"],
]

/// Draws `text` centred on `centreX`, top at `top`, each font pixel `scale` px.
func draw(_ text: String, on image: inout RasterImage, centreX: Int, top: Int, scale: Int, colour: RGBColor) {
    let advance = 6 * scale
    var x = centreX - (text.count * advance - scale) / 2
    for character in text {
        for (row, bits) in glyphs[character, default: []].enumerated() {
            for (column, bit) in bits.enumerated() where bit == "1" {
                image.fill(x: x + column * scale, y: top + row * scale, width: scale, height: scale, with: colour)
            }
        }
        x += advance
    }
}

func lighter(_ c: RGBColor, _ amount: Int) -> RGBColor {
    func mix(_ v: UInt8) -> UInt8 { UInt8(Int(v) + (255 - Int(v)) * amount / 100) }
    return RGBColor(red: mix(c.red), green: mix(c.green), blue: mix(c.blue))
}

let folder = CommandLine.arguments.count > 1 ? CommandLine.arguments[1] : "demo/images"
mkdir(folder, 0o755)
let longSide = 1200
for card in cards {
    let (aw, ah) = card.aspect
    let size = aw >= ah
        ? PixelSize(width: longSide, height: longSide * ah / aw)
        : PixelSize(width: longSide * aw / ah, height: longSide)
    var image = RasterImage(size: size, filledWith: lighter(card.colour, 85))
    let border = min(size.width, size.height) / 16
    image.fill(x: border, y: border, width: size.width - 2 * border, height: size.height - 2 * border, with: card.colour)
    let short = min(size.width, size.height)
    let numberScale = short / 14
    let labelScale = max(2, short / 60)
    let blockHeight = 7 * numberScale + 3 * labelScale + 7 * labelScale
    let top = (size.height - blockHeight) / 2
    let white = RGBColor(red: 255, green: 255, blue: 255)
    draw("\(card.number)", on: &image, centreX: size.width / 2, top: top, scale: numberScale, colour: white)
    draw("\(aw):\(ah)", on: &image, centreX: size.width / 2, top: top + 7 * numberScale + 3 * labelScale,
         scale: labelScale, colour: lighter(card.colour, 60))
    let path = "\(folder)/0\(card.number).jpg"
    do {
        try writeWholeFile(path, bytes: try JPEGCodec.encode(image, quality: 88))
        print("wrote \(path) (\(size))")
    } catch {
        print("make-demo-images: \(error)")
        exit(1)
    }
}

// demo/animated.gif, beside the folder: four frames, a second each, for
// ever, counting 1 to 4 on four colours (the VM's animated-picture scenario).
let palette = cards.prefix(4).map(\.colour) + [RGBColor(red: 255, green: 255, blue: 255)]
let gifSize = PixelSize(width: 320, height: 240)
let gifFrames = (0..<4).map { n -> GIFCodec.Frame in
    var frame = RasterImage(size: gifSize, filledWith: palette[n])
    draw("\(n + 1)", on: &frame, centreX: gifSize.width / 2, top: 50, scale: 20, colour: palette[4])
    return GIFCodec.Frame(indices: frame.pixels.map { pixel in UInt8(pixel == palette[4].xrgb ? 4 : n) }, delay: 100)
}
let parent = folder.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
let gifPath = parent.isEmpty ? "animated.gif" : parent + "/animated.gif"
do {
    try writeWholeFile(gifPath, bytes: GIFCodec.encode(width: gifSize.width, height: gifSize.height, palette: palette, frames: gifFrames, loops: 0))
    print("wrote \(gifPath) (\(gifSize), 4 frames)")
} catch {
    print("make-demo-images: \(error)")
    exit(1)
}
