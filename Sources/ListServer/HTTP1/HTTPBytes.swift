/// Byte classes and comparisons of HTTP/1.1 syntax (RFC 9110 §5.6, RFC 9112), on raw bytes, without allocating.
enum HTTPBytes {
    /// Carriage return, the first byte of CRLF.
    static let cr = UInt8(ascii: "\r")
    /// Line feed; alone it also ends a line (RFC 9112 §2.2).
    static let lf = UInt8(ascii: "\n")
    /// Space, the separator of the request line's parts.
    static let space = UInt8(ascii: " ")
    /// Horizontal tab, whitespace inside header lines (OWS).
    static let tab = UInt8(ascii: "\t")
    /// The colon that ends a field name.
    static let colon = UInt8(ascii: ":")

    /// The `tchar` bytes 0x00-0x3F as a bit set: `!#$%&'*+-.` and the digits.
    private static let tokenBitsLow: UInt64 = 0x03FF_6CFA_0000_0000
    /// The `tchar` bytes 0x40-0x7F as a bit set: the letters and `^_`|~`.
    private static let tokenBitsHigh: UInt64 = 0x57FF_FFFF_C7FF_FFFE

    /// Whether `byte` may appear in a token (a method or a field name):
    /// ``!#$%&'*+-.^_`|~``, digits and letters (RFC 9110 §5.6.2).
    @inline(__always)
    static func isToken(_ byte: UInt8) -> Bool {
        guard byte < 0x80 else { return false }
        let bits = byte < 0x40 ? tokenBitsLow : tokenBitsHigh
        return bits & (1 << UInt64(byte & 0x3F)) != 0
    }

    /// Whether `byte` is visible ASCII, 0x21...0x7E: what a request-target may hold.
    @inline(__always)
    static func isVisibleASCII(_ byte: UInt8) -> Bool {
        byte &- 0x21 < 0x5E
    }

    /// Whether `byte` may appear in a field value other than as whitespace: visible ASCII or obs-text (0x80...0xFF).
    @inline(__always)
    static func isFieldValueCharacter(_ byte: UInt8) -> Bool {
        byte > 0x20 && byte != 0x7F
    }

    /// Whether `byte` is optional whitespace (OWS): space or horizontal tab.
    @inline(__always)
    static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == space || byte == tab
    }

    /// Whether `byte` is one of RFC 3986's unreserved characters: letters, digits and `-._~`.
    @inline(__always)
    static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
            UInt8(ascii: "~"):
            true
        default: false
        }
    }

    /// Whether `byte` is an ASCII decimal digit.
    @inline(__always)
    static func isDigit(_ byte: UInt8) -> Bool {
        byte &- UInt8(ascii: "0") < 10
    }

    /// Whether `bytes[range]` is exactly `literal`, byte for byte (method names are case-sensitive).
    ///
    /// The literal is read through `utf8Start` and the span unchecked once the range is known to lie inside it:
    /// `withUTF8Buffer` took a closure and each `bytes[...]` a bounds check, which made a field name comparison
    /// cost about 200 instructions under callgrind (now a few per byte).
    @inline(__always)
    static func equals(_ bytes: Span<UInt8>, _ range: Range<Int>, _ literal: StaticString) -> Bool {
        guard literal.utf8CodeUnitCount == range.count, range.lowerBound >= 0, range.upperBound <= bytes.count
        else { return false }
        let expected = literal.utf8Start
        for offset in 0..<range.count where bytes[unchecked: range.lowerBound + offset] != expected[offset] {
            return false
        }
        return true
    }

    /// Whether `bytes[range]` is `lowercaseLiteral` ignoring ASCII case (field names, codings, URI schemes).
    ///
    /// - Parameter lowercaseLiteral: The expected text, all lowercase.
    @inline(__always)
    static func equalsIgnoringCase(
        _ bytes: Span<UInt8>,
        _ range: Range<Int>,
        _ lowercaseLiteral: StaticString
    ) -> Bool {
        guard lowercaseLiteral.utf8CodeUnitCount == range.count, range.lowerBound >= 0,
            range.upperBound <= bytes.count
        else { return false }
        let expected = lowercaseLiteral.utf8Start
        for offset in 0..<range.count
        where lowercased(bytes[unchecked: range.lowerBound + offset]) != expected[offset] {
            return false
        }
        return true
    }

    /// The byte at `offset` of `literal`.
    @inline(__always)
    static func byte(of literal: StaticString, at offset: Int) -> UInt8 {
        precondition(offset >= 0 && offset < literal.utf8CodeUnitCount)
        return literal.utf8Start[offset]
    }

    /// `byte` lowercased if it is an ASCII capital letter.
    @inline(__always)
    static func lowercased(_ byte: UInt8) -> UInt8 {
        byte &- UInt8(ascii: "A") < 26 ? byte | 0x20 : byte
    }

    /// The longest part of a client-supplied value quoted by ``quoted(_:)``, in bytes.
    static let quotedByteLimit = 64

    /// `bytes` in double quotes, safe to show in a `detail`, like ``Problem/quoted(_:)`` but on raw bytes:
    /// printable ASCII as is, `"` and `\` escaped, other ASCII as `\u{…}`, bytes 0x80...0xFF (which need not be
    /// UTF-8 here) as `\x{…}`, cut after ``quotedByteLimit`` bytes with `...`.
    static func quoted(_ bytes: some Collection<UInt8>) -> String {
        var result = "\""
        for byte in bytes.prefix(quotedByteLimit) {
            switch byte {
            case UInt8(ascii: "\""): result += "\\\""
            case UInt8(ascii: "\\"): result += "\\\\"
            case 0x20...0x7E: result.unicodeScalars.append(Unicode.Scalar(byte))
            case 0x80...: result += "\\x{" + String(byte, radix: 16) + "}"
            default: result += "\\u{" + String(byte, radix: 16) + "}"
            }
        }
        return result + (bytes.count > quotedByteLimit ? "\"..." : "\"")
    }

    /// `byte` as `0x..` in two upper-case hex digits, for details: `0x7F`.
    static func hex(_ byte: UInt8) -> String {
        let digits = String(byte, radix: 16, uppercase: true)
        return byte < 0x10 ? "0x0" + digits : "0x" + digits
    }
}

extension Span where Element == UInt8 {
    /// The bytes in `range`, copied: what a rejection quotes in its detail. Only rejections call it, so the
    /// accepting path never allocates.
    func copied(_ range: Range<Int>) -> [UInt8] {
        var copy: [UInt8] = []
        copy.reserveCapacity(range.count)
        for index in range {
            copy.append(self[index])
        }
        return copy
    }

    /// The bytes in `range`, copied (see ``copied(_:)-(Range<Int>)``).
    func copied(_ range: ClosedRange<Int>) -> [UInt8] {
        copied(range.lowerBound..<range.upperBound + 1)
    }
}
