/// What makes an image's bytes: renders a spec and encodes it, away from the caller's thread.
///
/// The server's implementation runs ``ImageRenderer`` and the codecs on a bounded pool of worker threads; tests
/// inject one that counts calls and answers on cue.
public protocol ImageEncoding: Sendable {
    /// The encoded image for `spec` in `format`.
    ///
    /// - Throws: ``ImageFailure/busy`` when no more work can be queued now; ``ImageFailure/encodingFailed(_:)``
    ///   when the codec refused.
    /// Runs on the caller's executor (`nonisolated(nonsending)`) until it hands the work to its own threads, so a
    /// server loop that awaits it is resumed directly when the image is ready.
    nonisolated(nonsending) func encode(_ spec: ImageSpec, as format: ImageFormat) async throws(ImageFailure)
        -> EncodedImage
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
}
