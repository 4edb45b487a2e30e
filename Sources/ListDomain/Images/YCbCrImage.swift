/// An image as a JPEG encoder takes it before its transform: a luma plane at full resolution and two chroma planes
/// at half the width and half the height (4:2:0), one byte a sample, planes one after the other without padding
/// (TurboJPEG's "YUV" layout with rows padded to 1 byte).
///
/// Each plane covers the image rounded up to even sides, as TurboJPEG lays them out for 4:2:0: an odd width or
/// height gets one more column or row of luma, a copy of the last one.
public struct YCbCrImage: Sendable, Equatable {
    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// The luma plane (``lumaWidth`` × ``lumaHeight``), then Cb and Cr (``chromaWidth`` × ``chromaHeight`` each).
    public var planes: [UInt8]

    /// Wraps `planes`, which must hold ``byteCount(width:height:)`` bytes.
    public init(width: Int, height: Int, planes: [UInt8]) {
        precondition(planes.count == Self.byteCount(width: width, height: height), "4:2:0 planes of the wrong size")
        self.width = width
        self.height = height
        self.planes = planes
    }

    /// Columns of the luma plane: the width rounded up to even.
    public var lumaWidth: Int { Self.lumaSide(width) }
    /// Rows of the luma plane: the height rounded up to even.
    public var lumaHeight: Int { Self.lumaSide(height) }
    /// Columns of each chroma plane.
    public var chromaWidth: Int { lumaWidth / 2 }
    /// Rows of each chroma plane.
    public var chromaHeight: Int { lumaHeight / 2 }

    /// A side of the luma plane for an image side of `pixels`: rounded up to even.
    static func lumaSide(_ pixels: Int) -> Int { (pixels + 1) & ~1 }

    /// The bytes of the three planes of a `width`×`height` image.
    public static func byteCount(width: Int, height: Int) -> Int {
        let lumaWidth = lumaSide(width)
        let lumaHeight = lumaSide(height)
        return lumaWidth * lumaHeight + 2 * (lumaWidth / 2) * (lumaHeight / 2)
    }

    /// One pixel's luma and chroma as libjpeg computes them from RGB (`jccolor.c`: the JFIF equations, ITU-R BT.601
    /// full range, in 16-bit fixed point with its rounding): how an item's colour becomes the photo's target.
    struct Sample: Equatable {
        var y: Int
        var cb: Int
        var cr: Int

        init(y: Int, cb: Int, cr: Int) {
            (self.y, self.cb, self.cr) = (y, cb, cr)
        }

        init(_ color: ImageRenderer.Color) {
            let red = Int(color.red)
            let green = Int(color.green)
            let blue = Int(color.blue)
            let half = 1 << 15
            let offset = 128 << 16
            y = (19595 * red + 38470 * green + 7471 * blue + half) >> 16
            cb = (-11059 * red - 21709 * green + 32768 * blue + offset + half - 1) >> 16
            cr = (32768 * red - 27439 * green - 5329 * blue + offset + half - 1) >> 16
        }
    }

}
