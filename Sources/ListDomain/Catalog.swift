/// The list's items: generated on demand from a seed and the id, never materialised.
///
/// Page 1,000,000 of a 2^53-item catalog costs what page 1 costs, and every server started with the same seed
/// serves the same bytes (the derivation uses only integer hashing, no `Hasher`, no platform-dependent
/// formatting). See ``ItemFields`` for how each field is derived.
public struct Catalog: Sendable, Equatable {
    /// The largest supported count, 2^53: every id is then exactly representable as a JSON number in
    /// clients that read numbers as doubles (JavaScript).
    public static let maximumCount: UInt64 = 1 << 53

    /// The seed every field derives from, together with the id.
    public let seed: UInt64
    /// The number of items; ids run from 0 to `count - 1`.
    public let count: UInt64

    /// Creates a catalog of `count` items generated from `seed`.
    ///
    /// - Parameters:
    ///   - seed: Any value; different seeds give unrelated catalogs.
    ///   - count: At most ``maximumCount`` (a precondition: configuration validates it first).
    public init(seed: UInt64, count: UInt64) {
        precondition(count <= Self.maximumCount, "Catalog count \(count) exceeds 2^53")
        self.seed = seed
        self.count = count
    }

    /// The item with this id, or `nil` when `id >= count`.
    public func item(_ id: UInt64) -> Item? {
        guard id < count else { return nil }
        return item(id, with: ItemOverrides())
    }

    /// Item `id` with `overrides` laid over its generated fields: `overrides.applied(to: item(id)!)`, without
    /// making the generated fields the overrides replace. `id` may be past `count` (an id being handed out).
    public func item(_ id: UInt64, with overrides: ItemOverrides) -> Item {
        let fields = ItemFields(seed: seed, id: id)
        let color = overrides.color ?? fields.color
        return Item(
            id: id,
            label: overrides.label ?? "Line \(id)",
            author: overrides.author ?? AuthorTable.names[fields.authorIndex],
            width: overrides.width ?? fields.width,
            height: overrides.height ?? fields.height,
            color: ItemFields.colorString(color),
            blurHash: PhotoPlaceholders.shared.placeholder(id: id, color: color),
            likes: overrides.likes ?? fields.likes
        )
    }

    /// The colour of item `id` as generated (0xRRGGBB): one field's hash, for the placeholders of a page.
    package func generatedColor(of id: UInt64) -> UInt32 {
        ItemFields.color(seed: seed, id: id)
    }

    /// The detail amount of item `id`, deterministic from `(seed, id)`, in [0, 1).
    ///
    /// Computed as `Double(hash >> 11) * 0x1p-53`, so it is exact and identical on every machine. Defined for
    /// every id; callers check `id < count` when the id comes from outside.
    public func amount(for id: UInt64) -> Double {
        ItemFields.amount(seed: seed, id: id)
    }

    /// Page `number` (from 1) of the catalog, `limit` items at a time. Never traps, for any inputs.
    public func page(_ number: UInt64, limit: UInt64) -> Page {
        Page(number: number, limit: limit, total: count)
    }
}
