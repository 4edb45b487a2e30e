import CSpng
import Glibc
import ListDomain

/// PNG through libspng: 8-bit truecolour, zlib's default compression, each row filtered by `Sub` or `Up`, whichever
/// libspng's heuristic prefers.
///
/// Not all five filters: trying `Average` and `Paeth` on every row too made a 5000x5000 generated image 3x slower to
/// encode (2.0-2.2 s against 0.6-0.7 s of CPU, a C probe over the server's own pixels with libspng 0.7.3) for files
/// 0-2 % smaller (86,182 against 87,640 bytes; blurred, 425,562 against 420,799, larger), measured on the gradients
/// generated images were before issue 35's photos (not measured again on the photos).
enum PNGCodec {
    /// `image` as a PNG file.
    static func encode(_ image: RGBImage) throws(ImageCodecError) -> [UInt8] {
        guard let context = spng_ctx_new(Int32(SPNG_CTX_ENCODER.rawValue)) else {
            throw ImageCodecError(codec: "libspng", message: "cannot create an encoder")
        }
        defer { spng_ctx_free(context) }
        try check(spng_set_option(context, SPNG_ENCODE_TO_BUFFER, 1))
        try check(
            spng_set_option(
                context, SPNG_FILTER_CHOICE, Int32(SPNG_FILTER_CHOICE_SUB.rawValue | SPNG_FILTER_CHOICE_UP.rawValue)))
        var header = spng_ihdr(
            width: UInt32(image.width), height: UInt32(image.height), bit_depth: 8,
            color_type: UInt8(SPNG_COLOR_TYPE_TRUECOLOR.rawValue), compression_method: 0, filter_method: 0,
            interlace_method: 0)
        try check(spng_set_ihdr(context, &header))
        try check(
            image.pixels.withUnsafeBytes { pixels in
                spng_encode_image(
                    context, pixels.baseAddress, pixels.count, Int32(SPNG_FMT_PNG.rawValue),
                    Int32(SPNG_ENCODE_FINALIZE.rawValue))
            })
        var size = 0
        var status: Int32 = 0
        guard let buffer = spng_get_png_buffer(context, &size, &status) else { throw failure(status) }
        defer { free(buffer) }
        return Array(UnsafeRawBufferPointer(start: buffer, count: size))
    }

    /// The width and height a PNG file declares (its IHDR chunk), read without decoding; nil when `bytes` does not
    /// start like a PNG file.
    static func dimensions(of bytes: [UInt8]) -> (width: Int, height: Int)? {
        guard let context = spng_ctx_new(0) else { return nil }
        defer { spng_ctx_free(context) }
        var header = spng_ihdr()
        return bytes.withUnsafeBytes { buffer in
            guard spng_set_png_buffer(context, buffer.baseAddress, buffer.count) == 0,
                spng_get_ihdr(context, &header) == 0
            else { return nil }
            return (Int(header.width), Int(header.height))
        }
    }

    /// The most bytes one chunk may have, and all ancillary chunks together (text, ICC profiles) that libspng keeps:
    /// a file's pixels are bounded by its checked size, these by what a decoder has no use for.
    static let chunkLimit = 1 << 20
    static let chunkCacheLimit = 8 << 20

    /// The pixels of a PNG file, as 8-bit RGB (other depths and colour types converted, transparency dropped).
    /// Sides over ``ImageSpec/maxSide`` are refused from the header; a chunk of more than ``chunkLimit`` bytes, or
    /// a damaged one (libspng checks every CRC), as the decoder meets it.
    static func decode(_ bytes: [UInt8]) throws(ImageCodecError) -> RGBImage {
        guard let context = spng_ctx_new(0) else {
            throw ImageCodecError(codec: "libspng", message: "cannot create a decoder")
        }
        defer { spng_ctx_free(context) }
        let result = bytes.withUnsafeBytes { buffer in
            Result { () throws(ImageCodecError) -> RGBImage in
                let side = UInt32(ImageSpec.maxSide)
                try check(spng_set_image_limits(context, side, side))
                try check(spng_set_chunk_limits(context, chunkLimit, chunkCacheLimit))
                try check(spng_set_png_buffer(context, buffer.baseAddress, buffer.count))
                var header = spng_ihdr()
                try check(spng_get_ihdr(context, &header))
                let format = Int32(SPNG_FMT_RGB8.rawValue)
                var size = 0
                try check(spng_decoded_image_size(context, format, &size))
                var pixels = [UInt8](repeating: 0, count: size)
                try check(
                    pixels.withUnsafeMutableBytes { spng_decode_image(context, $0.baseAddress, $0.count, format, 0) })
                return RGBImage(width: Int(header.width), height: Int(header.height), pixels: pixels)
            }
        }
        return try result.get()
    }

    private static func check(_ status: Int32) throws(ImageCodecError) {
        guard status == 0 else { throw failure(status) }
    }

    private static func failure(_ status: Int32) -> ImageCodecError {
        ImageCodecError(codec: "libspng", message: String(cString: spng_strerror(status)))
    }
}
