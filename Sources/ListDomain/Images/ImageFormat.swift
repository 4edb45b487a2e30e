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
}
