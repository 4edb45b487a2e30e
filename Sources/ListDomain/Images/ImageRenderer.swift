/// Draws an item's generated image: the item's colour as a background with a vertical gradient, and the item id
/// in large digits of the built-in ``BitmapFont``, centred.
///
/// Integer arithmetic only, so every machine draws the same pixels for the same ``ImageSpec``. Fills are copies of
/// one pixel doubled along a row rather than a store per pixel: the pixels of a 600×400 image cost a small fraction
/// of encoding them (Benchmarks/Micro, "ImageRenderer").
public enum ImageRenderer {
    /// The pixels of `spec`'s image.
    public static func render(_ spec: ImageSpec) -> RGBImage {
        let width = spec.width
        let height = spec.height
        let rowBytes = width * 3
        var pixels = [UInt8](unsafeUninitializedCapacity: rowBytes * height) { buffer, count in
            for row in 0..<height {
                fill(buffer, at: row * rowBytes, pixels: width, with: background(spec.color, row: row, of: height))
            }
            drawID(spec, into: buffer)
            count = rowBytes * height
        }
        if spec.grayscale {
            turnGray(&pixels)
        }
        if spec.blur > 0 {
            boxBlur(&pixels, width: width, height: height, radius: blurRadius(spec))
        }
        return RGBImage(width: width, height: height, pixels: pixels)
    }

    /// A colour as three bytes.
    typealias Color = (red: UInt8, green: UInt8, blue: UInt8)

    /// The colour 0xRRGGBB as three bytes.
    static func components(_ color: UInt32) -> Color {
        (UInt8(truncatingIfNeeded: color >> 16), UInt8(truncatingIfNeeded: color >> 8), UInt8(truncatingIfNeeded: color))
    }

    /// The background of `row`: the item's colour mixed a quarter of the way towards white at the top, the same
    /// towards black at the bottom, in even steps between.
    static func background(_ color: UInt32, row: Int, of height: Int) -> Color {
        // position 0 (top) ... 1024 (bottom); a one-row image is the colour itself.
        let position = height > 1 ? row * 1024 / (height - 1) : 512
        func shade(_ channel: UInt8) -> UInt8 {
            let value = Int(channel)
            if position <= 512 {
                return UInt8(value + (255 - value) * (512 - position) / 2048)
            }
            return UInt8(value - value * (position - 512) / 2048)
        }
        let base = components(color)
        return (shade(base.red), shade(base.green), shade(base.blue))
    }

    /// The colour of the digits: near-black on a light background, white on a dark one (by the background's luma,
    /// ITU-R BT.601 weights).
    static func textColor(on color: UInt32) -> Color {
        let base = components(color)
        let luma = (299 * Int(base.red) + 587 * Int(base.green) + 114 * Int(base.blue)) / 1000
        return luma >= 128 ? (0x1A, 0x1A, 0x1A) : (0xFF, 0xFF, 0xFF)
    }

    /// Where the id is drawn: the size of one font pixel in image pixels and the top-left corner; nil when the
    /// image is too small for even one image pixel per font pixel.
    ///
    /// The digits take at most three quarters of the width and half the height.
    static func textLayout(_ spec: ImageSpec) -> (scale: Int, x: Int, y: Int, digits: [Int])? {
        let digits = BitmapFont.decimalDigits(of: spec.id)
        let columns = BitmapFont.textWidth(digits.count)
        let scale = min(spec.width * 3 / 4 / columns, spec.height / 2 / BitmapFont.glyphHeight)
        guard scale >= 1 else { return nil }
        let x = (spec.width - columns * scale) / 2
        let y = (spec.height - BitmapFont.glyphHeight * scale) / 2
        return (scale, x, y, digits)
    }

    /// Draws the id's digits, one `scale`×`scale` square per set font pixel.
    private static func drawID(_ spec: ImageSpec, into buffer: UnsafeMutableBufferPointer<UInt8>) {
        guard let layout = textLayout(spec) else { return }
        let color = textColor(on: spec.color)
        let rowBytes = spec.width * 3
        for (index, digit) in layout.digits.enumerated() {
            for row in 0..<BitmapFont.glyphHeight {
                for column in 0..<BitmapFont.glyphWidth
                where BitmapFont.isSet(digit: digit, column: column, row: row) {
                    let left = layout.x + (index * BitmapFont.advance + column) * layout.scale
                    let top = layout.y + row * layout.scale
                    for line in top..<(top + layout.scale) {
                        fill(buffer, at: line * rowBytes + left * 3, pixels: layout.scale, with: color)
                    }
                }
            }
        }
    }

    /// Sets `pixels` pixels from byte `start` to `color`: one pixel written, then the filled part copied onto the
    /// rest, doubling each time.
    static func fill(_ buffer: UnsafeMutableBufferPointer<UInt8>, at start: Int, pixels: Int, with color: Color) {
        guard pixels > 0, let base = buffer.baseAddress.map({ $0 + start }) else { return }
        precondition(start >= 0 && start + pixels * 3 <= buffer.count, "fill out of bounds")
        base[0] = color.red
        base[1] = color.green
        base[2] = color.blue
        let total = pixels * 3
        var filled = 3
        while filled < total {
            let chunk = min(filled, total - filled)
            (base + filled).update(from: base, count: chunk)
            filled += chunk
        }
    }
}
