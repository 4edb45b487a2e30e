import ListDomain

/// A strong entity tag (RFC 9110 §8.8.3) for a generated representation, and the `If-None-Match` check against it.
///
/// Every body ListServer serves is a pure function of a few integers (catalog version, seed, count, page, limit,
/// id…), so the tag hashes those instead of the body bytes: the same inputs give the same bytes, different bytes
/// come from different inputs, and no body is hashed on the hot path. The tag names the catalog version it was
/// made from, `"v2-9f86d081884c7d65"`: every tag changes after `POST /admin/reset`, so a client that revalidates
/// after a reset always gets a 200, and a client (or a person reading a log) can see which version it holds.
///
/// The inputs include a number for the kind of representation, so two routes with equal other inputs never share
/// a tag: 1 for a `/items` page by number, 2 for `/items/<id>`, 3 for a `/items` page by cursor, 4 for
/// `/items/<id>/detail`, 5 for an item's generated image (its size, colour, effects and format follow), 6 for an
/// uploaded one (its digest instead of the colour).
struct EntityTag: Sendable, Equatable {
    /// The catalog version the representation was made from.
    let version: UInt64
    /// The 64-bit hash of the version and the inputs.
    let hash: UInt64

    /// The tag of the representation determined by the catalog `version` and `inputs` (order matters).
    init(version: UInt64, _ inputs: UInt64...) {
        // "LSETAG" and a format number, raised when the bytes of the representations change for every input: 2 since
        // every item carries `blur_hash` (a client holding a page without it revalidated to a 304 and kept it).
        var hash: UInt64 = 0x4C53_4554_4147_0002
        hash = SplitMix64.mix((hash ^ version) &+ SplitMix64.gamma)
        for input in inputs {
            hash = SplitMix64.mix((hash ^ input) &+ SplitMix64.gamma)
        }
        self.version = version
        self.hash = hash
    }

    private init(version: UInt64, hash: UInt64) {
        self.version = version
        self.hash = hash
    }

    /// This tag with `inputs` added after the ones it was made from: `EntityTag(version: v, a).adding(b)` is
    /// `EntityTag(version: v, a, b)`.
    func adding(_ inputs: UInt64...) -> EntityTag {
        var hash = hash
        for input in inputs {
            hash = SplitMix64.mix((hash ^ input) &+ SplitMix64.gamma)
        }
        return EntityTag(version: version, hash: hash)
    }

    /// The tag of a page (by number or by cursor) of `state` holding `ids`, from the tag the same page of the
    /// generated list has (this one).
    ///
    /// While nothing in the list is deleted and no item on the page was written, the page is the generated one
    /// byte for byte, and so is its tag: a write to an item on another page leaves it alone. Otherwise the number of
    /// deletions and the highest revision on the page join in: within a version ids and deletions only ever grow,
    /// so those say which items the page holds, and a write gives its item the list's highest revision, so the tag
    /// changes exactly when an item on the page does (or a delete moves others onto it).
    func forPage(_ ids: some Sequence<UInt64>, of state: ListState) -> EntityTag {
        let revision = ids.lazy.map(state.revision(of:)).max() ?? 0
        guard !state.deleted.isEmpty || revision != 0 else { return self }
        return adding(UInt64(state.deleted.count), revision)
    }

    /// The field value: `v`, the version in decimal, `-`, the hash in 16 lowercase hex digits, all in quotes:
    /// `"v1-9f86d081884c7d65"`.
    var headerValue: String {
        let versionDigits = version.decimalDigitCount
        let count = 4 + versionDigits + 16  // at most 40: UInt64.max has 20 digits
        // Written on the stack, then copied into the String: one allocation, as this runs for every page, item
        // and detail.
        var bytes = InlineArray<40, UInt8>(repeating: 0)
        bytes[0] = UInt8(ascii: "\"")
        bytes[1] = UInt8(ascii: "v")
        var span = bytes.mutableSpan
        version.writeDecimal(into: &span, at: 2)
        bytes[2 + versionDigits] = UInt8(ascii: "-")
        var hashRest = hash
        for index in stride(from: count - 2, through: count - 17, by: -1) {
            let nibble = UInt8(truncatingIfNeeded: hashRest & 0xF)
            bytes[index] = nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
            hashRest >>= 4
        }
        bytes[count - 1] = UInt8(ascii: "\"")
        // Every byte is ASCII, so validation cannot fail.
        guard let utf8 = try? UTF8Span(validating: bytes.span.extracting(0..<count)) else {
            preconditionFailure("an entity tag is ASCII")
        }
        return String(copying: utf8)
    }

