import CWebP
import ListDomain

/// WebP through libwebp's simple API: lossy, quality 80.
enum WebPCodec {
    /// The quality factor, 0...100.
    static let quality: Float = 80

    /// `image` as a WebP file.
    static func encode(_ image: RGBImage) throws(ImageCodecError) -> [UInt8] {
        var output: UnsafeMutablePointer<UInt8>?
        let size = image.pixels.withUnsafeBufferPointer { pixels in
            WebPEncodeRGB(
                pixels.baseAddress, Int32(image.width), Int32(image.height), Int32(image.width * 3), quality, &output)
        }
        defer { WebPFree(output) }
        guard size > 0, let output else {
            throw ImageCodecError(codec: "libwebp", message: "cannot encode \(image.width)x\(image.height) pixels")
        }
        return Array(UnsafeBufferPointer(start: output, count: size))
    }

    /// The width and height a WebP file declares, read from its header; nil when `bytes` is not a WebP file.
    static func dimensions(of bytes: [UInt8]) -> (width: Int, height: Int)? {
        var width: Int32 = 0
        var height: Int32 = 0
        let ok = bytes.withUnsafeBufferPointer { WebPGetInfo($0.baseAddress, $0.count, &width, &height) }
        return ok != 0 ? (Int(width), Int(height)) : nil
    }

    /// The pixels of a WebP file, as RGB.
    static func decode(_ bytes: [UInt8]) throws(ImageCodecError) -> RGBImage {
        var width: Int32 = 0
        var height: Int32 = 0
        let decoded = bytes.withUnsafeBufferPointer { WebPDecodeRGB($0.baseAddress, $0.count, &width, &height) }
        defer { WebPFree(decoded) }
        guard let decoded else { throw ImageCodecError(codec: "libwebp", message: "cannot decode the file") }
        let count = Int(width) * Int(height) * 3
        return RGBImage(
            width: Int(width), height: Int(height), pixels: Array(UnsafeBufferPointer(start: decoded, count: count)))
    }
}
