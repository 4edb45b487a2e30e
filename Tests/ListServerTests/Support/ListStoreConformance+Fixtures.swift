import ListDomain

/// The values the conformance checks commit: headers, written items at the edges of their fields, batches.
extension ListStoreConformance {
    /// A wall-clock time to commit at.
    static let now = WallTime(milliseconds: 1_790_000_000_000)

    static func header(seed: UInt64 = 42, version: UInt64 = 1, nextID: UInt64 = 100, lastSequence: UInt64 = 0)
        -> ListHeader
    {
        ListHeader(seed: seed, baseCount: 100, version: version, nextID: nextID, lastSequence: lastSequence)
    }

    /// An item with every field overridden, at the edges of their ranges, the label in several scripts.
    static let everyField = WrittenItem(
        overrides: ItemOverrides(
            label: "Café ☕️ «日本語» \"quoted\" 👩🏽‍💻 — Ελληνικά", author: "Zoë Ñúñez-Østergård", width: 1,
            height: 100_000, color: 0xFF_FFFF, likes: 1_000_000_000),
        revision: 12)
    /// An item with only its label written; the rest stays generated (nil).
    static let labelOnly = WrittenItem(overrides: ItemOverrides(label: "only the label"), revision: 7)
    /// An item with no field written (a patch cleared them all) and a revision above 2^63.
    static let noFields = WrittenItem(overrides: ItemOverrides(), revision: 1 << 63 | 5)
    /// An item with the empty label (which a store must not take for NULL), zeros, and the largest revision.
    static let zeros = WrittenItem(
        overrides: ItemOverrides(label: "", width: 100_000, color: 0, likes: 0), revision: UInt64.max)

    /// One batch of one list.
    static func batch(_ name: String, _ effects: ListEffects, now: WallTime = now) -> CommitBatch {
        CommitBatch(lists: [name: effects], now: now)
    }

    static func effects(
        header: ListHeader?, written: [UInt64: WrittenItem] = [:], deleted: [UInt64] = [], changes: [Change] = [],
        wipe: Bool = false, drop: Bool = false
    ) -> ListEffects {
        var effects = ListEffects()
        effects.header = header
        effects.written = written
        effects.deleted = deleted
        effects.changes = changes
        effects.wipe = wipe
        effects.drop = drop
        return effects
    }

    static func item(_ id: UInt64, label: String = "Line") -> Item {
        Item(
            id: id, label: "\(label) \(id)", author: "Linh Nguyễn", width: 4000, height: 3000, color: "#a1b2c3",
            blurHash: "LEHV6nWB2yk8pyo0adR*.7kCMdnj", likes: 17)
    }
}
