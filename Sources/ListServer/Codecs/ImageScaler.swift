import CWebP
import ListDomain

/// Scales an uploaded image to the size a request asks for, with libwebp's picture functions (the library is here
/// for WebP anyway, and its rescaler averages the source pixels under each target pixel, so a photo scaled down
/// does not shimmer the way a nearest-pixel scaler would).
///
/// Scaling covers the target and crops, as Lorem Picsum does: the largest centred part of the source with the
/// target's shape is scaled to exactly `width`×`height`, so nothing is stretched and nothing is padded.
enum ImageScaler {
    /// `image` covering `width`×`height`: cropped around its centre to that shape, then scaled to that size.
    static func covering(_ image: RGBImage, width: Int, height: Int) throws(ImageCodecError) -> RGBImage {
        if image.width == width && image.height == height { return image }
        var picture = WebPPicture()
        guard WebPPictureInit(&picture) != 0 else { throw failure("cannot set up a picture") }
        defer { WebPPictureFree(&picture) }
        // Only the cropped window is imported (its first pixel, and the source's row stride): importing the whole
        // image and cropping the picture held the source twice over in ARGB, 200 MB for 25 megapixels.
        let crop = cropped(width: image.width, height: image.height, toShapeOf: (width, height))
        picture.use_argb = 1
        picture.width = Int32(crop.width)
        picture.height = Int32(crop.height)
        let imported = image.pixels.withUnsafeBufferPointer { pixels in
            WebPPictureImportRGB(
                &picture, pixels.baseAddress! + (crop.top * image.width + crop.left) * 3, Int32(image.width * 3))
        }
        guard imported != 0 else { throw failure("cannot take \(crop.width)x\(crop.height) pixels") }
        guard WebPPictureRescale(&picture, Int32(width), Int32(height)) != 0, let argb = picture.argb else {
            throw failure("cannot scale \(image.width)x\(image.height) to \(width)x\(height)")
        }
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        let stride = Int(picture.argb_stride)
        var offset = 0
        for row in 0..<height {
            for column in 0..<width {
                let value = argb[row * stride + column]  // 0xAARRGGBB
                pixels[offset] = UInt8(truncatingIfNeeded: value >> 16)
                pixels[offset + 1] = UInt8(truncatingIfNeeded: value >> 8)
                pixels[offset + 2] = UInt8(truncatingIfNeeded: value)
                offset += 3
            }
        }
        return RGBImage(width: width, height: height, pixels: pixels)
    }

    /// The largest centred rectangle of a `width`×`height` image with the shape of `target`.
    static func cropped(width: Int, height: Int, toShapeOf target: (width: Int, height: Int))
        -> (left: Int, top: Int, width: Int, height: Int)
    {
        // Compared as products, exactly: is the source wider than the target's shape?
        if width * target.height > target.width * height {
            let croppedWidth = max(1, min(width, (height * target.width + target.height / 2) / target.height))
            return ((width - croppedWidth) / 2, 0, croppedWidth, height)
        }
        let croppedHeight = max(1, min(height, (width * target.height + target.width / 2) / target.width))
        return (0, (height - croppedHeight) / 2, width, croppedHeight)
    }

    private static func failure(_ message: String) -> ImageCodecError {
        ImageCodecError(codec: "libwebp", message: message)
    }
}
