import CTurboJPEG
import Glibc
import ListDomain

/// JPEG through libjpeg-turbo's TurboJPEG API: baseline (or progressive when asked), quality 85, 4:2:0 chroma
/// subsampling (what photo sites serve).
///
/// A TurboJPEG handle must not be used by two threads at once, and making one allocates libjpeg's state, so each
/// image worker keeps one codec for its whole life (``ImageCodecs``).
///
/// A handle that met an error is replaced before it is used again. libjpeg-turbo 2.1 leaves a decompressor that
/// failed on a file (junk after the JPEG magic bytes: "Unsupported marker type 0x3c") in a state where every later
/// file fails the same way; one broken upload made its worker refuse every valid JPEG, and fail every resize of a
/// stored one, until a restart. Making a handle costs microseconds; an error is rare, and a new handle is the one
/// state TurboJPEG documents as clean.
final class JPEGCodec {
    /// The quality factor, 1...100.
    static let quality: Int32 = 85

    private var compressor: tjhandle
    /// A second compressor for progressive files, made on the first. libjpeg-turbo 2.1 leaves a handle that made a
    /// progressive file in a state where its next baseline files are damaged ("Corrupt JPEG data: bad Huffman
    /// code" when decoded: a test that asked for both on one worker found it), so one handle makes only the one kind.
    private var progressiveCompressor: tjhandle?
    private var decompressor: tjhandle?

    init() throws(ImageCodecError) {
        guard let compressor = tjInitCompress() else {
            throw ImageCodecError(codec: "TurboJPEG", message: String(cString: tjGetErrorStr2(nil)))
        }
        self.compressor = compressor
    }

    deinit {
        tjDestroy(compressor)
        if let progressiveCompressor { tjDestroy(progressiveCompressor) }
        if let decompressor { tjDestroy(decompressor) }
    }

    /// TurboJPEG's flags for a progressive file or a baseline one.
    private static func flags(progressive: Bool) -> Int32 {
        progressive ? TJFLAG_PROGRESSIVE : 0
    }

    /// The handle that makes files of the kind asked for.
    private func compressorHandle(progressive: Bool) throws(ImageCodecError) -> tjhandle {
        guard progressive else { return compressor }
        if let progressiveCompressor { return progressiveCompressor }
        guard let made = tjInitCompress() else {
            throw ImageCodecError(codec: "TurboJPEG", message: String(cString: tjGetErrorStr2(nil)))
        }
        progressiveCompressor = made
        return made
    }

    /// `image` as a JPEG file, progressive or baseline.
    func encode(_ image: RGBImage, progressive: Bool = false) throws(ImageCodecError) -> [UInt8] {
        var output: UnsafeMutablePointer<UInt8>?
        var size: UInt = 0
        let handle = try compressorHandle(progressive: progressive)
        let status = image.pixels.withUnsafeBufferPointer { pixels in
            tjCompress2(
                handle, pixels.baseAddress, Int32(image.width), 0, Int32(image.height), Int32(TJPF_RGB.rawValue),
                &output, &size, Int32(TJSAMP_420.rawValue), Self.quality, Self.flags(progressive: progressive))
        }
        defer { tjFree(output) }
        guard status == 0, let output else { throw compressionFailed(progressive: progressive) }
        return Array(UnsafeBufferPointer(start: output, count: Int(size)))
    }

    /// `image` as a JPEG file, from its 4:2:0 planes: no colour conversion or chroma averaging left to do (the
    /// generated photos are drawn as planes; their RGB pixels, for PNG and WebP, are converted from them).
    func encode(_ image: YCbCrImage, progressive: Bool = false) throws(ImageCodecError) -> [UInt8] {
        var output: UnsafeMutablePointer<UInt8>?
        var size: UInt = 0
        let handle = try compressorHandle(progressive: progressive)
        let status = image.planes.withUnsafeBufferPointer { planes in
            tjCompressFromYUV(
                handle, planes.baseAddress, Int32(image.width), 1, Int32(image.height),
                Int32(TJSAMP_420.rawValue), &output, &size, Self.quality, Self.flags(progressive: progressive))
        }
        defer { tjFree(output) }
        guard status == 0, let output else { throw compressionFailed(progressive: progressive) }
        return Array(UnsafeBufferPointer(start: output, count: Int(size)))
    }

