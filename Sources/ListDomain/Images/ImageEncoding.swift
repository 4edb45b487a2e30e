/// What makes an image's bytes: renders a spec and encodes it, away from the caller's thread.
///
/// The server's implementation runs ``ImageRenderer`` and the codecs on a bounded pool of worker threads; tests
/// inject one that counts calls and answers on cue.
public protocol ImageEncoding: Sendable {
    /// The encoded image for `spec` in `format`; for an upload (``ImageSpec/upload``), `source` is the uploaded
    /// file, which is decoded, scaled and turned as the spec asks.
    ///
    /// - Throws: ``ImageFailure/busy`` when no more work can be queued now; ``ImageFailure/encodingFailed(_:)``
    ///   when the codec refused.
    /// Runs on the caller's executor (`nonisolated(nonsending)`) until it hands the work to its own threads, so a
    /// server loop that awaits it is resumed directly when the image is ready.
    nonisolated(nonsending) func encode(_ spec: ImageSpec, as format: ImageFormat, from source: [UInt8]?)
        async throws(ImageFailure) -> EncodedImage

    /// Checks an uploaded file, which its signature says is `format`, away from the caller's thread: the size its
    /// header declares is one images may have (checked before any pixel is decoded), and the whole file decodes to
    /// that size. Returns the upload with its digest.
    nonisolated(nonsending) func inspectUpload(_ bytes: [UInt8], as format: ImageFormat) async throws(UploadRejection)
        -> ImageUpload
}

/// Why an uploaded file is refused.
public enum UploadRejection: Error, Sendable, Equatable {
    /// Every worker is busy and the queue is full: try again shortly.
    case busy
    /// The header declares a size images may not have (``ImageSpec/allows(width:height:)``).
    case tooLarge(width: Int, height: Int)
    /// The file does not decode (truncated, damaged, or a kind of the format the codec does not read): what the
    /// codec said.
    case unreadable(String)
}

/// An encoded image and what making it cost.
public struct EncodedImage: Sendable, Equatable {
    /// The file's bytes.
    public let bytes: [UInt8]
    /// How long rendering and encoding took (on the encoder's thread, not counting time queued).
    public let encodeDuration: Duration

    public init(bytes: [UInt8], encodeDuration: Duration) {
        self.bytes = bytes
        self.encodeDuration = encodeDuration
    }
}

/// Why there is no image. Domain errors say what happened, not how a transport reports it.
public enum ImageFailure: Error, Sendable, Equatable {
    /// Every encoder is busy and the queue in front of them is full: try again shortly.
    case busy
    /// The codec could not encode the pixels (it said why).
    case encodingFailed(String)
    /// The uploaded image could not be read from the store (it failed, or the upload was replaced meanwhile).
    case uploadUnavailable(String)
}
