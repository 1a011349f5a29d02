/// Contain-fit ("aspect fit"): the largest size with the source's aspect ratio
/// that fits inside `box`, rounded to whole pixels and never smaller than 1x1.
///
/// Images smaller than the box are scaled up, so every slot shows its picture
/// at the same size: what an operator expects from a row of photos.
public func aspectFitSize(of source: PixelSize, in box: PixelSize) -> PixelSize {
    precondition(source.width > 0 && source.height > 0 && box.width > 0 && box.height > 0)
    // Compare source.w/source.h with box.w/box.h without floating point.
    if source.width * box.height >= box.width * source.height {
        // Wider than the box: full width, height follows (rounded half up).
        let height = (2 * source.height * box.width + source.width) / (2 * source.width)
        return PixelSize(width: box.width, height: max(1, min(box.height, height)))
    } else {
        let width = (2 * source.width * box.height + source.height) / (2 * source.height)
        return PixelSize(width: max(1, min(box.width, width)), height: box.height)
    }
}

/// Where a picture of `size` sits when centred in `box` (offsets from the box's
/// top-left corner; odd remainders put the extra pixel on the right and bottom).
public func centredOffset(of size: PixelSize, in box: PixelSize) -> (x: Int, y: Int) {
    ((box.width - size.width) / 2, (box.height - size.height) / 2)
}

/// Where a picture narrower than its slot sits across it (`align`).
public enum PictureAlignment: String, CaseIterable, Hashable, Sendable {
    /// Centred in its slot: the seed's rule.
    case centre
    /// Toward the screen's centre: a neighbour's picture hugs the side of
    /// its slot nearest the centred one, so a portrait neighbour of a
    /// landscape slot peeks in instead of sitting off screen. The centred
    /// picture stays centred; during a slide each picture moves smoothly
    /// from one side of its slot to the middle (``CarouselGeometry/lean(ofCellAt:width:)``).
    /// The default.
    case inner
}

/// The left edge of a picture `width` wide in a cell `cellWidth` wide
/// (from the cell's left edge) when it leans `lean` toward the screen's
/// centre: -1 against the cell's left edge, 0 centred as
/// ``centredOffset(of:in:)`` puts it, 1 against its right edge; in between
/// the remainder `d = cellWidth - width` is split `(1 + lean) / 2` to the
/// left, rounded down. A picture wider than its cell is centred.
public func alignedOffsetX(of width: Int, in cellWidth: Int, lean: Double) -> Int {
    let remainder = cellWidth - width
    guard remainder > 0, lean != 0 else { return remainder / 2 }
    let clamped = min(1, max(-1, lean))
    return min(remainder, max(0, Int((Double(remainder) * (1 + clamped) / 2).rounded(.down))))
}
