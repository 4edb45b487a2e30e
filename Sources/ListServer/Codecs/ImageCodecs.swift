package import ListDomain

/// The codecs one thread uses: the only way into the Codecs/ room, which alone imports TurboJPEG, libspng and
/// libwebp. Not thread-safe (the JPEG handles are per thread): each image worker owns one, made before the worker
/// starts and handed to it (hence `@unchecked Sendable`: it crosses to that one thread once, and only it uses it).
///
/// No error leaves a codec in a state the next image would meet: TurboJPEG's handles are the only codec state kept
/// between images, and ``JPEGCodec`` replaces one that failed; libspng gets a new context for every image, and
/// libwebp's simple API keeps none.
package final class ImageCodecs: @unchecked Sendable {
    private let jpeg: JPEGCodec

    package init() throws(ImageCodecError) {
        jpeg = try JPEGCodec()
    }

    /// `image` encoded as `format`; a JPEG progressive when asked.
    package func encode(_ image: RGBImage, as format: ImageFormat, progressive: Bool = false) throws(ImageCodecError)
        -> [UInt8]
    {
        switch format {
        case .jpeg: try jpeg.encode(image, progressive: progressive)
        case .png: try PNGCodec.encode(image)
        case .webp: try WebPCodec.encode(image)
        }
    }

    /// `image` as a JPEG file (``ImageRenderer/renderPlanes(_:into:)`` draws such planes).
    func encodeJPEG(_ image: YCbCrImage, progressive: Bool = false) throws(ImageCodecError) -> [UInt8] {
        try jpeg.encode(image, progressive: progressive)
    }

    /// The pixels of an image file of `format`.
    package func decode(_ bytes: [UInt8], as format: ImageFormat) throws(ImageCodecError) -> RGBImage {
        switch format {
        case .jpeg: try jpeg.decode(bytes)
        case .png: try PNGCodec.decode(bytes)
        case .webp: try WebPCodec.decode(bytes)
        }
    }

    /// The width and height an image file of `format` declares in its header, without decoding it; nil when the
    /// bytes are not such a file.
    func dimensions(of bytes: [UInt8], as format: ImageFormat) -> (width: Int, height: Int)? {
        switch format {
        case .jpeg: jpeg.dimensions(of: bytes)
        case .png: PNGCodec.dimensions(of: bytes)
        case .webp: WebPCodec.dimensions(of: bytes)
        }
    }

    /// `image` scaled to cover `width`×`height` and cropped to it around its centre (``ImageScaler``).
    func scaled(_ image: RGBImage, toCover width: Int, _ height: Int) throws(ImageCodecError) -> RGBImage {
        try ImageScaler.covering(image, width: width, height: height)
    }
}
