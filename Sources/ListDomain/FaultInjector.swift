import Synchronization

/// Reproducible fault decisions, and per-client attempt counters for "fail the first N attempts".
///
/// Decisions are a pure function of the seed and the position of the call in one global sequence: the same seed
/// and the same sequence of calls give the same faults. With concurrent clients the sequence is the order in
/// which their requests arrive, so a run is reproducible to the extent that this order is.
public final class FaultInjector: Sendable {
    /// A client and the resource it asked for, as two independent 64-bit hashes of the pair.
    ///
    /// Hashes rather than the texts: both come from the request (an `X-Client-Id` and a request-target of up to
    /// kilobytes each), and a table of 100,000 pairs must not grow with their length. Two pairs would share a
    /// count only if both hashes collided.
    private struct AttemptKey: Hashable {
        let first: UInt64
        let second: UInt64

        init(client: String, resource: String) {
            // FNV-1a over the client's bytes, a 0xFF separator (never in UTF-8, so no two pairs give the same
            // byte stream), and the resource's bytes; two offset bases, each finished by the SplitMix64 mixer.
            var first: UInt64 = 0xCBF2_9CE4_8422_2325
            var second: UInt64 = 0x8422_2325_CBF2_9CE4
            func add(_ byte: UInt8) {
                first = (first ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
                second = (second ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
                second ^= second >> 29
            }
            client.utf8.forEach(add)
            add(0xFF)
            resource.utf8.forEach(add)
            self.first = SplitMix64.mix(first)
            self.second = SplitMix64.mix(second)
        }
    }

    /// Salts separating the two hash streams drawn per decision. Part of the reproducibility promise.
    private static let faultSalt: UInt64 = 0x6661_756C_74  // "fault"
    private static let kindSalt: UInt64 = 0x6B69_6E64  // "kind"

    private let seed: Atomic<UInt64>
    private let sequence = Atomic<UInt64>(0)
    private let attempts: Mutex<LRUTable<AttemptKey, UInt64>>

    /// Creates an injector.
    ///
    /// - Parameters:
    ///   - seed: Decides every fault: the same seed replays the same decisions.
    ///   - failFirstCapacity: The most (client, resource) pairs whose attempts are counted, at least 1 (a
    ///     precondition); the least recently seen pair is forgotten first.
    public init(seed: UInt64, failFirstCapacity: Int = 100_000) {
        precondition(failFirstCapacity >= 1, "FaultInjector failFirstCapacity must be at least 1")
        self.seed = Atomic(seed)
        attempts = Mutex(LRUTable(capacity: failFirstCapacity))
    }

    /// Decides whether the next request fails, and how.
    ///
    /// With `rate` at most 0 (or NaN) this returns `nil` without touching any shared state, so an unused injector
    /// costs nothing. Otherwise the call takes the next position `n` in the sequence; it faults when a uniform
    /// number in [0, 1) derived from `(seed, n)` is below `rate` (always, for a rate of 1 or more), and the kind
    /// is drawn from a second, independent hash of `(seed, n)`, each kind as likely as its weight in `mix`.
    ///
    /// - Parameters:
    ///   - rate: The probability of a fault, in [0, 1].
    ///   - mix: The kinds to choose from; an empty mix never faults (but still takes a position).
    /// - Returns: The fault to inject, or `nil` for none.
    public func draw(rate: Double, mix: FaultMix) -> FaultKind? {
        guard rate > 0 else { return nil }
        let position = sequence.wrappingAdd(1, ordering: .relaxed).oldValue
        let seed = seed.load(ordering: .relaxed)
        let uniform = Double(Self.hash(seed: seed, salt: Self.faultSalt, position: position) >> 11) * 0x1p-53
        guard rate >= 1 || uniform < rate else { return nil }
        let total = mix.totalWeight
        guard total > 0 else { return nil }
        // The high half of hash · total is uniform in 0..<total (bias below 2^-50 for any mix).
        var pick = Self.hash(seed: seed, salt: Self.kindSalt, position: position).multipliedFullWidth(by: total).high
        for entry in mix.entries {
            if pick < UInt64(entry.weight) { return entry.kind }
            pick -= UInt64(entry.weight)
        }
        return nil
    }

    /// Counts an attempt of `client` at `resource`.
    ///
    /// - Returns: The number of this attempt for the pair, from 1 (this one included). A pair forgotten to make
    ///   room (see `failFirstCapacity`) starts over at 1.
    public func attempt(client: String, resource: String) -> UInt64 {
        let key = AttemptKey(client: client, resource: resource)
        return attempts.withLock { table in
            let count = (table.value(forKey: key) ?? 0) &+ 1
            table.setValue(count, forKey: key)
            return count
        }
    }

    /// Starts over: the sequence goes back to its beginning and every attempt count is forgotten.
    ///
    /// - Parameter seed: The new seed; `nil` (the default) keeps the current one.
    /// - Returns: How many (client, resource) pairs were forgotten.
    @discardableResult
    public func reset(seed: UInt64? = nil) -> Int {
        if let seed {
            self.seed.store(seed, ordering: .relaxed)
        }
        sequence.store(0, ordering: .relaxed)
        return attempts.withLock { table in
            defer { table = LRUTable(capacity: table.capacity) }
            return table.count
        }
    }

    /// The `position`-th output of the SplitMix64 stream keyed by `seed` and `salt`.
    private static func hash(seed: UInt64, salt: UInt64, position: UInt64) -> UInt64 {
        SplitMix64.output(seed: SplitMix64.mix(seed ^ salt), index: position)
    }
}
