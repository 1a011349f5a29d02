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
