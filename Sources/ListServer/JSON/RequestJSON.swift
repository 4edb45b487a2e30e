// Why a hand-written parser for every request body (and the configuration file) rather than Foundation's
// `JSONDecoder`:
//
// - Strictness the write endpoints need and Foundation does not give: `JSONSerialization` and `JSONDecoder` keep one
//   of two duplicate keys without a word (`{"likes":1,"likes":2}` would write an unseen value), accept a lone
//   surrogate escape such as `\ud800` (turning it into U+FFFD or failing without saying where), and report errors
//   without a byte offset a client can act on. Here every rejection says where (``RequestJSONError/offset``) and why.
// - No Foundation on the body path: the list path and the body path stay pure Swift, so the server does not carry
//   Foundation's JSON machinery for two small objects per write.
// - Speed: it parses every write request. One pass over the bytes with an index, no allocation per byte, each string
//   built once (straight from the bytes when it has no escapes), and no recursion: nesting lives in an explicit
//   stack, so the depth limit, not the call stack, bounds what a body can do.

/// A JSON document parsed strictly by RFC 8259 from a request body; see ``parse(_:maxDepth:)``.
///
/// Object members keep their order. Equality is exact: strings and keys compare by Unicode scalars (not by Swift
/// `String`'s canonical equivalence, so `"é"` as one scalar differs from `"e\u0301"`), numbers by their literal text
/// (``JSONNumber``), and objects member by member in order.
///
/// Not `indirect`: arrays already box their elements, so an array of a million numbers is one buffer of enum values
/// rather than a million boxes.
package enum RequestJSON: Sendable, Equatable {
    /// An object: its members in document order, keys unique by Unicode scalars.
    case object([(key: String, value: RequestJSON)])
    case array([RequestJSON])
    case string(String)
    case number(JSONNumber)
    case bool(Bool)
    case null

    /// Parses `bytes`, a whole request body, as one JSON value.
    ///
    /// Accepts exactly RFC 8259 JSON text in UTF-8, and refuses what lenient parsers let through: a byte order mark,
    /// comments, single quotes, trailing commas, `NaN` and `Infinity`, leading zeros, `+1`, `.5`, `1.`, control
    /// characters in strings, ill-formed UTF-8 (overlong forms, encoded surrogates, values above U+10FFFF, truncated
    /// sequences), lone surrogate escapes, duplicate keys in one object (compared by Unicode scalars after
    /// unescaping), integers outside `Int64`, non-integers that do not round to a finite `Double`, and anything but
    /// space, tab, CR and LF between tokens. Runs in time linear in `bytes.count` and never recurses.
    ///
    /// - Parameters:
    ///   - bytes: The body.
    ///   - maxDepth: How deeply objects and arrays may nest: a top-level `{}` or `[]` is depth 1, so 0 allows only a
    ///     scalar. Keep it small (tens): comparing or releasing a value recurses once per level.
    /// - Throws: ``RequestJSONError`` with the byte offset of the first byte that cannot be accepted (for ill-formed
    ///   UTF-8, the first byte of the ill-formed sequence; for a number out of range, its first byte).
    package static func parse(_ bytes: [UInt8], maxDepth: Int) throws(RequestJSONError) -> RequestJSON {
        var parser = RequestJSONParser(bytes: bytes, maxDepth: maxDepth)
        return try parser.parseDocument()
    }

    package static func == (lhs: RequestJSON, rhs: RequestJSON) -> Bool {
        switch (lhs, rhs) {
        case (.object(let left), .object(let right)):
            left.count == right.count
                && zip(left, right).allSatisfy { sameScalars($0.key, $1.key) && $0.value == $1.value }
        case (.array(let left), .array(let right)): left == right
        case (.string(let left), .string(let right)): sameScalars(left, right)
        case (.number(let left), .number(let right)): left == right
        case (.bool(let left), .bool(let right)): left == right
        case (.null, .null): true
        default: false
        }
    }

    /// Whether `left` and `right` are the same Unicode scalars, that is the same UTF-8 bytes.
    ///
    /// Compared through spans: `elementsEqual` on two `UTF8View`s walks them an index at a time, and was the largest
    /// single cost of a POST body in `ListBenchmarks` (keys are compared with each field name).
    static func sameScalars(_ left: String, _ right: String) -> Bool {
        guard left.utf8.count == right.utf8.count else { return false }
        let left = left.utf8.span
        let right = right.utf8.span
        for index in left.indices where left[index] != right[index] {
            return false
        }
        return true
    }
}

/// Why a request body is not acceptable JSON, and where.
package struct RequestJSONError: Error, Equatable, CustomStringConvertible {
    /// The 0-based byte offset in the body where parsing stopped.
    package let offset: Int
    /// A short reason for a human, such as `expected ',' or '}'`.
    package let reason: String

    package init(offset: Int, reason: String) {
        self.offset = offset
        self.reason = reason
    }

    /// `byte 12: expected ',' or '}'`.
    package var description: String { "byte \(offset): \(reason)" }
}
