import ListDomain

/// A strong entity tag (RFC 9110 §8.8.3) for a generated representation, and the `If-None-Match` check against it.
///
/// Every body ListServer serves is a pure function of a few integers (catalog version, seed, count, page, limit,
/// id…), so the tag hashes those instead of the body bytes: the same inputs give the same bytes, different bytes
/// come from different inputs, and no body is hashed on the hot path. Including the catalog version means every
/// tag changes after `POST /admin/reset`, so a client that revalidates after a reset always gets a 200.
struct EntityTag: Sendable, Equatable {
    /// The 64-bit hash of the inputs.
    let hash: UInt64

    /// The tag of the representation determined by `inputs` (order matters).
    init(_ inputs: UInt64...) {
        var hash: UInt64 = 0x4C53_4554_4147_0001  // "LSETAG" and a format number
        for input in inputs {
            hash = SplitMix64.mix(hash ^ input &+ SplitMix64.gamma)
        }
        self.hash = hash
    }

    /// The field value: 16 lowercase hex digits in quotes, `"9f86d081884c7d65"`.
    var headerValue: String {
        // One allocation: this runs for every page, item and detail.
        String(unsafeUninitializedCapacity: 18) { buffer in
            buffer[0] = UInt8(ascii: "\"")
            var rest = hash
            for index in stride(from: 16, through: 1, by: -1) {
                let nibble = UInt8(truncatingIfNeeded: rest & 0xF)
                buffer[index] = nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
                rest >>= 4
            }
            buffer[17] = UInt8(ascii: "\"")
            return 18
        }
    }

    /// Whether an `If-None-Match` field value matches this tag: `*`, or a comma-separated list of entity tags
    /// that contains this one. RFC 9110 §13.1.2 compares weakly, so `W/"…"` matches too. A malformed member never
    /// matches (the request then gets the full response, which is always safe).
    func matches(ifNoneMatch value: String) -> Bool {
        var members = value.utf8[...]
        while !members.isEmpty {
            let member = members.prefix { $0 != UInt8(ascii: ",") }
            members = members.dropFirst(member.count + 1)
            var tag = member.drop { $0 == 0x20 || $0 == 0x09 }
            while let last = tag.last, last == 0x20 || last == 0x09 { tag = tag.dropLast() }
            if tag.elementsEqual("*".utf8) { return true }
            if tag.starts(with: "W/".utf8) { tag = tag.dropFirst(2) }
            if tag.elementsEqual(headerValue.utf8) { return true }
        }
        return false
    }
}
