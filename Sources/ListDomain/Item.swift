/// One line of the infinite list: generated from the catalog's seed and the id, never stored.
///
/// As the server writes it (field order fixed):
/// `{"id":42,"label":"Line 42","author":"…","width":4000,"height":3000,"color":"#a1b2c3","blur_hash":"LEHV6n…",`
/// `"likes":17,"image_url":"/items/42/image"}`
public struct Item: Sendable, Equatable {
    /// The position of the item in the catalog, from 0.
    public let id: UInt64
    /// The text of the line, `"Line <id>"`.
    public let label: String
    /// A full name from a fixed table of realistic names (some with non-ASCII letters).
    public let author: String
    /// The width in pixels of the photo the line stands for, from a table of common camera and screen sizes.
    public let width: Int
    /// The height in pixels; portrait photos swap the landscape width and height.
    public let height: Int
    /// A dominant colour for placeholders while the photo loads, `"#rrggbb"` in lower-case hex.
    public let color: String
    /// The BlurHash of the item's image (``BlurHash``): of its generated photo (``PhotoPlaceholders``), or of the
    /// upload that replaced it; nil only for what was stored before ListServer computed them (an upload, a change).
    public let blurHash: String?
    /// How many people liked the item, 0...10_000, skewed towards small numbers.
    public let likes: Int

    /// Creates an item from its fields; the catalog is the usual source of items.
    public init(
        id: UInt64, label: String, author: String, width: Int, height: Int, color: String, blurHash: String?,
        likes: Int
    ) {
        self.id = id
        self.label = label
        self.author = author
        self.width = width
        self.height = height
        self.color = color
        self.blurHash = blurHash
        self.likes = likes
    }

    /// This item with `blurHash` for its placeholder.
    public func with(blurHash: String?) -> Item {
        Item(
            id: id, label: label, author: author, width: width, height: height, color: color, blurHash: blurHash,
            likes: likes)
    }
}

/// The slow part of an item: what the detail endpoint serves from the store through the cache.
///
/// As the server writes it: `{"id":42,"amount":0.42151234}`.
public struct ItemDetail: Sendable, Equatable {
    /// The id of the item the detail belongs to.
    public let id: UInt64
    /// A deterministic value in [0, 1) derived from the catalog's seed and the id.
    public let amount: Double

    /// Creates a detail from its fields; the store is the usual source of details.
    public init(id: UInt64, amount: Double) {
        self.id = id
        self.amount = amount
    }
}
