/// Strings of the request JSON parser: validated in place when they have no escapes, decoded escape by escape (lone
/// surrogates refused, each error at its byte) when they do.
extension RequestJSONParser {
    /// Parses the string whose opening quote is at the index; leaves the index after its closing quote.
    ///
    /// The common case, a string without escapes, is validated in place and built with one `String(decoding:)`
    /// of its bytes; the first backslash hands over to ``parseEscapedString(from:)``.
    mutating func parseString() throws(RequestJSONError) -> String {
        index += 1
        let start = index
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                let string = String(decoding: bytes[start..<index], as: UTF8.self)
                index += 1
                return string
            case UInt8(ascii: "\\"):
                return try parseEscapedString(from: start)
            case 0..<0x20:
                throw controlCharacter()
            case 0..<0x80:
                index += 1
            default:
                index += try validScalarLength()
            }
        }
        throw RequestJSONError(offset: index, reason: "unterminated string")
    }

    /// Finishes a string that has escapes, its content from `start` to the index already validated.
    private mutating func parseEscapedString(from start: Int) throws(RequestJSONError) -> String {
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: bytes[start..<index])
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                return String(decoding: scratch, as: UTF8.self)
            case UInt8(ascii: "\\"):
                try appendEscape()
            case 0..<0x20:
                throw controlCharacter()
            case 0..<0x80:
                scratch.append(byte)
                index += 1
            default:
                let length = try validScalarLength()
                scratch.append(contentsOf: bytes[index..<index + length])
                index += length
            }
        }
        throw RequestJSONError(offset: index, reason: "unterminated string")
    }

    /// Decodes the escape at the index into ``scratch``: one of `\" \\ \/ \b \f \n \r \t`, or `\uXXXX`, a high
    /// surrogate escape being valid only when a low one follows at once (the pair is one scalar).
    private mutating func appendEscape() throws(RequestJSONError) {
        let escape = index
        guard index + 1 < bytes.count else {
            throw RequestJSONError(offset: bytes.count, reason: "unterminated string")
        }
        let letter = bytes[index + 1]
        index += 2
        switch letter {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scratch.append(letter)
        case UInt8(ascii: "b"): scratch.append(0x08)
        case UInt8(ascii: "f"): scratch.append(0x0C)
        case UInt8(ascii: "n"): scratch.append(0x0A)
        case UInt8(ascii: "r"): scratch.append(0x0D)
        case UInt8(ascii: "t"): scratch.append(0x09)
        case UInt8(ascii: "u"):
            let unit = try hexQuad(escape: escape)
            switch unit {
            case 0xD800...0xDBFF:
                guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
                else {
                    throw Self.loneSurrogate(unit, at: escape)
                }
                let lowEscape = index
                index += 2
                let low = try hexQuad(escape: lowEscape)
                guard (0xDC00...0xDFFF).contains(low) else {
                    throw Self.loneSurrogate(unit, at: escape)
                }
                appendUTF8(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))
            case 0xDC00...0xDFFF:
                throw Self.loneSurrogate(unit, at: escape)
            default:
                appendUTF8(unit)
            }
        default:
            let shown = (0x21...0x7E).contains(letter) ? String(Unicode.Scalar(letter)) : Self.codePoint(UInt32(letter))
            throw RequestJSONError(offset: escape, reason: "invalid escape \\\(shown)")
        }
    }

    /// The four hex digits at the index (of the `\u` escape at `escape`), moving past them.
    private mutating func hexQuad(escape: Int) throws(RequestJSONError) -> UInt32 {
        guard index + 4 <= bytes.count else {
            throw RequestJSONError(offset: escape, reason: "expected 4 hex digits after \\u")
        }
        var value: UInt32 = 0
        for byte in bytes[index..<index + 4] {
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw RequestJSONError(offset: escape, reason: "expected 4 hex digits after \\u")
            }
            value = value << 4 | UInt32(digit)
        }
        index += 4
        return value
    }

    private static func loneSurrogate(_ unit: UInt32, at offset: Int) -> RequestJSONError {
        RequestJSONError(offset: offset, reason: "lone surrogate \\u" + hex(unit, digits: 4, uppercase: false))
    }

    /// Appends the UTF-8 form of `scalar`, a code point that is not a surrogate, to ``scratch``.
    private mutating func appendUTF8(_ scalar: UInt32) {
        switch scalar {
        case 0..<0x80:
            scratch.append(UInt8(scalar))
        case 0x80..<0x800:
            scratch.append(0xC0 | UInt8(scalar >> 6))
            scratch.append(0x80 | UInt8(scalar & 0x3F))
        case 0x800..<0x10000:
            scratch.append(0xE0 | UInt8(scalar >> 12))
            scratch.append(0x80 | UInt8(scalar >> 6 & 0x3F))
            scratch.append(0x80 | UInt8(scalar & 0x3F))
        default:
            scratch.append(0xF0 | UInt8(scalar >> 18))
            scratch.append(0x80 | UInt8(scalar >> 12 & 0x3F))
            scratch.append(0x80 | UInt8(scalar >> 6 & 0x3F))
            scratch.append(0x80 | UInt8(scalar & 0x3F))
        }
    }

    private func controlCharacter() -> RequestJSONError {
        RequestJSONError(
            offset: index,
            reason: "control character \(Self.codePoint(UInt32(bytes[index]))) in a string must be escaped")
    }

    /// The length of the well-formed UTF-8 sequence of a non-ASCII scalar at the index, or `invalid UTF-8`.
    private func validScalarLength() throws(RequestJSONError) -> Int {
        guard let length = scalarLength(at: index) else {
            throw RequestJSONError(offset: index, reason: "invalid UTF-8")
        }
        return length
    }

    /// The length of the well-formed UTF-8 sequence of a non-ASCII scalar at `offset`, or nil.
    ///
    /// Well-formed by the Unicode Standard's table 3-7: no overlong forms (C0, C1, E0 80–9F, F0 80–8F), no
    /// encoded surrogates (ED A0–BF), nothing above U+10FFFF (F4 90–, F5–FF), no stray continuation bytes, and no
    /// sequence cut short by another byte or by the end of the body.
    func scalarLength(at offset: Int) -> Int? {
        let lead = bytes[offset]
        let length: Int
        var secondRange: ClosedRange<UInt8> = 0x80...0xBF
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0: (length, secondRange) = (3, 0xA0...0xBF)
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED: (length, secondRange) = (3, 0x80...0x9F)
        case 0xF0: (length, secondRange) = (4, 0x90...0xBF)
        case 0xF1...0xF3: length = 4
        case 0xF4: (length, secondRange) = (4, 0x80...0x8F)
        default: return nil
        }
        guard offset + length <= bytes.count, secondRange.contains(bytes[offset + 1]) else {
            return nil
        }
        for continuation in bytes[offset + 2..<offset + length] where continuation & 0xC0 != 0x80 {
            return nil
        }
        return length
    }
}
