/// The numeric fields of one item, derived from `(seed, id)` alone: the shared core of ``Catalog/item(_:)``
/// (which builds strings) and ``Catalog/writeItem(_:into:)`` (which writes bytes).
///
/// Every field has its own 64-bit hash: `SplitMix64.output(seed: mix(seed ^ salt), index: id)`, that is the
/// `id`-th output of a SplitMix64 stream keyed by the catalog seed and a per-field salt. Streams for different
/// fields or seeds are unrelated, and computing one costs two multiply-xorshift rounds, whatever the id.
/// Only integer arithmetic is involved, so every machine derives the same values.
package struct ItemFields: Equatable {
    /// Index into ``AuthorTable/names``.
    package let authorIndex: Int
    /// Width in pixels.
    package let width: Int
    /// Height in pixels.
    package let height: Int
    /// The colour as 0xRRGGBB.
    package let color: UInt32
    /// 0...10_000.
    package let likes: Int

    /// Per-field salts (the field name in ASCII). Part of the data format: never change them.
    enum Salt: UInt64 {
        case author = 0x6175_7468_6F72  // "author"
        case size = 0x7369_7A65  // "size"
        case color = 0x636F_6C6F_72  // "color"
        case likes = 0x6C69_6B65_73  // "likes"
        case amount = 0x616D_6F75_6E74  // "amount"
    }

    /// Landscape photo sizes of common cameras, phones and screens (4:3, 3:2, 16:9 and one square); 16 entries
    /// so four bits of a hash pick one without bias.
    static let landscapeSizes: [(width: Int, height: Int)] = [
        (960, 720), (1024, 768), (1280, 720), (1280, 960),
        (1600, 1200), (1920, 1080), (1920, 1280), (2048, 1536),
        (2560, 1440), (3000, 2000), (3264, 2448), (3840, 2160),
        (4000, 3000), (4032, 3024), (6000, 4000), (1080, 1080),
    ]

    /// The 64-bit hash of field `salt` of item `id` in the catalog with `seed`.
    @inline(__always)
    static func hash(seed: UInt64, id: UInt64, salt: Salt) -> UInt64 {
        SplitMix64.output(seed: SplitMix64.mix(seed ^ salt.rawValue), index: id)
    }

    /// Derives the fields of item `id` in the catalog with `seed` (no bounds check: any id has fields).
    package init(seed: UInt64, id: UInt64) {
        authorIndex = AuthorTable.index(for: Self.hash(seed: seed, id: id, salt: .author))

        let sizeHash = Self.hash(seed: seed, id: id, salt: .size)
        let size = Self.landscapeSizes[Int(truncatingIfNeeded: sizeHash & 0xF)]
        // About 30 % of photos are portrait (77 / 256); a square stays a square.
        let portrait = (sizeHash >> 8) & 0xFF < 77
        (width, height) = portrait ? (size.height, size.width) : (size.width, size.height)

        color = Self.color(seed: seed, id: id)

        // likes = 10_001 · u², u uniform in [0, 1): most items have few likes, a few have thousands.
        let uniform = Self.hash(seed: seed, id: id, salt: .likes) >> 32
        let squared = (uniform &* uniform) >> 32
        likes = Int(truncatingIfNeeded: (squared &* 10_001) >> 32)
    }

    /// The colour of item `id` (0xRRGGBB) alone.
    static func color(seed: UInt64, id: UInt64) -> UInt32 {
        UInt32(truncatingIfNeeded: hash(seed: seed, id: id, salt: .color) >> 40)
    }

    /// The amount of item `id`: 53 random bits scaled into [0, 1), exact in binary floating point.
    static func amount(seed: UInt64, id: UInt64) -> Double {
        Double(hash(seed: seed, id: id, salt: .amount) >> 11) * 0x1p-53
    }

    /// The colour as `Item.color` spells it: `"#rrggbb"`.
    var colorString: String { Self.colorString(color) }

    /// `0xa1b2c3` as `"#a1b2c3"` (generated and written colours alike).
    ///
    /// Written digit by digit into the string's own seven bytes: through `String(_:radix:)` and two appends it took
    /// about 1,400 instructions, for every item built as a value (a write's answer, an item or its change).
    static func colorString(_ color: UInt32) -> String {
        String(unsafeUninitializedCapacity: 7) { bytes in
            bytes[0] = UInt8(ascii: "#")
            for index in 1...6 {
                let nibble = UInt8(truncatingIfNeeded: color >> (4 * (6 - UInt32(index)))) & 0xF
                bytes[index] = nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
            }
            return 7
        }
    }
}
