/// Header fields as ordered (name, value) pairs, looked up case-insensitively.
///
/// Names keep the spelling they were added with; lookups compare names ASCII-case-insensitively without allocating.
/// A name may occur more than once (e.g. two `Cache-Control` fields); ``subscript(_:)`` returns the first value and
/// ``values(for:)`` all of them.
package struct HTTPHeaders: Sendable, Equatable, Sequence, ExpressibleByDictionaryLiteral {
    /// One header field.
    package typealias Element = (name: String, value: String)

    /// Stored as a struct rather than as `Element` tuples: an array of tuples is copied and destroyed through the
    /// runtime's generic tuple witnesses, field by field (about 1,800 instructions a write for the request's and the
    /// answer's fields, callgrind); a struct's witnesses are compiled.
    fileprivate struct Field: Sendable {
        var name: String
        var value: String
    }

    private var fields: [Field]

    /// Creates empty header fields.
    package init() {
        fields = []
    }

    /// Creates empty header fields with room for `capacity` fields: a response's own fields and the ones every
    /// response gets (``Router/route(_:)``) without growing the storage on the way.
    init(capacity: Int) {
        fields = []
        fields.reserveCapacity(capacity)
    }

    /// Creates header fields from (name, value) pairs, in order.
    init(_ pairs: [(String, String)]) {
        fields = pairs.map { Field(name: $0.0, value: $0.1) }
    }

    /// Creates header fields from a literal, in order: `["Cache-Control": "no-cache"]`.
    package init(dictionaryLiteral elements: (String, String)...) {
        self.init(elements)
    }

    /// The number of fields, counting repeated names.
    var count: Int { fields.count }

    /// How many fields fit before the storage grows.
    var capacity: Int { fields.capacity }

    /// Makes room for `count` fields in all, so that adding them does not grow the storage again.
    mutating func reserveCapacity(_ count: Int) {
        fields.reserveCapacity(count)
    }

    /// Appends a field, keeping any existing fields of the same name.
    package mutating func add(_ name: String, _ value: String) {
        fields.append(Field(name: name, value: value))
    }

    /// Replaces the value of every field called `name` (any case) with what `transform` makes of it.
    mutating func transformValues(of name: String, _ transform: (String) -> String) {
        for index in fields.indices where Self.namesMatch(fields[index].name, name) {
            fields[index].value = transform(fields[index].value)
        }
    }

    /// The value of the first field called `name` (any case), or nil.
    ///
    /// By index, comparing each name where it lies: `fields.first { … }` copied each field out, a retain and a release
    /// of its strings per field. Lengths first, then `==`, then case-insensitively, as ``values(_:_:_:)``: an
    /// answer's `Content-Type`, looked up for every page, cost 365 instructions with the generic comparison alone.
    package subscript(name: String) -> String? {
        let count = name.utf8.count
        for index in fields.indices
        where fields[index].name.utf8.count == count && Self.sameName(fields[index].name, name) {
            return fields[index].value
        }
        return nil
    }

    /// The values of the first fields called `first` and `second` (any case), found in one pass over the fields, by
    /// index and lengths first, as ``values(_:_:_:)``: every request's conditions and every answer's coding are
    /// looked up so, and `for field in fields` copied each field out (738 instructions a page, callgrind).
    package func values(_ first: String, _ second: String) -> (String?, String?) {
        let counts = (first.utf8.count, second.utf8.count)
        var found: (String?, String?) = (nil, nil)
        for index in fields.indices {
            let count = fields[index].name.utf8.count
            if count == counts.0, found.0 == nil, Self.sameName(fields[index].name, first) {
                found.0 = fields[index].value
            } else if count == counts.1, found.1 == nil, Self.sameName(fields[index].name, second) {
                found.1 = fields[index].value
            }
            if found.0 != nil && found.1 != nil { break }
        }
        return found
    }

    /// The values of the first fields called `first`, `second` and `third` (any case), found in one pass over the
    /// fields, by index. Lengths first, then `==` (fields are mostly spelled as asked, and it compares small strings
    /// whole), then case-insensitively.
    func values(_ first: String, _ second: String, _ third: String) -> (String?, String?, String?) {
        let counts = (first.utf8.count, second.utf8.count, third.utf8.count)
        var found: (String?, String?, String?) = (nil, nil, nil)
        for index in fields.indices {
            let count = fields[index].name.utf8.count
            if count == counts.0, found.0 == nil, Self.sameName(fields[index].name, first) {
                found.0 = fields[index].value
            } else if count == counts.1, found.1 == nil, Self.sameName(fields[index].name, second) {
                found.1 = fields[index].value
            } else if count == counts.2, found.2 == nil, Self.sameName(fields[index].name, third) {
                found.2 = fields[index].value
            }
            if found.0 != nil && found.1 != nil && found.2 != nil { break }
        }
        return found
    }

    /// Where the first fields called `ETag` and `Content-Type` are, and `Retry-After` when `retryAfter` (any case),
    /// in one pass: what the journal reads of every answer (``JournalSlot``), by place for ``value(at:)``. As
    /// ``values(_:_:_:)``, but a name of the same length spelled otherwise is compared in any case only when its
    /// first byte matches: a page's `Link` and `Vary` against `ETag`, compared in full, cost more than the rest of the
    /// pass (callgrind, a page: 384 instructions with ``values(_:_:_:)``, 313 so, 191 with ``isNamed(_:_:)``'s words).
    /// Places, not values: each value handed out was a retain and a release (about 70 instructions a page).
    func journalFields(retryAfter: Bool) -> (etag: Int?, contentType: Int?, retryAfter: Int?) {
        var found: (Int?, Int?, Int?) = (nil, nil, nil)
        for index in fields.indices {
            switch fields[index].name.utf8.count {
            case 4 where found.0 == nil && Self.isNamed(fields[index].name, "ETag"): found.0 = index
            case 12 where found.1 == nil && Self.isNamed(fields[index].name, "Content-Type"): found.1 = index
            case 11 where retryAfter && found.2 == nil && Self.isNamed(fields[index].name, "Retry-After"):
                found.2 = index
            default: continue
            }
            if found.0 != nil && found.1 != nil && (found.2 != nil || !retryAfter) { break }
        }
        return found
    }

    /// What the journal reads of every request (``JournalSlot``), in one pass by lengths, with no value copied: where
    /// the first `X-Dataset` and the first `X-Client-Id` that is not empty are (any case), for ``value(at:)``, and
    /// whether the request has any of the fields list clients send now and then (`Range`, `If-Match`,
    /// `If-None-Match`, `Last-Event-ID`, `Idempotency-Key`), looked up by name only then. Six optional values
    /// gathered in a closure cost a copy and a destroy each (callgrind: 200 instructions a page).
    func journalRequestFields() -> (dataset: Int?, client: Int?, rare: Bool) {
        var found: (dataset: Int?, client: Int?, rare: Bool) = (nil, nil, false)
        for index in fields.indices {
            switch fields[index].name.utf8.count {
            case 9 where found.dataset == nil && Self.isNamed(fields[index].name, "X-Dataset"): found.dataset = index
            case 11
            where found.client == nil && !fields[index].value.isEmpty
                && Self.isNamed(fields[index].name, "X-Client-Id"):
                found.client = index
            case 5 where Self.isNamed(fields[index].name, "Range"),
                8 where Self.isNamed(fields[index].name, "If-Match"),
                13
            where Self.isNamed(fields[index].name, "If-None-Match")
                || Self.isNamed(fields[index].name, "Last-Event-ID"),
                15 where Self.isNamed(fields[index].name, "Idempotency-Key"):
                found.rare = true
            default: continue
            }
        }
        return found
    }

    /// The value of the field at `index` (a place ``journalFields(retryAfter:)`` or ``journalRequestFields()``
    /// found).
    func value(at index: Int) -> String { fields[index].value }

    /// `body` of the value of the field at `index`, read where it lies (no copy of it, nor its reference count).
    func withValue<Result>(at index: Int, _ body: (borrowing String) -> Result) -> Result { body(fields[index].value) }

    /// Whether the value of the field at `index` is `expected`, compared where it lies.
    func value(at index: Int, is expected: String) -> Bool { fields[index].value == expected }

    /// Whether `name` is `wanted` (an ASCII name), of the same length and not empty, in any case. The two words each
    /// string is made of are compared first: field names are mostly small strings (up to 15 bytes of UTF-8 kept in
    /// those words, with their count: the standard library's `_StringObject` layout on 64-bit Linux), and two small
    /// strings are equal exactly when their words are; two small names whose first bytes differ in any case are no
    /// match. Only the rest is compared by `==` and in any case, with calls: `==` calls out for two strings that
    /// differ, and so did `utf8.first` and the subscript (70 instructions a field of the same length and another
    /// name, callgrind). Any other string (a heap one, a name with other words) goes on to those comparisons.
    private static func isNamed(_ name: String, _ wanted: String) -> Bool {
        #if os(Linux) && (arch(x86_64) || arch(arm64))
            let (nameWords, wantedWords) = (words(name), words(wanted))
            if nameWords == wantedWords { return true }
            // The first bytes, `| 0x20`: equal for two bytes equal in any case (it lowercases a letter); equal for some
            // others too, which only sends them on to the full comparison.
            if isSmall(nameWords) && isSmall(wantedWords)
                && (nameWords.0 | 0x20) & 0xFF != (wantedWords.0 | 0x20) & 0xFF
            {
                return false
            }
        #endif
        return name == wanted || namesMatch(name, wanted)
    }

    #if os(Linux) && (arch(x86_64) || arch(arm64))
        /// The two words `string` is made of (`_StringObject`'s raw bits); for a small string, the first holds its
        /// first bytes, the first byte lowest.
        @inline(__always) private static func words(_ string: String) -> (UInt64, UInt64) {
            unsafeBitCast(string, to: (UInt64, UInt64).self)
        }

        /// Whether `words` are a small string's (the discriminator's "is small" bit, the second word's bit 61).
        @inline(__always) private static func isSmall(_ words: (UInt64, UInt64)) -> Bool {
            words.1 & (1 << 61) != 0
        }
    #endif

    /// Whether `name` is `wanted`, in any case; `==` first.
    private static func sameName(_ name: String, _ wanted: String) -> Bool {
        name == wanted || namesMatch(name, wanted)
    }

    /// The values of every field called `name` (any case), in order.
    func values(for name: String) -> [String] {
        fields.filter { Self.namesMatch($0.name, name) }.map(\.value)
    }

    /// Whether any field called `name` lists the directive `token` (RFC 9110 §5.6.1 comma-separated list).
    ///
    /// Directives compare ASCII-case-insensitively and any `=argument` is ignored, so
    /// `listsDirective("no-cache", in: "Cache-Control")` is true for `max-age=0, No-Cache`.
    func listsDirective(_ token: String, in name: String) -> Bool {
        for field in fields where Self.namesMatch(field.name, name) {
            for element in field.value.utf8.split(separator: UInt8(ascii: ",")) {
                let directive = element.prefix { $0 != UInt8(ascii: "=") }.trimmingOptionalWhitespace
                if Self.equalIgnoringASCIICase(directive, token.utf8) {
                    return true
                }
            }
        }
        return false
    }

    /// Iterates the fields in the order they were added.
    package func makeIterator() -> Iterator {
        Iterator(fields: fields.makeIterator())
    }

    /// The fields in the order they were added, as (name, value) pairs.
    package struct Iterator: IteratorProtocol {
        fileprivate var fields: IndexingIterator<[Field]>

        package mutating func next() -> Element? {
            fields.next().map { (name: $0.name, value: $0.value) }
        }
    }

    package var underestimatedCount: Int { fields.count }

    /// Equal when the same fields appear in the same order; names compare case-insensitively, values exactly.
    package static func == (lhs: HTTPHeaders, rhs: HTTPHeaders) -> Bool {
        lhs.fields.count == rhs.fields.count
            && zip(lhs.fields, rhs.fields).allSatisfy { namesMatch($0.name, $1.name) && $0.value == $1.value }
    }

    /// Whether two field names are equal ignoring ASCII case (field names are ASCII tokens, RFC 9110 §5.1).
    static func namesMatch(_ lhs: String, _ rhs: String) -> Bool {
        equalIgnoringASCIICase(lhs.utf8, rhs.utf8)
    }

    /// Whether two byte sequences are equal ignoring ASCII case (UTF-8 views of field names, media types, list
    /// members; their counts are O(1)).
    ///
    /// Lengths first, then the bytes in place when both are contiguous (always, for native strings): most header
    /// lookups end at the length, and the generic `elementsEqual` over two UTF-8 views took about 1,600
    /// instructions a request in header lookups and 1,100 a write in the `Content-Type` check (callgrind).
    static func equalIgnoringASCIICase(_ lhs: some Collection<UInt8>, _ rhs: some Collection<UInt8>) -> Bool {
        guard lhs.count == rhs.count else { return false }
        let inPlace = lhs.withContiguousStorageIfAvailable { left in
            rhs.withContiguousStorageIfAvailable { right in
                zip(left, right).allSatisfy { asciiLowercase($0) == asciiLowercase($1) }
            }
        }
        if let inPlace, let inPlace { return inPlace }
        return lhs.elementsEqual(rhs) { asciiLowercase($0) == asciiLowercase($1) }
    }

    /// `byte` lowercased if it is an ASCII capital letter.
    static func asciiLowercase(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte | 0x20 : byte
    }
}

extension HTTPHeaders: CustomStringConvertible {
    /// The fields as `Name: value` lines, for test failures and logs.
    package var description: String {
        fields.map { "\($0.name): \($0.value)" }.joined(separator: "\n")
    }
}

extension Substring.UTF8View {
    /// These bytes without the spaces and tabs around them: the optional whitespace around a field value or a list
    /// member (RFC 9110 §5.6.3), for every field this server reads by bytes.
    var trimmingOptionalWhitespace: Substring.UTF8View {
        let isWhitespace = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        var bytes = drop(while: isWhitespace)
        while let last = bytes.last, isWhitespace(last) { bytes = bytes.dropLast() }
        return bytes
    }
}
