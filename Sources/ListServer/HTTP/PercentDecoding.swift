/// Why a percent-encoded component could not be decoded.
enum PercentDecodingError: Error, Sendable, Equatable {
    /// A `%` not followed by two hexadecimal digits (`%zz`, `%4`, a trailing `%`).
    case malformedEscape
    /// `%00`: a NUL byte has no business in a path or a parameter.
    case nul
    /// The decoded bytes are not valid UTF-8 (e.g. `%C3` alone, or `%FF`).
    case invalidUTF8

    /// What is wrong, as a phrase that completes "the value …" in a problem detail.
    var phrase: String {
        switch self {
        case .malformedEscape: "has a \"%\" that is not followed by two hexadecimal digits"
        case .nul: "encodes a NUL byte (%00)"
        case .invalidUTF8: "does not decode to valid UTF-8"
        }
    }
}

/// Percent-decoding of request-target components (RFC 3986 §2.1).
///
/// Path segments decode `%XX` only; query names and values also read `+` as a space, as browsers and
/// `application/x-www-form-urlencoded` write them. Components without `%` (or `+`) take a fast path that only copies.
enum PercentDecoding {
    /// Decodes `raw`.
    ///
    /// - Parameters:
    ///   - raw: The still-encoded component (a path segment, a query name or a query value).
    ///   - plusAsSpace: Whether `+` means a space (query components) or itself (path segments).
    /// - Returns: The decoded text.
    /// - Throws: ``PercentDecodingError`` for a malformed escape, `%00`, or bytes that are not UTF-8.
    static func decode(_ raw: Substring, plusAsSpace: Bool) throws(PercentDecodingError) -> String {
        let utf8 = raw.utf8
        let needsDecoding = utf8.contains { $0 == UInt8(ascii: "%") || (plusAsSpace && $0 == UInt8(ascii: "+")) }
        guard needsDecoding else { return String(raw) }

        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count)
        var index = utf8.startIndex
        while index != utf8.endIndex {
            let byte = utf8[index]
            utf8.formIndex(after: &index)
            switch byte {
            case UInt8(ascii: "%"):
                guard index != utf8.endIndex, let high = hexValue(utf8[index]) else { throw .malformedEscape }
                utf8.formIndex(after: &index)
                guard index != utf8.endIndex, let low = hexValue(utf8[index]) else { throw .malformedEscape }
                utf8.formIndex(after: &index)
                let decoded = high << 4 | low
                guard decoded != 0 else { throw .nul }
                bytes.append(decoded)
            case UInt8(ascii: "+") where plusAsSpace:
                bytes.append(UInt8(ascii: " "))
            default:
                bytes.append(byte)
            }
        }
        guard let text = String(validating: bytes, as: UTF8.self) else { throw .invalidUTF8 }
        return text
    }

    /// The value of one hexadecimal digit (either case), or nil.
    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
