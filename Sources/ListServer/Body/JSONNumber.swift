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

    package var description: String { literal }

    package static func == (lhs: JSONNumber, rhs: JSONNumber) -> Bool {
        RequestJSON.sameScalars(lhs.literal, rhs.literal)
    }
}