    /// The width and height a JPEG file declares, read from its header without decoding; nil when `bytes` is not
    /// a JPEG file TurboJPEG can read.
    func dimensions(of bytes: [UInt8]) -> (width: Int, height: Int)? {
        guard let handle = try? decompressorHandle() else { return nil }
        guard let dimensions = headerDimensions(of: bytes, handle: handle) else {
            discardDecompressor()
            return nil
        }
        return dimensions
    }

    /// ``dimensions(of:)`` with `handle`, which is left as the failure left it (its error still readable).
    private func headerDimensions(of bytes: [UInt8], handle: tjhandle) -> (width: Int, height: Int)? {
        var width: Int32 = 0
        var height: Int32 = 0
        var subsampling: Int32 = 0
        var colorspace: Int32 = 0
        let status = bytes.withUnsafeBufferPointer { buffer in
            tjDecompressHeader3(
                handle, buffer.baseAddress, UInt(buffer.count), &width, &height, &subsampling, &colorspace)
        }
        return status == 0 ? (Int(width), Int(height)) : nil
    }

    /// The pixels of a JPEG file, as RGB. A file TurboJPEG warns about (a truncated one: "Premature end of JPEG
    /// file") is refused, and so is a progressive one of more than 500 scans (`TJFLAG_LIMITSCANS`: each scan costs
    /// a pass over the image, so a few kilobytes of scans could take minutes of CPU).
    func decode(_ bytes: [UInt8]) throws(ImageCodecError) -> RGBImage {
        let handle = try decompressorHandle()
        guard let (width, height) = headerDimensions(of: bytes, handle: handle) else {
            throw decompressionFailed(handle)
        }
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        let status = bytes.withUnsafeBufferPointer { input in
            pixels.withUnsafeMutableBufferPointer { output in
                tjDecompress2(
                    handle, input.baseAddress, UInt(input.count), output.baseAddress, Int32(width), 0, Int32(height),
                    Int32(TJPF_RGB.rawValue), TJFLAG_STOPONWARNING | TJFLAG_LIMITSCANS)
            }
        }
        guard status == 0 else { throw decompressionFailed(handle) }
        return RGBImage(width: width, height: height, pixels: pixels)
    }

    private func decompressorHandle() throws(ImageCodecError) -> tjhandle {
        if let decompressor { return decompressor }
        guard let handle = tjInitDecompress() else {
            throw ImageCodecError(codec: "TurboJPEG", message: String(cString: tjGetErrorStr2(nil)))
        }
        decompressor = handle
        return handle
    }

    /// The error of the decompressor `handle`, which is then let go: the next file gets a new one.
    private func decompressionFailed(_ handle: tjhandle) -> ImageCodecError {
        let error = ImageCodecError(codec: "TurboJPEG", message: String(cString: tjGetErrorStr2(handle)))
        discardDecompressor()
        return error
    }

    private func discardDecompressor() {
        if let decompressor { tjDestroy(decompressor) }
        decompressor = nil
    }

    /// The compressor's error; the compressor is replaced by a new one (kept if none can be made, to fail again).
    private func compressionFailed(progressive: Bool) -> ImageCodecError {
        let failed = progressive ? progressiveCompressor ?? compressor : compressor
        let error = ImageCodecError(codec: "TurboJPEG", message: String(cString: tjGetErrorStr2(failed)))
        if progressive, let progressiveCompressor {
            tjDestroy(progressiveCompressor)
            self.progressiveCompressor = nil  // made afresh by the next progressive file
        } else if !progressive, let fresh = tjInitCompress() {
            tjDestroy(compressor)
            compressor = fresh
        }
        return error
    }
}
