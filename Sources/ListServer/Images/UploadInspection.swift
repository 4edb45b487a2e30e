package import ListDomain

/// What an uploaded file is, checked as it will be used: its header read, its size within ``ImageSpec``, and the
/// whole file decoded to that size. An image worker runs it for `PUT /items/<id>/image`; the fuzzer runs it on junk.
package enum UploadInspection {
    /// The upload `bytes` make as `format`, or why they make none, on `codecs` (a worker's own).
    package static func inspect(_ bytes: [UInt8], as format: ImageFormat, with codecs: ImageCodecs)
        -> Result<ImageUpload, UploadRejection>
    {
        guard let size = codecs.dimensions(of: bytes, as: format) else {
            return .failure(.unreadable("its \(format.rawValue.uppercased()) header cannot be read"))
        }
        guard ImageSpec.allows(width: size.width, height: size.height) else {
            return .failure(.tooLarge(width: size.width, height: size.height))
        }
        let decoded: RGBImage
        do throws(ImageCodecError) {
            decoded = try codecs.decode(bytes, as: format)
        } catch {
            return .failure(.unreadable(error.description))
        }
        guard decoded.width == size.width, decoded.height == size.height else {
            let declared = "\(size.width)x\(size.height)"
            return .failure(
                .unreadable("its header says \(declared) but it decodes to \(decoded.width)x\(decoded.height)"))
        }
        return .success(
            ImageUpload(
                format: format, width: size.width, height: size.height, digest: ContentDigest.of(bytes),
                bytes: bytes, blurHash: BlurHash.encode(decoded)))
    }
}
