/// One line of the infinite list: generated from the catalog's seed and the id, never stored.
///
/// JSON form (field order fixed):
/// `{"id":42,"label":"Line 42","author":"…","width":4000,"height":3000,"color":"#a1b2c3","likes":17}`
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
    /// How many people liked the item, 0...10_000, skewed towards small numbers.
    public let likes: Int

    /// Creates an item from its fields; the catalog is the usual source of items.
    public init(id: UInt64, label: String, author: String, width: Int, height: Int, color: String, likes: Int) {
        self.id = id
        self.label = label
        self.author = author
        self.width = width
        self.height = height
        self.color = color
        self.likes = likes
    }

    /// Writes the item as a JSON object, field by field through the general-purpose writer calls.
    ///
    /// ``Catalog/writeItem(_:into:)`` writes the same bytes without building the item's strings.
    public func writeJSON(into json: inout JSONWriter) {
        json.append(raw: "{\"id\":")
        json.append(integer: id)
        json.append(raw: ",\"label\":")
        json.append(string: label)
        json.append(raw: ",\"author\":")
        json.append(string: author)
        json.append(raw: ",\"width\":")
        json.append(integer: width)
        json.append(raw: ",\"height\":")
        json.append(integer: height)
        json.append(raw: ",\"color\":")
        json.append(string: color)
        json.append(raw: ",\"likes\":")
        json.append(integer: likes)
        json.append(raw: "}")
    }
}

/// The slow part of an item: what the detail endpoint serves from the store through the cache.
///
/// JSON form: `{"id":42,"amount":0.42151234}`.
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

extension ItemDetail {
    /// Writes the detail as a JSON object: `{"id":42,"amount":0.42151234}`.
    public func writeJSON(into json: inout JSONWriter) {
        json.append(raw: "{\"id\":")
        json.append(integer: id)
        json.append(raw: ",\"amount\":")
        json.append(double: amount)
        json.append(raw: "}")
    }
}
