import CXXHash

/// The digest that names an uploaded image's bytes: XXH3's 128 bits, from the system's libxxhash (the Digest/ room
/// alone imports it).
///
/// What it is for: the image's identity in its `ETag` and the image cache (the same bytes give the same tag on
/// every replica), the store's check that the bytes it reads are the ones the state names, and the fingerprint of
/// an upload's `Idempotency-Key` (a 10 MiB body is not stored twice to compare a retry with). Not a defence against
/// someone crafting collisions, which none of those needs: a client can only confuse its own retries. XXH3 reads
/// some 20 GB/s, so a 10 MiB upload costs about half a millisecond (on an image worker, not a loop).
enum ContentDigest {
    /// The XXH3 128-bit digest of `bytes`.
    static func of(_ bytes: [UInt8]) -> UInt128 {
        let hash = bytes.withUnsafeBytes { XXH3_128bits($0.baseAddress, $0.count) }
        return UInt128(hash.high64) << 64 | UInt128(hash.low64)
    }
}
