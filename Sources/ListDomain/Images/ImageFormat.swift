/// The encodings an item's image is served in.
public enum ImageFormat: String, Sendable, Hashable, CaseIterable {
    /// Baseline JPEG (lossy): the default, as Lorem Picsum serves.
    case jpeg
    /// PNG (lossless).
    case png
    /// WebP (lossy).
    case webp

    /// The extension a file of this format has: `jpg`, `png`, `webp`.
    public var fileExtension: String {
        switch self {
        case .jpeg: "jpg"
        case .png: "png"
        case .webp: "webp"
        }
    }

    /// The format a file extension names (`jpg` and `jpeg` both name JPEG; ASCII case ignored), or nil.
    public init?(fileExtension: some StringProtocol) {
        switch fileExtension.lowercased() {
        case "jpg", "jpeg": self = .jpeg
        case "png": self = .png
        case "webp": self = .webp
        default: return nil
        }
    }

    /// The format a file's signature (its first bytes) says it is, or nil: JPEG starts `FF D8 FF`, PNG with its
    /// 8-byte signature, WebP with `RIFF`, a length and `WEBP`.
    public init?(sniffing bytes: [UInt8]) {
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        if bytes.starts(with: [0xFF, 0xD8, 0xFF]) {
            self = .jpeg
        } else if bytes.starts(with: png) {
            self = .png
        } else if bytes.count >= 12, bytes.starts(with: Array("RIFF".utf8)),
            bytes[8..<12].elementsEqual("WEBP".utf8)
        {
            self = .webp
        } else {
            return nil
        }
    }
}
