/// The fields a client wrote over an item's generated ones: `nil` keeps the generated value.
///
/// An item is always its generated self (``Catalog/item(_:)``, from the seed and the id) with these fields laid
/// over it: `POST /items` sets at least the label of a new id, `PATCH` changes some fields, and a merge patch's
/// `null` returns a field to its generated value by clearing it here. So a reset with another seed changes the
/// fields nobody wrote, and the store holds only what was written (a sparse overlay).
///
/// Values are checked before they get here (see ``ItemOverrides/limits``); this type only holds them.
public struct ItemOverrides: Sendable, Equatable, Hashable {
    public var label: String?
    public var author: String?
    public var width: Int?
    public var height: Int?
    /// The colour as 0xRRGGBB.
    public var color: UInt32?
    public var likes: Int?

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
        label == nil && author == nil && width == nil && height == nil && color == nil && likes == nil
    }

    /// The ranges written values must fall in; the HTTP layer checks them and names the field that does not.
    public enum Limits {
        /// `label`: 1 to 500 characters (grapheme clusters).
        public static let labelLength = 1...500
        /// `author`: 1 to 100 characters.
        public static let authorLength = 1...100
        /// `width` and `height`, in pixels.
        public static let dimension = 1...100_000
        /// `likes`.
        public static let likes = 0...1_000_000_000
    }

    /// `generated` with these fields laid over it.
    public func applied(to generated: Item) -> Item {
        Item(
            id: generated.id,
            label: label ?? generated.label,
            author: author ?? generated.author,
            width: width ?? generated.width,
            height: height ?? generated.height,
            color: color.map(ItemFields.colorString) ?? generated.color,
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
    /// The image a client uploaded, served instead of the generated one; nil for none.
    public var image: StoredImage?

    public init(overrides: ItemOverrides, revision: UInt64, image: StoredImage? = nil) {
        self.overrides = overrides
        self.revision = revision
        self.image = image
    }
}
