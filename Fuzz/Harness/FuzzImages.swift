import ListDomain
import ListServer

/// Uploaded image files (`FuzzInput.Entry.image`): the inspection an upload gets (header, size limits, a full decode)
/// on one set of codecs kept from input to input, as an image worker keeps its own.
///
/// Besides "does not crash": a file accepted decodes to the size it declares within ``ImageSpec``, and after every
/// input, accepted or not, a known-good file of each format still decodes on the same codecs: junk that left a
/// decoder in a failed state (TurboJPEG did, until a restart) breaks this check at once.
enum FuzzImages {
    /// The codecs every input goes through, as one image worker's.
    static let codecs: ImageCodecs = {
        do { return try ImageCodecs() } catch { fatalError("the image codecs cannot be set up: \(error)") }
    }()

    /// A small valid file of each format, made by the same codecs.
    static let goodFiles: [(ImageFormat, [UInt8])] = ImageFormat.allCases.map { format in
        var pixels: [UInt8] = []
        for index in 0..<(24 * 16) { pixels += [UInt8(index % 256), UInt8(index * 7 % 256), 99] }
        let image = RGBImage(width: 24, height: 16, pixels: pixels)
        do { return (format, try codecs.encode(image, as: format)) } catch { fatalError("cannot encode \(format)") }
    }

    static func check(_ bytes: [UInt8], as format: ImageFormat) {
        switch UploadInspection.inspect(bytes, as: format, with: codecs) {
        case .success(let upload):
            FuzzCheck.require(
                ImageSpec.allows(width: upload.width, height: upload.height), "an accepted size over the limits")
            FuzzCheck.require(upload.bytes == bytes && upload.format == format, "the upload is not the file")
        case .failure(.busy):
            FuzzCheck.require(false, "busy without a queue")
        case .failure:
            break
        }
        for (format, file) in goodFiles {
            let decoded = try? codecs.decode(file, as: format)
            FuzzCheck.require(decoded?.width == 24 && decoded?.height == 16, "a valid \(format) no longer decodes")
        }
    }
}
