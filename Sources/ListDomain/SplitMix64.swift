/// SplitMix64: a tiny, fast, statistically solid 64-bit generator and mixer (Steele, Lea and Flood, 2014).
///
/// The catalog uses ``mix(_:)`` to derive every field of an item from `(seed, id)` without any state, so the
/// item with id 10^15 costs what the item with id 0 costs. The generator form is a seedable
/// `RandomNumberGenerator` for reproducible latency draws and tests.
///
/// The algorithm and its constants are part of the data format: changing them changes every generated item on
/// every server. Its reference outputs are pinned by the tests (seed 1234567 gives 6457827717110365317,
/// 3203168211198807973, ...).
public struct SplitMix64: RandomNumberGenerator, Sendable, Equatable {
    /// The Weyl-sequence increment, 2^64 divided by the golden ratio, rounded to odd.
    public static let gamma: UInt64 = 0x9E37_79B9_7F4A_7C15

    /// The generator state: the next output is `mix(state &+ gamma)`.
    public private(set) var state: UInt64

    /// Creates a generator whose first output is `mix(seed &+ gamma)`, as in the reference `splitmix64.c`.
    public init(seed: UInt64) {
        state = seed
    }

    /// Advances the state by `gamma` and returns the mixed state.
    public mutating func next() -> UInt64 {
        state &+= Self.gamma
        return Self.mix(state)
    }

    /// The SplitMix64 finalizer (variant 13 of Stafford's mixers): a bijection on 64 bits with full avalanche.
    @inlinable
    public static func mix(_ value: UInt64) -> UInt64 {
        var z = value
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// The `index`-th output (0-based) of a generator seeded with `seed`, computed in O(1).
    ///
    /// `SplitMix64(seed: s)` yields `output(seed: s, index: 0)`, `output(seed: s, index: 1)`, and so on.
    @inlinable
    public static func output(seed: UInt64, index: UInt64) -> UInt64 {
        mix(seed &+ (index &+ 1) &* gamma)
    }
}
