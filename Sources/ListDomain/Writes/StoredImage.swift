/// An image a client uploaded for an item (`PUT /items/<id>/image`), as a list's state knows it: what it is and
/// which bytes, not the bytes themselves (the ``ListStore`` keeps those, and serves them on request).
///
/// Checked before it gets here: the format and size come from the file's own header, the file decoded whole, and
/// the size is one images may have (``ImageSpec/allows(width:height:)``).
public struct StoredImage: Sendable, Hashable {
    /// The format of the stored file, which is served as it is when no other is asked for.
    public let format: ImageFormat
    public let width: Int
    public let height: Int
    /// The size of the file in bytes.
    public let byteCount: Int
    /// A 128-bit digest of the file's bytes (XXH3): the image's identity in its `ETag` and in the image cache,
    /// and what the store is asked for, so bytes replaced meanwhile are never served under the old identity.
    public let digest: UInt128
    /// The sequence number of the change that stored it.
    public let revision: UInt64
    /// The image's BlurHash, the item's `blur_hash` while the upload stands (``BlurHash/encode(_:)``); nil for an
    /// upload stored before ListServer computed them.
    public let blurHash: String?

    public init(
        format: ImageFormat, width: Int, height: Int, byteCount: Int, digest: UInt128, revision: UInt64,
        blurHash: String? = nil
    ) {
        self.format = format
        self.width = width
        self.height = height
        self.byteCount = byteCount
        self.digest = digest
        self.revision = revision
        self.blurHash = blurHash
    }
}

/// An upload on its way to the store: the checked file and what it is.
public struct ImageUpload: Sendable, Equatable {
    public let format: ImageFormat
    public let width: Int
    public let height: Int
    public let digest: UInt128
    /// The file, as the client sent it.
    public let bytes: [UInt8]
    /// The BlurHash of its pixels.
    public let blurHash: String?

    public init(
        format: ImageFormat, width: Int, height: Int, digest: UInt128, bytes: [UInt8], blurHash: String? = nil
    ) {
        self.format = format
        self.width = width
        self.height = height
        self.digest = digest
        self.bytes = bytes
        self.blurHash = blurHash
    }

    /// What the list's state keeps of it once stored by the change `revision`.
    func stored(revision: UInt64) -> StoredImage {
        StoredImage(
            format: format, width: width, height: height, byteCount: bytes.count, digest: digest, revision: revision,
            blurHash: blurHash)
    }
}

/// What a commit does to one item's uploaded image.
public enum ImageEffect: Sendable, Equatable {
    /// Store these bytes as the item's image (replacing any).
    case put(StoredImage, bytes: [UInt8])
    /// Forget the item's upload (`DELETE /items/<id>/image`, or the item deleted).
    case remove
}

/// What identifies an item's image now: for `If-Match` on image writes and the image's `ETag`.
public struct ImageRevision: Sendable, Equatable {
    /// The list's version.
    public let version: UInt64
    /// The item as clients see it now (its size and colour make the generated image).
    public let item: Item
    /// The upload served instead of the generated image, if any.
    public let upload: StoredImage?

    public init(version: UInt64, item: Item, upload: StoredImage?) {
        self.version = version
        self.item = item
        self.upload = upload
    }
}

extension UInt128 {
    /// The value as 16 bytes, most significant first: how a digest is stored and fingerprinted.
    public var bigEndianBytes: [UInt8] {
        (0..<16).map { UInt8(truncatingIfNeeded: self >> (8 * (15 - $0))) }
    }

    /// The value 16 bytes hold, most significant first; nil for any other count.
    public init?(bigEndianBytes bytes: [UInt8]) {
        guard bytes.count == 16 else { return nil }
        self = bytes.reduce(0) { $0 << 8 | UInt128($1) }
    }
}
