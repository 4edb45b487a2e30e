extension RequestJSONParser {
    /// Parses the number that starts at the index (a `-` or a digit); leaves the index after it.
    ///
    /// The grammar is RFC 8259's: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`. An integer literal must fit
    /// `Int64`; any other literal must round to a finite `Double` (underflow to zero is fine). Both are refused with
    /// `number out of range` at the number's first byte.
    mutating func parseNumber() throws(RequestJSONError) -> JSONNumber {
        let start = index
        let negative = bytes[index] == UInt8(ascii: "-")
        if negative {
            index += 1
        }
        guard index < bytes.count, isDigit(bytes[index]) else {
            if bytes[index...].starts(with: "Infinity".utf8) {
                throw RequestJSONError(offset: index, reason: "NaN and Infinity are not JSON numbers")
            }
            throw unexpected(expecting: "a digit after '-'")
        }
        // The magnitude of an integer literal, accumulated as it is read; `overflow` once it passes 64 bits.
        var magnitude: UInt64 = 0
        var overflow = false
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            if index < bytes.count, isDigit(bytes[index]) {
                throw RequestJSONError(offset: index, reason: "a number cannot have leading zeros")
            }
        } else {
            while index < bytes.count, isDigit(bytes[index]) {
                let (times10, carry) = magnitude.multipliedReportingOverflow(by: 10)
                let (sum, carried) = times10.addingReportingOverflow(UInt64(bytes[index] - UInt8(ascii: "0")))
                magnitude = sum
                overflow = overflow || carry || carried
                index += 1
            }
        }
        var isInteger = true
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            try skipDigits(expecting: "a digit after '.'")
        }
        if index < bytes.count, bytes[index] | 0x20 == UInt8(ascii: "e") {
            isInteger = false
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                index += 1
            }
            try skipDigits(expecting: "a digit in the exponent")
        }

        let literal = String(decoding: bytes[start..<index], as: UTF8.self)
        if isInteger {
            // Int64.min's magnitude is one more than Int64.max's.
            let limit = UInt64(Int64.max) + (negative ? 1 : 0)
            guard !overflow, magnitude <= limit else {
                throw RequestJSONError(offset: start, reason: "number out of range")
            }
            return JSONNumber(literal: literal, integer: Int64(bitPattern: negative ? 0 &- magnitude : magnitude))
        }
        guard let value = Double(literal), value.isFinite else {
            throw RequestJSONError(offset: start, reason: "number out of range")
        }
        return JSONNumber(literal: literal, double: value)
    }

    /// Moves past one or more digits, or fails with `expected`.
    private mutating func skipDigits(expecting expected: String) throws(RequestJSONError) {
        guard index < bytes.count, isDigit(bytes[index]) else {
            throw unexpected(expecting: expected)
        }
        while index < bytes.count, isDigit(bytes[index]) {
            index += 1
        }
    }

    private func isDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }

    /// Parses `true`, `false` or `null` at the index, or says why what is there cannot start a value.
    ///
    /// A word is read whole (`truex` is not `true` followed by junk), and the usual non-JSON spellings get a reason
    /// of their own: single quotes, comments, `+1`, `.5`, `NaN` and `Infinity`.
    mutating func parseLiteral() throws(RequestJSONError) -> RequestJSON {
        let start = index
        switch bytes[start] {
        case UInt8(ascii: "'"):
            throw RequestJSONError(offset: start, reason: "strings take double quotes, not single quotes")
        case UInt8(ascii: "/"):
            throw RequestJSONError(offset: start, reason: "comments are not allowed")
        case UInt8(ascii: "+"):
            throw RequestJSONError(offset: start, reason: "a number cannot start with '+'")
        case UInt8(ascii: "."):
            throw RequestJSONError(offset: start, reason: "a number cannot start with '.'")
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"):
            break
        default:
            throw unexpected(expecting: "a value")
        }
        var end = start
        while end < bytes.count, (bytes[end] | 0x20) >= UInt8(ascii: "a"), (bytes[end] | 0x20) <= UInt8(ascii: "z") {
            end += 1
        }
        let word = bytes[start..<end]
        let value: RequestJSON
        if word.elementsEqual("true".utf8) {
            value = .bool(true)
        } else if word.elementsEqual("false".utf8) {
            value = .bool(false)
        } else if word.elementsEqual("null".utf8) {
            value = .null
        } else if word.elementsEqual("NaN".utf8) || word.elementsEqual("Infinity".utf8) {
            throw RequestJSONError(offset: start, reason: "NaN and Infinity are not JSON numbers")
        } else {
            let shown = Problem.quoted(String(decoding: word, as: UTF8.self))
            throw RequestJSONError(offset: start, reason: "expected a value, got \(shown)")
        }
        index = end
        return value
    }
}
