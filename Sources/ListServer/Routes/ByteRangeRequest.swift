/// A request's `Range: bytes=…` field and its `If-Range` (RFC 9110 §14.1.2, §13.1.5), for a body whose bytes are all
/// at hand: what image routes answer with 206, 416 or the whole body.
///
/// One range only: `first-last`, `first-` or `-suffix`. RFC 9110 lets a server ignore a `Range` field, and this one
/// ignores a field of another unit, a malformed one, and one of several ranges (a client gets the whole body, 200,
/// rather than a `multipart/byteranges` answer few clients read). Written by hand: a few lines of digits and a dash,
/// on every image request that has the field.
struct ByteRangeRequest: Sendable, Equatable {
    /// The range as the field wrote it.
    enum Spec: Sendable, Equatable {
        /// `first-last` (both inclusive; `last` may lie past the end).
        case span(first: Int, last: Int)
        /// `first-`: from `first` to the end.
        case from(Int)
        /// `-count`: the last `count` bytes.
        case suffix(Int)
    }

    let spec: Spec
    /// `If-Range`, when sent: the range applies only while it is the body's (strong) `ETag`.
    let ifRange: String?

    /// What to answer.
    enum Answer: Sendable, Equatable {
        /// 200 with the whole body (the `If-Range` no longer matches).
        case whole
        /// 206 with these bytes.
        case part(Range<Int>)
        /// 416: no byte of the body is in the range.
        case unsatisfiable
    }

    /// The range `headers` ask for; nil for none and for a field this server ignores.
    init?(_ headers: HTTPHeaders) {
        guard let field = headers["Range"], let spec = Self.spec(field) else { return nil }
        self.spec = spec
        ifRange = headers["If-Range"]
    }

    init(spec: Spec, ifRange: String? = nil) {
        self.spec = spec
        self.ifRange = ifRange
    }

    /// The answer for a body of `length` bytes whose strong entity tag is `etag` (as its `ETag` field writes it).
    /// An `If-Range` that is not that tag, strongly compared (a weak tag or a date never matches: these bodies have
    /// no `Last-Modified`), asks for the whole body.
    func answer(length: Int, etag: String) -> Answer {
        if let ifRange, ifRange[...].trimmingASCIIWhitespace() != etag[...] || etag.hasPrefix("W/") {
            return .whole
        }
        switch spec {
        case .span(let first, let last):
            guard first < length else { return .unsatisfiable }
            return .part(first..<min(last, length - 1) + 1)
        case .from(let first):
            guard first < length else { return .unsatisfiable }
            return .part(first..<length)
        case .suffix(let count):
            guard count > 0, length > 0 else { return .unsatisfiable }
            return .part(max(0, length - count)..<length)
        }
    }

    /// The `Content-Range` of `part` of a body of `length` bytes (`bytes 0-99/2000`), or of an unsatisfiable range
    /// (`bytes */2000`) for nil.
    static func contentRange(_ part: Range<Int>?, length: Int) -> String {
        guard let part else { return "bytes */\(length)" }
        return "bytes \(part.lowerBound)-\(part.upperBound - 1)/\(length)"
    }

    /// The one range of a `bytes=` field; nil for another unit, malformed syntax, a first position after the last,
    /// or more than one range.
    static func spec(_ field: String) -> Spec? {
        let text = field[...].trimmingASCIIWhitespace()
        guard let equals = text.firstIndex(of: "="),
            HTTPHeaders.equalIgnoringASCIICase(text[..<equals].trimmingASCIIWhitespace().utf8, "bytes".utf8)
        else { return nil }
        // A list's empty elements (`bytes=0-1,`) do not count; more than one range is answered whole.
        let ranges = text[text.index(after: equals)...].split(separator: ",").map { $0.trimmingASCIIWhitespace() }
            .filter { !$0.isEmpty }
        guard ranges.count == 1, let dash = ranges[0].firstIndex(of: "-") else { return nil }
        let range = ranges[0]
        let firstText = range[..<dash]
        let lastText = range[range.index(after: dash)...]
        if firstText.isEmpty {
            return position(lastText).map(Spec.suffix)
        }
        guard let first = position(firstText) else { return nil }
        if lastText.isEmpty { return .from(first) }
        guard let last = position(lastText), first <= last else { return nil }
        return .span(first: first, last: last)
    }

    /// `1*DIGIT` as a position, saturating at `Int.max` (a position past any body is still a well-formed one):
    /// the query's digits (``Swift/UInt64/init(plainDecimal:)``), where all-digit text too long for them is `.max`.
    private static func position(_ text: Substring) -> Int? {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 &- UInt8(ascii: "0") < 10 }) else { return nil }
        return UInt64(plainDecimal: text).map { Int(clamping: $0) } ?? .max
    }
}
