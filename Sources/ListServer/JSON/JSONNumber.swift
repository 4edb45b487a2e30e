/// A JSON number from a request body: its literal text, and its value as an integer or a `Double`.
///
/// The parser builds one only from a valid literal that is in range: an integer literal (no fraction, no exponent)
/// fits `Int64`, and any other literal rounds to a finite `Double`. Two numbers are equal when their literals are
/// (`1.0` and `1` differ: only the second is an integer).
package struct JSONNumber: Sendable, Equatable, CustomStringConvertible {
    /// The literal as written, such as `-12`, `0.5` or `1e3`.
    package let literal: String
    private let value: Value

    private enum Value: Sendable, Equatable {
        case integer(Int64)
        case double(Double)
    }

    /// A number from an integer literal, `value` being what it says.
    package init(literal: String, integer value: Int64) {
        self.literal = literal
        self.value = .integer(value)
    }

    /// A number from a literal with a fraction or an exponent, `value` being its nearest `Double`.
    package init(literal: String, double value: Double) {
        self.literal = literal
        self.value = .double(value)
    }

    /// The value, when the literal is an integer literal: `7` and `-0` are integers, `7.0` and `7e0` are not.
    package var int: Int? {
        guard case .integer(let value) = value else { return nil }
        return Int(exactly: value)
    }

    /// The value as the nearest `Double`; always finite. `-0` is `-0.0`.
    package var double: Double {
        switch value {
        case .double(let value): value
        case .integer(0) where literal.utf8.first == UInt8(ascii: "-"): -0.0
        case .integer(let value): Double(value)
        }
    }

    /// The value when it is a whole number that fits `Int`, however it is written: `7`, `-0`, `7.0`, `7e0`, `0.7e1`
    /// and `700e-2` are all whole, as JSON Schema's `integer` has it (a number whose fractional part is zero); `7.5`,
    /// `1e-400` and `1.0000000000000000001` are not (decided on the literal's digits, exactly, not on a `Double`).
    package var wholeValue: Int? {
        if case .integer(let value) = value { return Int(exactly: value) }
        return Self.wholeValue(ofLiteral: Array(literal.utf8))
    }

    /// ``wholeValue`` for a valid literal with a fraction or an exponent.
    private static func wholeValue(ofLiteral bytes: [UInt8]) -> Int? {
        let negative = bytes.first == UInt8(ascii: "-")
        var digits: [UInt8] = []  // the significand's digits, integer part then fraction, as values 0-9
        var pointAfter = 0  // how many of `digits` come before the decimal point
        var index = negative ? 1 : 0
        var inFraction = false
        while index < bytes.count, bytes[index] | 0x20 != UInt8(ascii: "e") {
            if bytes[index] == UInt8(ascii: ".") {
                inFraction = true
            } else {
                digits.append(bytes[index] - UInt8(ascii: "0"))
                if !inFraction { pointAfter += 1 }
            }
            index += 1
        }
        // The exponent, clamped: past ±100,000 it cannot be offset by the digits of a body (64 KiB at most).
        var exponent = 0
        if index < bytes.count {
            index += 1
            let negativeExponent = bytes[index] == UInt8(ascii: "-")
            if bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+") { index += 1 }
            for byte in bytes[index...] {
                exponent = min(exponent * 10 + Int(byte - UInt8(ascii: "0")), 100_000)
            }
            if negativeExponent { exponent = -exponent }
        }
        guard let first = digits.firstIndex(where: { $0 != 0 }) else { return 0 }  // zero, however written
        let last = digits.lastIndex(where: { $0 != 0 })!
        let point = pointAfter + exponent  // the decimal point's place in `digits` once the exponent is applied
        guard last < point else { return nil }  // a non-zero digit after the point
        var magnitude = 0
        for place in first..<point {
            let digit = place < digits.count ? Int(digits[place]) : 0
            let (times10, overflow) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, carry) = times10.addingReportingOverflow(digit)
            guard !overflow, !carry else { return nil }
            magnitude = sum
        }
        return negative ? -magnitude : magnitude
    }

    package var description: String { literal }

    package static func == (lhs: JSONNumber, rhs: JSONNumber) -> Bool {
        RequestJSON.sameScalars(lhs.literal, rhs.literal)
    }
}
