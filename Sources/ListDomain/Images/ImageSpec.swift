/// Everything an item's image depends on: its pixels are a pure function of these values.
///
/// Two requests with equal specs get the same decoded pixels on every machine, so the encoded bytes are cached by
/// spec (and format), whatever catalog version the item came from, and for a generated image whatever dataset (an
/// upload's spec names its dataset). For an uploaded image (``upload``)
/// the pixels are the upload's, scaled to cover `width`×`height` and cropped to it around the centre, then turned
/// grey and blurred as asked.
public struct ImageSpec: Hashable, Sendable {
    /// An uploaded image as a source of pixels: which list's item holds it, and which bytes (by digest).
    public struct Upload: Hashable, Sendable {
        public let list: String
        public let image: StoredImage

        public init(list: String, image: StoredImage) {
            self.list = list
            self.image = image
        }
    }

    /// The widest and tallest image served, in pixels (`?w=` and `?h=` take 1...maxSide).
    public static let maxSide = 5000
    /// The most pixels an image may have (25 megapixels, as Lorem Picsum allows).
    public static let maxPixels = 25_000_000
    /// The blur strengths `?blur=` takes, as Lorem Picsum has them.
    public static let blurRange = 1...10
    /// The blur of a bare `?blur` (no value), as Lorem Picsum has it.
    public static let defaultBlur = 5

    /// The item whose id the image shows.
    public let id: UInt64
    /// Width in pixels, 1...maxSide.
    public let width: Int
    /// Height in pixels, 1...maxSide; `width * height <= maxPixels`.
    public let height: Int
    /// The item's colour as 0xRRGGBB: the background.
    public let color: UInt32
    /// Whether the image is turned to shades of grey.
    public let grayscale: Bool
    /// The blur strength, 0 (none) or one of ``blurRange``.
    public let blur: Int
    /// The uploaded image the pixels come from; nil for the generated image.
    public let upload: Upload?
    /// Whether a JPEG of it is progressive (coarse scans of the whole picture first, refined by the later ones): the
    /// same pixels, another file. Only JPEGs have it (the router asks for it for JPEGs only).
    public let progressive: Bool

    /// Creates a spec; the sizes and the blur must be within the limits (the router checks them and answers a 400
    /// naming the parameter otherwise).
    public init(
        id: UInt64, width: Int, height: Int, color: UInt32, grayscale: Bool = false, blur: Int = 0,
        upload: Upload? = nil, progressive: Bool = false
    ) {
        precondition(Self.allows(width: width, height: height), "image size \(width)x\(height) is out of range")
        precondition(blur == 0 || Self.blurRange.contains(blur), "blur \(blur) is out of range")
        self.id = id
        self.width = width
        self.height = height
        self.color = color & 0xFF_FFFF
        self.grayscale = grayscale
        self.blur = blur
        self.upload = upload
        self.progressive = progressive
    }

    /// Whether `format` asks for the uploaded file exactly as stored: same format and size, no effects. Such an
    /// image is served from the store's bytes without decoding them.
    public func isStoredUpload(as format: ImageFormat) -> Bool {
        guard let image = upload?.image else { return false }
        return format == image.format && width == image.width && height == image.height && !grayscale && blur == 0
            && !progressive
    }

    /// Whether `width`×`height` is a size images may have: each side in 1...maxSide, at most maxPixels.
    public static func allows(width: Int, height: Int) -> Bool {
        (1...maxSide).contains(width) && (1...maxSide).contains(height) && width * height <= maxPixels
    }

    /// The file name an image of this spec is saved as, Lorem Picsum's pattern: `42-600x400.jpg`, with
    /// `-blur_<n>` and `-grayscale` before the extension when they apply.
    public func fileName(_ format: ImageFormat) -> String {
        var name = "\(id)-\(width)x\(height)"
        if blur > 0 { name += "-blur_\(blur)" }
        if grayscale { name += "-grayscale" }
        return name + "." + format.fileExtension
    }

    /// The size of the pixels in RGB, 3 bytes a pixel.
    public var rgbByteCount: Int { width * height * 3 }
}

/// An image as rows of RGB pixels, 3 bytes each, top row first, no padding.
public struct RGBImage: Sendable, Equatable {
    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// `width * height * 3` bytes: red, green, blue of each pixel, row after row.
    public var pixels: [UInt8]

    /// Wraps `pixels`, which must hold `width * height * 3` bytes.
    public init(width: Int, height: Int, pixels: [UInt8]) {
        precondition(pixels.count == width * height * 3, "an RGB image needs 3 bytes a pixel")
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// The pixel at column `x`, row `y`.
    public func pixel(x: Int, y: Int) -> (red: UInt8, green: UInt8, blue: UInt8) {
        let offset = (y * width + x) * 3
        return (pixels[offset], pixels[offset + 1], pixels[offset + 2])
    }
}

extension ImageSpec {
    /// `width`×`height` made smaller, keeping its shape, until it is a size images may have: how an item's own size
    /// (up to 100,000 pixels a side for written items) becomes its default image size. Sizes already allowed stay.
    public static func fitted(width: Int, height: Int) -> (width: Int, height: Int) {
        let width = max(1, width)
        let height = max(1, height)
        if allows(width: width, height: height) { return (width, height) }
        let bySide = Double(maxSide) / Double(max(width, height))
        let byArea = (Double(maxPixels) / (Double(width) * Double(height))).squareRoot()
        let factor = min(1, bySide, byArea)
        var fitted = (width: max(1, Int(Double(width) * factor)), height: max(1, Int(Double(height) * factor)))
        // Rounding can leave it a pixel over a limit: step down the longer side until it fits.
        while !allows(width: fitted.width, height: fitted.height) {
            if fitted.width >= fitted.height { fitted.width -= 1 } else { fitted.height -= 1 }
        }
        return fitted
    }

    /// The other side of a `width`×`height` shape when one side is `given`: `given · other / side`, rounded, at
    /// least 1 (`?w=300` on a 4000×3000 item gives 225).
    public static func proportional(_ given: Int, side: Int, other: Int) -> Int {
        max(1, Int((Double(given) * Double(other) / Double(max(1, side))).rounded()))
    }
}

extension Item {
    /// The colour as 0xRRGGBB (``color`` reads `"#rrggbb"`, either case); 0 if it does not.
    public var rgb: UInt32 {
        let digits = color.utf8.dropFirst()
        guard color.utf8.first == UInt8(ascii: "#"), digits.count == 6 else { return 0 }
        var value: UInt32 = 0
        for byte in digits {
            let nibble: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): nibble = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): nibble = byte - UInt8(ascii: "A") + 10
            default: return 0
            }
            value = value << 4 | UInt32(nibble)
        }
        return value
    }
}
