/// The fields a client wrote over an item's generated ones: `nil` keeps the generated value.
///
/// An item is always its generated self (``Catalog/item(_:)``, from the seed and the id) with these fields laid
/// over it: `POST /items` sets at least the label of a new id, `PATCH` changes some fields, and a merge patch's
/// `null` returns a field to its generated value by clearing it here. So a reset with another seed changes the
/// fields nobody wrote, and the store holds only what was written (a sparse overlay).
///
/// Values are checked before they get here (see ``ItemOverrides/Limits``); this type only holds them.
public struct ItemOverrides: Sendable, Equatable, Hashable {
    public var label: String?
    public var author: String?
    // The numbers are kept without `Optional`s, which pad each to 16 bytes: which ones are set is a bit each in
    // `present`, and an unset one holds 0 (so that equal overrides have equal bits). 64 bytes instead of 88, in
    // every written item, twice over (the coordinator's two copies of a list).
    private var storedWidth = 0
    private var storedHeight = 0
    private var storedLikes = 0
    private var storedColor: UInt32 = 0
    private var present: UInt8 = 0

    public var width: Int? {
        get { value(storedWidth, Self.widthBit) }
        set { set(newValue, \.storedWidth, Self.widthBit) }
    }

    public var height: Int? {
        get { value(storedHeight, Self.heightBit) }
        set { set(newValue, \.storedHeight, Self.heightBit) }
    }

    /// The colour as 0xRRGGBB.
    public var color: UInt32? {
        get { value(storedColor, Self.colorBit) }
        set { set(newValue, \.storedColor, Self.colorBit) }
    }

    public var likes: Int? {
        get { value(storedLikes, Self.likesBit) }
        set { set(newValue, \.storedLikes, Self.likesBit) }
    }

    private static let widthBit: UInt8 = 1
    private static let heightBit: UInt8 = 2
    private static let colorBit: UInt8 = 4
    private static let likesBit: UInt8 = 8

    private func value<Value>(_ stored: Value, _ bit: UInt8) -> Value? {
        present & bit != 0 ? stored : nil
    }

    /// Sets a number and its bit, or clears both.
    private mutating func set<Value: BinaryInteger>(
        _ value: Value?, _ stored: WritableKeyPath<Self, Value>, _ bit: UInt8
    ) {
        self[keyPath: stored] = value ?? 0
        present = value == nil ? present & ~bit : present | bit
    }

    public init(
        label: String? = nil, author: String? = nil, width: Int? = nil, height: Int? = nil, color: UInt32? = nil,
        likes: Int? = nil
    ) {
        self.label = label
        self.author = author
        self.width = width
        self.height = height
        self.color = color
        self.likes = likes
    }

    /// Whether no field is overridden.
    public var isEmpty: Bool {
        label == nil && author == nil && present == 0
    }

    /// The ranges written values must fall in; the HTTP layer checks them and names the field that does not.
    public enum Limits {
        /// `label`: 1 to 500 characters (grapheme clusters).
        public static let labelLength = 1...500
        /// `label`: at most 2,000 bytes of UTF-8 too. Characters alone do not bound the memory a text holds: one
        /// grapheme cluster may be "e" and 30,000 combining marks (60 KB), and a page of 100 such labels was 6.4 MB.
        public static let labelBytes = 2_000
        /// `author`: 1 to 100 characters.
        public static let authorLength = 1...100
        /// `author`: at most 400 bytes of UTF-8 (four a character, as ``labelBytes`` allows a label).
        public static let authorBytes = 400
        /// `width` and `height`, in pixels.
        public static let dimension = 1...100_000
        /// `likes`.
        public static let likes = 0...1_000_000_000
    }

    /// `generated` with these fields laid over it (a written colour makes another photo, so another placeholder).
    public func applied(to generated: Item) -> Item {
        Item(
            id: generated.id,
            label: label ?? generated.label,
            author: author ?? generated.author,
            width: width ?? generated.width,
            height: height ?? generated.height,
            color: color.map(ItemFields.colorString) ?? generated.color,
            blurHash: color.map { PhotoPlaceholders.shared.placeholder(id: generated.id, color: $0) }
                ?? generated.blurHash,
            likes: likes ?? generated.likes)
    }
}

/// A JSON merge patch (RFC 7396) of an item, field by field: keep, set, or return to the generated value.
public struct ItemPatch: Sendable, Equatable {
    /// What a patch does to one field.
    public enum Change<Value: Sendable & Equatable>: Sendable, Equatable {
        /// The field was not in the patch.
        case keep
        /// The field was given a value.
        case set(Value)
        /// The field was `null`: back to its generated value.
        case clear

        func applied(to current: Value?) -> Value? {
            switch self {
            case .keep: current
            case .set(let value): value
            case .clear: nil
            }
        }
    }

    public var label: Change<String> = .keep
    public var author: Change<String> = .keep
    public var width: Change<Int> = .keep
    public var height: Change<Int> = .keep
    public var color: Change<UInt32> = .keep
    public var likes: Change<Int> = .keep

    public init() {}

    /// `overrides` with this patch applied.
    public func applied(to overrides: ItemOverrides) -> ItemOverrides {
        ItemOverrides(
            label: label.applied(to: overrides.label),
            author: author.applied(to: overrides.author),
            width: width.applied(to: overrides.width),
            height: height.applied(to: overrides.height),
            color: color.applied(to: overrides.color),
            likes: likes.applied(to: overrides.likes))
    }
}

/// An item with written fields: what it overrides, its uploaded image, and the change that last wrote it.
public struct WrittenItem: Sendable, Equatable {
    public var overrides: ItemOverrides
    /// The sequence number of the change that last wrote the item (its revision; part of its `ETag`).
    public var revision: UInt64
    /// The upload, out of line: few items have one, and inline its 56 bytes (16-byte aligned for the digest) made
    /// every written item 160 bytes instead of 80.
    private var upload: Upload?

    /// The image a client uploaded, served instead of the generated one; nil for none.
    public var image: StoredImage? {
        get { upload?.image }
        set { upload = newValue.map(Upload.init) }
    }

    public init(overrides: ItemOverrides, revision: UInt64, image: StoredImage? = nil) {
        self.overrides = overrides
        self.revision = revision
        self.image = image
    }

    /// `generated` as this item's writes made it: its fields laid over, and the placeholder of its upload if it has
    /// one.
    public func applied(to generated: Item) -> Item {
        let item = overrides.applied(to: generated)
        guard let image else { return item }
        return item.with(blurHash: image.blurHash)
    }

    public static func == (lhs: WrittenItem, rhs: WrittenItem) -> Bool {
        lhs.overrides == rhs.overrides && lhs.revision == rhs.revision && lhs.image == rhs.image
    }

    /// An immutable box, so copies of an item share it.
    private final class Upload: Sendable {
        let image: StoredImage
        init(_ image: StoredImage) { self.image = image }
    }
}
