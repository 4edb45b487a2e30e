import CXXHash

/// Signs a dataset's bearer tokens (``ListDomain/ProfileRegistry/TokenSigner``): XXH3's 128 bits of the key, the
/// expiry and the dataset's name, so that a server checks a token by signing its expiry again, with nothing
/// remembered per token, and every server that shares the store (and so the key) accepts it.
///
/// These tokens stand in for a real backend's, for an app's sign-in, refresh and retry paths under test; they guard
/// test data, not secrets, and XXH3 is not a MAC: someone who collects tokens and attacks XXH3 might forge one,
/// which nothing here defends against (the admin routes have their own token). What it buys is the cost: one hash
/// of some 40 bytes a request, about as cheap as the table of issued tokens it replaced, and none of its memory.
enum TokenSignature {
    @Sendable static func sign(key: UInt128, dataset: String, expiry: Int64) -> UInt128 {
        var dataset = dataset
        return dataset.withUTF8 { name in
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 24 + name.count) { input in
                withUnsafeBytes(of: key.littleEndian) {
                    input.baseAddress!.initialize(from: $0.bindMemory(to: UInt8.self).baseAddress!, count: 16)
                }
                withUnsafeBytes(of: expiry.littleEndian) {
                    (input.baseAddress! + 16).initialize(from: $0.bindMemory(to: UInt8.self).baseAddress!, count: 8)
                }
                if let base = name.baseAddress { (input.baseAddress! + 24).initialize(from: base, count: name.count) }
                let hash = XXH3_128bits(input.baseAddress, input.count)
                return UInt128(hash.high64) << 64 | UInt128(hash.low64)
            }
        }
    }
}