    /// Whether an `If-None-Match` field value matches this tag: `*`, or a comma-separated list of entity tags
    /// that contains this one. RFC 9110 §13.1.2 compares weakly, so `W/"…"` matches too. A malformed member never
    /// matches (the request then gets the full response, which is always safe).
    func matches(ifNoneMatch value: String) -> Bool {
        Self.ifNoneMatch(value, matches: headerValue)
    }

    /// Whether an `If-None-Match` field value matches the entity tag `tag` (a field value, quotes included):
    /// `*`, or a member equal to it, weakly (`W/` ignored).
    static func ifNoneMatch(_ value: String, matches tag: String) -> Bool {
        anyMember(of: value) { member in
            let opaque = member.starts(with: "W/".utf8) ? member.dropFirst(2) : member
            return member.elementsEqual("*".utf8) || opaque.elementsEqual(tag.utf8)
        }
    }

    /// Whether an `If-Match` field value matches this tag: `*`, or a comma-separated list of entity tags that holds
    /// this one. RFC 9110 §13.1.1 compares strongly, so a weak `W/"…"` never matches.
    func matches(ifMatch value: String) -> Bool {
        Self.anyMember(of: value) { tag in tag.elementsEqual("*".utf8) || tag.elementsEqual(headerValue.utf8) }
    }

    /// Whether `test` holds for a member of a comma-separated list (spaces and tabs around members trimmed).
    private static func anyMember(of value: String, _ test: (Substring.UTF8View) -> Bool) -> Bool {
        var members = value.utf8[...]
        while !members.isEmpty {
            let member = members.prefix { $0 != UInt8(ascii: ",") }
            members = members.dropFirst(member.count + 1)
            if test(member.trimmingOptionalWhitespace) { return true }
        }
        return false
    }

    /// The tag of an item as `GET /items/<id>` serves it: version, seed, id and, once written, its revision (so an
    /// item nobody wrote keeps the tag it always had).
    init(item revision: ItemRevision) {
        if revision.revision == 0 {
            self.init(version: revision.version, revision.seed, 2, revision.id)  // 2: `/items/<id>`
        } else {
            self.init(version: revision.version, revision.seed, 2, revision.id, revision.revision)
        }
    }

    /// How generated images are drawn and encoded, as part of their tags: raised whenever the bytes served for the
    /// same image change, so that a strong tag never names two files (servers of two builds behind one balancer
    /// among them). 2: JPEGs drawn as 4:2:0 planes (the same picture, but not always the same file as before).
    /// 3: PNGs filtered by `Sub` or `Up` only (the same pixels in another file). 4: photos of a landscape, the id
    /// on a plate in the corner (``PhotoScene``), where a gradient had the id large in the middle.
    static let generatedImageRevision: UInt64 = 4

    /// How uploads are re-encoded (scaled, with effects or in another format), as part of those variants' tags,
    /// for the same reason; an upload served as stored is its own file and its tag has none. 1: PNGs filtered by
    /// `Sub` or `Up` only (session 11; the tags before had no revision).
    static let reencodedUploadRevision: UInt64 = 1

    /// The tag of an item's image: 5 for a generated one (the drawing revision, its size, colour, effects and format
    /// follow), 6 for an upload (its digest instead of the colour: the same file gives the same tag in every dataset
    /// and replica; a re-encoded variant adds ``reencodedUploadRevision``).
    init(image spec: ImageSpec, format: ImageFormat, version: UInt64) {
        // A progressive JPEG far above the blur's bits: the tags of baseline images stay as they were.
        let effects = UInt64(spec.blur) << 1 | (spec.grayscale ? 1 : 0) | (spec.progressive ? 1 << 16 : 0)
        let formatIndex = UInt64(ImageFormat.allCases.firstIndex(of: format)!)
        if let upload = spec.upload {
            let digest = upload.image.digest
            let stored = EntityTag(
                version: version, 6, spec.id, UInt64(spec.width), UInt64(spec.height),
                UInt64(truncatingIfNeeded: digest >> 64), UInt64(truncatingIfNeeded: digest), effects, formatIndex)
            self = spec.isStoredUpload(as: format) ? stored : stored.adding(Self.reencodedUploadRevision)
        } else {
            self.init(
                version: version, 5, Self.generatedImageRevision, spec.id, UInt64(spec.width), UInt64(spec.height),
                UInt64(spec.color), effects, formatIndex)
        }
    }
}
