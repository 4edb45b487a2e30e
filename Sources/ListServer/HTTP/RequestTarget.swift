/// A request-target split into its path and query, both still percent-encoded (RFC 9112 §3.2, RFC 3986 §3), and
/// decoded on demand into path segments (``segments(maximumCount:)``) and query parameters (``queryItems()``).
///
/// Accepts origin-form (`/items?page=2`) and absolute-form (`http://host/items?page=2`, as sent to proxies; RFC 9112
/// requires servers to accept it), keeping only the path and query of the latter. Anything else (`*`, `items`, an
/// empty target) is a 400 ``Problem``.
///
/// The path is split on raw `/` *before* decoding, so `%2F` inside a segment stays part of that segment:
/// `/items%2F42` is the single segment `items/42`, not the item route.
///
/// A path that starts with `/d/<name>` names dataset `<name>` (``dataset``): the rest is the path routed (``path``)
/// and the prefix is the ``base`` every URL of the answer keeps, so `/d/run-42/items?page=2` is `/items?page=2` of
/// dataset `run-42`. The name is checked here (1–64 of `[A-Za-z0-9._-]`, not `.` or `..`, no escapes).
package struct RequestTarget: Sendable, Equatable {
    /// The path, still encoded, after the ``base``; starts with `/`, except for a target that is only a base
    /// (`/d/run-42`), whose path is empty.
    package private(set) var path: Substring
    /// How many bytes of `/d/<name>` come before ``path`` (0 without a base). A count rather than a `Substring` of
    /// its own: each copy of a target retains its substrings, and a fourth cost every request two more reference
    /// counts on each copy (callgrind, issue 33).
    private let baseLength: Int
    /// The query after the first `?`, still encoded; nil when the target has no `?`.
    let query: Substring?

    /// Splits `raw` into path and query.
    ///
    /// - Parameter raw: The request-target exactly as received.
    /// - Throws: A 400 ``Problem`` (`invalid-request-target`) for a target that is neither origin- nor absolute-form.
    package init(_ raw: String) throws(Problem) {
        // Delimiters are found byte-wise: a raw combining mark after "/" or "?" must not hide the delimiter
        // inside a Character.
        var rest = raw[...]
        if rest.utf8.first != UInt8(ascii: "/") {
            guard let afterScheme = Self.droppingHTTPScheme(rest) else {
                throw Problem(
                    .invalidRequestTarget,
                    detail: "the request target must be a path starting with \"/\", got \(Problem.quoted(raw))")
            }
            // Skip the authority: everything up to the path or query. An absolute URI with no path means "/".
            let pathStart =
                afterScheme.utf8.firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") }
                ?? afterScheme.endIndex
            rest = afterScheme[pathStart...]
            if rest.utf8.first != UInt8(ascii: "/") {
                rest = ("/" + rest)[...]
            }
        }
        if let questionMark = rest.utf8.firstIndex(of: UInt8(ascii: "?")) {
            path = rest[..<questionMark]
            query = rest[rest.utf8.index(after: questionMark)...]
        } else {
            path = rest
            query = nil
        }
        // Most targets have no base, which their first bytes say without a call: a split always called (and the
        // path sliced twice) cost about 150 instructions a request (callgrind).
        if rest.startIndex == raw.startIndex, !Self.startsWithBasePrefix(raw) {
            baseLength = 0
        } else {
            baseLength = try Self.baseLength(of: path)
            if baseLength > 0 { path = path[path.utf8.index(path.startIndex, offsetBy: baseLength)...] }
        }
    }

    /// Whether `raw` starts with `/d/`, read in place (true when it cannot be: the split then looks properly; the
    /// journal's dataset rule, ``Router/journalDataset(of:route:datasetField:)``, too).
    @inline(__always)
    static func startsWithBasePrefix(_ raw: String) -> Bool {
        raw.utf8.withContiguousStorageIfAvailable { bytes in
            bytes.count >= 3 && bytes[0] == UInt8(ascii: "/") && bytes[1] == UInt8(ascii: "d")
                && bytes[2] == UInt8(ascii: "/")
        } ?? true
    }

    /// `/d/<name>` when the target began with it, else empty.
    package var base: Substring {
        guard baseLength > 0 else { return "" }
        return path.base[path.base.utf8.index(path.startIndex, offsetBy: -baseLength)..<path.startIndex]
    }

    /// Whether the target began with a ``base``.
    package var hasBase: Bool { baseLength > 0 }

    /// The dataset the ``base`` names, or nil without one.
    package var dataset: Substring? {
        guard baseLength > 0 else { return nil }
        let base = self.base
        return base[base.utf8.index(base.startIndex, offsetBy: Self.basePrefix.utf8.count)...]
    }

    /// ``base`` as the bytes a ``JSONWriter`` writes before the server's own paths; nil without one.
    package var basePath: [UInt8]? { baseLength > 0 ? Array(base.utf8) : nil }

    /// What a path that names a dataset starts with.
    static let basePrefix = "/d/"

    /// The length of the `/d/<name>` `path` starts with; 0 when it does not start with `/d/`.
    ///
    /// - Throws: A 400 ``Problem`` (`invalid-request-target`) for a name that is empty, too long, has a byte outside
    ///   `[A-Za-z0-9._-]` (an escape included: no name needs one) or is `.` or `..` (which clients resolve away).
    private static func baseLength(of path: Substring) throws(Problem) -> Int {
        let utf8 = path.utf8
        guard utf8.starts(with: basePrefix.utf8) else { return 0 }
        let nameStart = utf8.index(utf8.startIndex, offsetBy: 3)
        let nameEnd = utf8[nameStart...].firstIndex(of: UInt8(ascii: "/")) ?? utf8.endIndex
        let name = path[nameStart..<nameEnd]
        guard DatasetName.isValid(name.utf8), name != ".", name != ".." else {
            throw Problem(
                .invalidRequestTarget,
                detail: "the dataset name in /d/<name>/ must be 1 to 64 of A-Z a-z 0-9 . _ - (not . or ..), got "
                    + Problem.quoted(name))
        }
        return utf8.distance(from: utf8.startIndex, to: nameEnd)
    }

    /// The decoded path segments (the text between slashes), or nil when there are more than `maximumCount`.
    ///
    /// `/items` is `["items"]`, `/items/42/detail` is `["items", "42", "detail"]`, `/` is `[""]` and `/items/` is
    /// `["items", ""]`; routes never match an empty segment, so trailing slashes are distinct, unknown paths.
    ///
    /// - Parameter maximumCount: The most segments any route has; longer paths are not decoded at all.
    /// - Throws: A 400 ``Problem`` (`invalid-request-target`) when a segment has broken percent-encoding, `%00` or
    ///   bytes that are not UTF-8.
    package func segments(maximumCount: Int) throws(Problem) -> [String]? {
        if let plain = path.utf8.withContiguousStorageIfAvailable({ Self.plainSegments($0, maximumCount) }),
            let segments = plain
        {
            return segments.value
        }
        let raw = path.utf8.dropFirst().split(
            separator: UInt8(ascii: "/"), maxSplits: maximumCount, omittingEmptySubsequences: false)
        guard raw.count <= maximumCount else { return nil }
        var decoded: [String] = []
        decoded.reserveCapacity(raw.count)
        for segmentBytes in raw {
            let segment = Substring(segmentBytes)
            do {
                decoded.append(try PercentDecoding.decode(segment, plusAsSpace: false))
            } catch {
                throw Problem(
                    .invalidRequestTarget,
                    detail: "the path segment \(Problem.quoted(segment)) \(error.phrase)")
            }
        }
        return decoded
    }

    /// The decoded query parameters, in order, repeats included; empty without a query.
    ///
    /// The query is split the way HTML forms and `URLSearchParams` write it: pairs are separated by `&`, a name from
    /// its value by the first `=`; `+` is a space in names and values alike; empty pairs (`a=1&&b=2`, a trailing `&`)
    /// are skipped and a bare `name` has the empty value. Every name and value must decode (no `%zz`, `%4`, `%00`,
    /// and the decoded bytes must be UTF-8), whether or not a route uses that parameter: a malformed query is
    /// malformed as a whole, and failing early keeps a mangled cache-buster from being silently read some other way.
    ///
    /// - Throws: ``QueryStringError`` for the first name or value that does not decode.
    package func queryItems() throws(QueryStringError) -> [QueryItem] {
        guard let query else { return [] }
        if let plain = query.utf8.withContiguousStorageIfAvailable(Self.plainQueryItems), let items = plain {
            return items
        }
        var items: [QueryItem] = []
        // Delimiters are found byte-wise, so a raw combining mark cannot merge with "&" or "=" into one Character.
        for pairBytes in query.utf8.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            let pair = Substring(pairBytes)
            let rawName: Substring
            let rawValue: Substring
            if let equals = pair.utf8.firstIndex(of: UInt8(ascii: "=")) {
                rawName = pair[..<equals]
                rawValue = pair[pair.utf8.index(after: equals)...]
            } else {
                rawName = pair
                rawValue = pair[pair.endIndex...]
            }
            let name: String
            do {
                name = try PercentDecoding.decode(rawName, plusAsSpace: true)
            } catch {
                throw QueryStringError(name: nil, raw: rawName, reason: error)
            }
            do {
                items.append(QueryItem(name: name, value: try PercentDecoding.decode(rawValue, plusAsSpace: true)))
            } catch {
                throw QueryStringError(name: name, raw: rawValue, reason: error)
            }
        }
        return items
    }

    /// The 400 for a query with a name or value that does not decode (`%zz`, `%00`, bytes that are not UTF-8), or nil.
    /// Only an escape can fail to decode, so a query without `%` costs one scan.
    var undecodableQueryProblem: Problem? {
        guard let query, query.utf8.contains(UInt8(ascii: "%")) else { return nil }
        do {
            _ = try queryItems()
            return nil
        } catch {
            return error.problem
        }
    }

    /// A result that may itself be nil, told apart from "no result": ``plainSegments(_:_:)``'s answer.
    struct Plain<Value> {
        let value: Value
    }

    /// ``segments(maximumCount:)`` of a path without `%`, straight from its bytes; nil when the path has a `%`.
    ///
    /// Such a segment decodes to itself, so each is one `String` made from its bytes (no allocation up to 15 bytes)
    /// rather than a generic `split` into slices, a scan of each slice for `%` and a copy: 2.4 % of the CPU of a
    /// cached detail and 2.1 % of an image hit, both under load (perf, issue 32). The path is valid UTF-8 and `/`
    /// is ASCII, so every segment is valid UTF-8 too.
    private static func plainSegments(_ bytes: UnsafeBufferPointer<UInt8>, _ maximumCount: Int) -> Plain<[String]?>? {
        var pieces = 1
        for byte in bytes.dropFirst() {
            if byte == UInt8(ascii: "%") { return nil }
            if byte == UInt8(ascii: "/") { pieces += 1 }
        }
        guard pieces <= maximumCount else { return Plain(value: nil) }
        var segments: [String] = []
        segments.reserveCapacity(pieces)
        var start = min(1, bytes.count)
        for index in start..<bytes.count where bytes[index] == UInt8(ascii: "/") {
            segments.append(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self))
            start = index + 1
        }
        segments.append(String(decoding: UnsafeBufferPointer(rebasing: bytes[start...]), as: UTF8.self))
        return Plain(value: segments)
    }

    /// ``queryItems()`` of a query without `%` or `+`, straight from its bytes; nil when it has either.
    ///
    /// Every name and value then decodes to itself and cannot fail (the same reasoning and measurements as
    /// ``plainSegments(_:_:)``: 1.7 % of an image hit's CPU went to splitting and scanning its query).
    private static func plainQueryItems(_ bytes: UnsafeBufferPointer<UInt8>) -> [QueryItem]? {
        guard !bytes.contains(where: { $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: "+") }) else { return nil }
        var items: [QueryItem] = []
        items.reserveCapacity(bytes.count { $0 == UInt8(ascii: "&") } + 1)
        var start = 0
        while start < bytes.count {
            let end = bytes[start...].firstIndex(of: UInt8(ascii: "&")) ?? bytes.count
            if end > start {  // empty pairs are skipped
                let equals = bytes[start..<end].firstIndex(of: UInt8(ascii: "=")) ?? end
                let name = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<equals]), as: UTF8.self)
                let valueStart = min(equals + 1, end)
                let value = String(decoding: UnsafeBufferPointer(rebasing: bytes[valueStart..<end]), as: UTF8.self)
                items.append(QueryItem(name: name, value: value))
            }
            start = end + 1
        }
        return items
    }

    /// `target` after a leading `http://` or `https://` (scheme in any case), or nil when it has neither.
    private static func droppingHTTPScheme(_ target: Substring) -> Substring? {
        for scheme in ["http://", "https://"] {
            let utf8 = target.utf8
            if utf8.count >= scheme.utf8.count,
                zip(utf8, scheme.utf8).allSatisfy({ HTTPHeaders.asciiLowercase($0) == $1 })
            {
                return target[utf8.index(utf8.startIndex, offsetBy: scheme.utf8.count)...]
            }
        }
        return nil
    }
}

/// One decoded query parameter.
package struct QueryItem: Sendable, Equatable {
    /// The decoded name.
    package var name: String
    /// The decoded value; empty for `name=` and for a bare `name`.
    package var value: String
}

/// A query parameter whose name or value could not be percent-decoded.
package struct QueryStringError: Error, Sendable, Equatable {
    /// The decoded name, or nil when the name itself is what failed to decode.
    var name: String?
    /// The part that failed to decode, as received.
    var raw: Substring
    /// Why it failed.
    var reason: PercentDecodingError
}
