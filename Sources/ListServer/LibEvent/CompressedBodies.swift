import ListDomain

/// One loop's compressed bodies, by the XXH3 digest of the identity body and the coding: at most
/// ``capacity`` bodies of at most ``largestKept`` bytes each (16 MiB a loop at the very most; a page of 20 items is
/// 1.3 KB compressed), the least recently used going first. Used on its loop's thread only.
final class CompressedBodies {
    private struct Key: Hashable {
        let digest: UInt128
        let coding: ContentCoding
    }

    /// Bodies kept.
    static let capacity = 1_024
    /// The largest compressed body kept.
    static let largestKept = 16_384

    private var table = LRUTable<Key, [UInt8]>(capacity: CompressedBodies.capacity)

    /// `body` in `coding`: kept, or compressed by `compressor` now (and kept if it is small enough); nil when it does
    /// not compress (``BodyCompressor/compress(_:as:)``).
    func body(of body: [UInt8], in coding: ContentCoding, compressor: BodyCompressor) -> [UInt8]? {
        let key = Key(digest: ContentDigest.of(body), coding: coding)
        if let kept = table.value(forKey: key) { return kept }
        guard let compressed = compressor.compress(body, as: coding) else { return nil }
        if compressed.count <= Self.largestKept { table.setValue(compressed, forKey: key) }
        return compressed
    }
}
