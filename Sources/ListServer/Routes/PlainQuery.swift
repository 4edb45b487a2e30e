import ListDomain

/// A query string of plain bytes read in place, pair by pair: what the list queries' fast paths
/// (``PageQuery/plain(_:paging:)``, ``ChatQuery/plain(_:paging:)``) read the common request with.
///
/// Plain bytes are RFC 3986's unreserved characters (letters, digits, `-`, `.`, `_`, `~`) and one `=` a pair: a
/// query of them means exactly what its bytes say, so nothing needs decoding or allocating. Anything else makes
/// ``forEachPair(_:_:)`` answer false, and the caller goes through the full reading, which accepts the query or
/// names the problem.
enum PlainQuery {
    /// Calls `body` with the name and the value of each non-empty pair, in order (a pair without `=` has an empty
    /// value); stops when `body` answers false. False when a byte is not plain or `body` stopped.
    @inline(__always)
    static func forEachPair(_ bytes: Span<UInt8>, _ body: (_ name: Range<Int>, _ value: Range<Int>) -> Bool) -> Bool {
        var start = 0
        while start < bytes.count {
            var end = start
            var equals = -1
            while end < bytes.count {
                let byte = bytes[end]
                if byte == UInt8(ascii: "&") { break }
                if byte == UInt8(ascii: "="), equals < 0 {
                    equals = end
                } else if !HTTPBytes.isUnreserved(byte) {  // a byte that means itself in a name or value
                    return false
                }
                end &+= 1
            }
            if end > start {
                let nameEnd = equals < 0 ? end : equals
                let valueStart = equals < 0 ? end : equals &+ 1
                guard body(start..<nameEnd, valueStart..<end) else { return false }
            }
            start = end &+ 1
        }
        return true
    }

    /// `bytes[value]` as a plain decimal integer (one or more digits, fitting 64 bits: as `UInt64(plainDecimal:)`
    /// reads it, a digit at a time with the same step), or nil.
    static func decimal(_ bytes: Span<UInt8>, _ value: Range<Int>) -> UInt64? {
        guard !value.isEmpty else { return nil }
        var number: UInt64 = 0
        for index in value {
            guard let next = number.appendingDecimalDigit(bytes[index]) else { return nil }
            number = next
        }
        return number
    }

    /// `bytes[value]` as `asc` or `desc`, or nil.
    static func listOrder(_ bytes: Span<UInt8>, _ value: Range<Int>) -> ListOrder? {
        if HTTPBytes.equals(bytes, value, "asc") { return .asc }
        if HTTPBytes.equals(bytes, value, "desc") { return .desc }
        return nil
    }
}
