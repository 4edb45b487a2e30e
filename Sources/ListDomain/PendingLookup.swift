/// What ``DetailCache/lookUp(_:in:bypassCache:)`` answers: the lookup, and how long until it may be given.
public struct PendingLookup: Sendable, Equatable {
    /// The answer.
    public let lookup: DetailLookup
    /// How long from now the answer is ready: zero for a hit; for a miss, the store fetch's latency, or what is
    /// left of it when the miss joined a fetch in flight.
    public let readyIn: Duration

    /// Creates a pending lookup.
    public init(lookup: DetailLookup, readyIn: Duration) {
        self.lookup = lookup
        self.readyIn = readyIn
    }
}
