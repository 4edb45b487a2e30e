import ListDomain
import Synchronization

/// How a Lorem Picsum route names its item: `/id/<id>/…`, `/seed/<seed>/…`, or none at all (`/<w>/<h>`).
enum PicsumPick: Sendable, Equatable {
    /// `/id/<id>/…`: the item with that id (digits only; anything else is no image, 404 as on Picsum).
    case id(String)
    /// `/seed/<seed>/…`: the item a hash of the seed text picks, the same one every time and on every server.
    case seed(String)
    /// `/<w>/<h>`, `/<size>`: the next item of a seeded sequence (Picsum picks at random).
    case random

    /// The live item `state` holds at `rank` among its live items, for a pick by `hash`.
    static func liveItem(_ hash: UInt64, in state: ListState) -> UInt64? {
        guard state.liveCount > 0 else { return nil }
        return state.deleted.liveID(atRank: hash % state.liveCount)
    }

    /// The 64-bit FNV-1a hash of `text`'s UTF-8, mixed by SplitMix64: the seed route's pick.
    static func hash(seed text: String) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in text.utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
        }
        return SplitMix64.mix(hash)
    }
}

/// The sequence `/<w>/<h>` draws its items from: the `n`-th draw is output `n` of a SplitMix64 stream keyed by the
/// catalog seed, so a server answers the same sequence after every start (shared by every loop).
final class PicsumSequence: Sendable {
    private let next = Atomic<UInt64>(0)
    private let key: UInt64

    init(seed: UInt64) {
        key = SplitMix64.mix(seed ^ 0x7069_6373_756D)  // "picsum"
    }

    /// The next draw's 64 bits.
    func draw() -> UInt64 {
        SplitMix64.output(seed: key, index: next.add(1, ordering: .relaxed).oldValue)
    }
}
