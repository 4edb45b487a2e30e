/// Where a server's copy of a list stands: what a shared store compares with its own rows.
public struct ListPosition: Sendable, Hashable {
    public var version: UInt64
    public var lastSequence: UInt64

    public init(version: UInt64, lastSequence: UInt64) {
        self.version = version
        self.lastSequence = lastSequence
    }

    public init(_ header: ListHeader) {
        self.init(version: header.version, lastSequence: header.lastSequence)
    }
}

/// What brings a server's copy of one list level with a store that other servers write to as well: the list as
/// stored, or what changed in it since the server's position; and the changes in between, for its feed.
public struct ListCatchUp: Sendable, Equatable {
    /// The whole list, when the stored one is not the copy's any more (reset or dropped elsewhere): the copy is
    /// replaced. nil when ``effects`` bring the copy level.
    public var stored: StoredList?
    /// What changed since the copy's position: written items (with their images), deleted ids, and the header.
    /// Empty when ``stored`` is set.
    public var effects: ListEffects
    /// The changes after the copy's position, oldest first, as far as the store keeps them. A `reset` change of a
    /// drop is marked in ``droppedAt``.
    public var changes: [Change]
    /// Whether the list has no rows any more (another server expired it): the copy goes, and the list is one nobody
    /// wrote to from now on.
    public var removed = false
    /// The sequence numbers of `reset` changes that were drops (`DELETE /admin/datasets/<name>`): the feed forgets
    /// the list's earlier changes there, as the store did.
    public var droppedAt: Set<UInt64>

    public init(
        stored: StoredList? = nil, effects: ListEffects = ListEffects(), changes: [Change] = [],
        droppedAt: Set<UInt64> = [], removed: Bool = false
    ) {
        self.stored = stored
        self.effects = effects
        self.changes = changes
        self.droppedAt = droppedAt
        self.removed = removed
    }
}
