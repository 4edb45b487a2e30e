/// Draws an item's generated image: a photo of a landscape (``PhotoScene``) whose average is the item's colour,
/// with the item's id small in the bottom-left corner, white digits of the built-in ``BitmapFont`` on a dark plate
/// (so a screenshot still tells rows apart).
///
/// The photo is drawn as a JPEG encoder's 4:2:0 planes (``renderPlanes(_:into:)``): luma at full resolution with
/// all the texture (what JPEG spends its bytes on, as for a camera's photo), chroma a sample per 2×2 pixels. A JPEG
/// is encoded from those planes as they are (TurboJPEG's colour conversion skipped); PNG, WebP and blurred images
/// take their RGB pixels (``render(_:into:)``), converted from the same planes as a JPEG decoder does. Integer
/// arithmetic only: every machine draws the same pixels for the same ``ImageSpec``.
public enum ImageRenderer {
    /// The pixels of `spec`'s image.
    public static func render(_ spec: ImageSpec) -> RGBImage {
        var pixels: [UInt8] = []
        render(spec, into: &pixels)
        return RGBImage(width: spec.width, height: spec.height, pixels: pixels)
    }

    /// Draws `spec`'s image into `pixels`, which become its `width * height * 3` bytes: the planes' pixels, then
    /// the blur. Storage of the right size (an image worker's frame from its last image of that size) is drawn
    /// over as it is, every byte of it.
    public static func render(_ spec: ImageSpec, into pixels: inout [UInt8]) {
        renderPlanes(spec).rgb(into: &pixels)  // the planes leave the blur out
        if spec.blur > 0 {
            boxBlur(&pixels, width: spec.width, height: spec.height, radius: blurRadius(spec))
        }
    }

    /// `spec`'s grayscale and blur on pixels of its size: all that is done to an uploaded image after scaling.
    public static func applyEffects(of spec: ImageSpec, to pixels: inout [UInt8]) {
        if spec.grayscale {
            turnGray(&pixels)
        }
        if spec.blur > 0 {
            boxBlur(&pixels, width: spec.width, height: spec.height, radius: blurRadius(spec))
        }
    }

    /// A colour as three bytes.
    typealias Color = (red: UInt8, green: UInt8, blue: UInt8)

    /// The colour 0xRRGGBB as three bytes.
    static func components(_ color: UInt32) -> Color {
        (
            UInt8(truncatingIfNeeded: color >> 16), UInt8(truncatingIfNeeded: color >> 8),
            UInt8(truncatingIfNeeded: color)
        )
    }

    /// The luma of the id's plate and of its digits.
    static let plateLuma: UInt8 = 24
    static let inkLuma: UInt8 = 235

    /// Where the id is drawn: the size of one font pixel in image pixels, the top-left corner of the first digit,
    /// and the digits; nil when the image is too small for the plate.
    ///
    /// A font pixel is a hundredth of the shorter side (at least one image pixel): 4 pixels, digits 28 tall, on a
    /// 600×400 photo. The plate reaches a font pixel past the digits on every side, two font pixels (or one more
    /// image pixel) from the corner.
    static func textLayout(_ spec: ImageSpec) -> (scale: Int, x: Int, y: Int, digits: [Int])? {
        let digits = BitmapFont.decimalDigits(of: spec.id)
        let scale = max(1, min(spec.width, spec.height) / 100)
        let plate = (
            width: (BitmapFont.textWidth(digits.count) + 2) * scale, height: (BitmapFont.glyphHeight + 2) * scale
        )
        guard plate.width + 4 * scale <= spec.width, plate.height + 4 * scale <= spec.height else { return nil }
        // The plate's top row even, so that no 2×2 chroma block is half plate, half photo: its colour on the
        // plate's dark edge would show as a coloured line.
        let plateTop = (spec.height - 2 * scale - plate.height) & ~1
        return (scale, 3 * scale, plateTop + scale, digits)
    }

    /// The plate behind the digits, in pixels: columns and rows.
    static func plate(_ layout: (scale: Int, x: Int, y: Int, digits: [Int])) -> (x: Range<Int>, y: Range<Int>) {
        let width = BitmapFont.textWidth(layout.digits.count) * layout.scale
        let height = BitmapFont.glyphHeight * layout.scale
        return (
            (layout.x - layout.scale)..<(layout.x + width + layout.scale),
            (layout.y - layout.scale)..<(layout.y + height + layout.scale)
        )
    }
}
