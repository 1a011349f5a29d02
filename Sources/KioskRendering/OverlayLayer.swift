import KioskCore

/// A small picture drawn over the frame: text, with its outline, shadow or
/// band. Pixels are premultiplied ARGB (`0xAARRGGBB`, each colour already
/// multiplied by its alpha), so blending is one multiply-add per channel.
///
/// A layer is made (shaped and rasterised) once per change, on a worker,
/// already turned for the panel; each frame only blends it in
/// (``StripCompositor``'s overlays).
public struct OverlayLayer: Sendable, Equatable {
    /// The layer's size as the viewer sees it, upright.
    public let size: PixelSize
    /// How its pixels are stored: turned like the panel, so the compositor
    /// blends panel rows straight from them.
    public let rotation: Rotation
    /// `rotation.logicalSize(of:)`-turned rows of premultiplied ARGB.
    public let pixels: [UInt32]
    /// Each stored row's columns from its first pixel that is not fully
    /// transparent to its last (empty for a clear row): only those are
    /// blended, and a row with none leaves the frame's row as composed.
    let inkColumns: [Range<Int>]

    /// A layer from upright pixels, turned for a panel turned by `rotation`.
    public init(upright pixels: [UInt32], size: PixelSize, turnedBy rotation: Rotation = .none) {
        precondition(pixels.count == size.pixelCount, "pixel count does not match \(size)")
        self.size = size
        self.rotation = rotation
        let stored = rotation == .none ? pixels : Self.turn(pixels, size: size, by: rotation)
        self.pixels = stored
        let width = rotation.logicalSize(of: size).width
        inkColumns = stride(from: 0, to: stored.count, by: max(width, 1)).map { start in
            let row = stored[start..<(start + width)]
            guard let first = row.firstIndex(where: { $0 >> 24 != 0 }), let last = row.lastIndex(where: { $0 >> 24 != 0 }) else { return 0..<0 }
            return (first - start)..<(last - start + 1)
        }
    }

    /// The stored size: the upright size turned like the panel.
    public var storedSize: PixelSize { rotation.logicalSize(of: size) }

    /// Upright pixels turned onto a panel turned by `rotation` (the panel's
    /// pixel (px, py) is the screen's point ``Rotation/panelPoint(ofScreenX:y:screen:)`` maps to it).
    static func turn(_ pixels: [UInt32], size: PixelSize, by rotation: Rotation) -> [UInt32] {
        let stored = rotation.logicalSize(of: size)
        var turned = [UInt32](repeating: 0, count: pixels.count)
        for y in 0..<size.height {
            for x in 0..<size.width {
                let at = rotation.panelPoint(ofScreenX: x, y: y, screen: size)
                turned[at.y * stored.width + at.x] = pixels[y * size.width + x]
            }
        }
        return turned
    }

    /// Blends `count` pixels of `source` (premultiplied ARGB) over `target`
    /// (XRGB): target = source + target × (255 − alpha) / 255.
    @inline(__always)
    public static func blend(_ source: UnsafePointer<UInt32>, count: Int, over target: UnsafeMutablePointer<UInt32>) {
        for i in 0..<count {
            let pixel = source[i]
            let alpha = pixel >> 24
            if alpha == 0 { continue }
            if alpha == 255 { target[i] = pixel & 0xFF_FFFF; continue }
            let keep = 255 - alpha
            let under = target[i]
            var redBlue = (under & 0xFF_00FF) &* keep &+ 0x80_0080
            redBlue = ((redBlue &+ ((redBlue >> 8) & 0xFF_00FF)) >> 8) & 0xFF_00FF
            var green = (under & 0x00_FF00) &* keep &+ 0x00_8000
            green = ((green &+ ((green >> 8) & 0x00_FF00)) >> 8) & 0x00_FF00
            target[i] = (pixel & 0xFF_FFFF) &+ redBlue &+ green
        }
    }
}

/// A layer placed on the screen (upright coordinates, its top-left corner),
/// shown only inside `clip`: a caption is clipped to its picture's slot, so
/// a neighbour's caption shows only where the neighbour does.
public struct PlacedOverlay: Sendable, Equatable {
    public let layer: OverlayLayer
    public let x: Int
    public let y: Int
    public let clip: PixelRect?

    public init(_ layer: OverlayLayer, x: Int, y: Int, clip: PixelRect? = nil) {
        self.layer = layer
        self.x = x
        self.y = y
        self.clip = clip
    }

    /// The screen rectangle it covers, clipped to `clip` and to the screen; nil when nothing of it shows.
    func visibleRect(onScreen screen: PixelSize) -> PixelRect? {
        var x0 = max(0, x), y0 = max(0, y)
        var x1 = min(screen.width, x + layer.size.width), y1 = min(screen.height, y + layer.size.height)
        if let clip {
            x0 = max(x0, clip.x); y0 = max(y0, clip.y)
            x1 = min(x1, clip.x + clip.width); y1 = min(y1, clip.y + clip.height)
        }
        return x0 < x1 && y0 < y1 ? PixelRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0) : nil
    }
}
