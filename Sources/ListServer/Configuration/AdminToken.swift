/// The ``SettingKey/adminToken`` setting: the secret the admin endpoints require, which is never printed.
///
/// Its `description`, `debugDescription` and mirror show only `<set>` or `<none>`, so logging or dumping a
/// ``Settings`` cannot leak it; only ``value`` holds the text. Empty means no token: the admin endpoints then
/// accept loopback clients only.
struct AdminToken: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The token as configured; empty when there is none. Compare with ``matches(_:)``, never print.
    let value: String

    /// The lengths a token may have, in bytes.
    static let lengths = 1...256

    /// Why a token was refused, without quoting it.
    struct ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        /// What is wrong, naming at most the offending byte's position and code: `byte 6 is 0x20`.
        let description: String
    }

    /// The token `text`, which must be empty or ``lengths`` bytes in 0x21...0x7E (visible ASCII, no space).
    ///
    /// - Throws: ``ParseError`` naming the length or the first offending byte, never the token.
    init(parsing text: String) throws(ParseError) {
        let bytes = Array(text.utf8)
        guard bytes.count <= Self.lengths.upperBound else {
            throw ParseError(description: "it has \(bytes.count) bytes")
        }
        if let index = bytes.firstIndex(where: { !(0x21...0x7E).contains($0) }) {
            let code = String(bytes[index], radix: 16, uppercase: true)
            throw ParseError(description: "byte \(index + 1) is 0x\(code.count == 1 ? "0" + code : code)")
        }
        value = text
    }

    /// No token: the admin endpoints accept loopback clients only.
    static let none = try! AdminToken(parsing: "")

    /// Whether a token is configured.
    var isSet: Bool { !value.isEmpty }

    /// `<set>` or `<none>`: how the summary shows the token.
    var description: String { isSet ? "<set>" : "<none>" }

    /// The same as ``description``.
    var debugDescription: String { description }

    /// A mirror without children, so `dump` and test failure messages show no token either.
    var customMirror: Mirror { Mirror(self, children: [:]) }

    /// Whether `presented` is the token, in a time that does not depend on where the two first differ; always
    /// `false` when no token is set.
    func matches(_ presented: some StringProtocol) -> Bool {
        let expected = Array(value.utf8)
        let given = Array(presented.utf8)
        guard isSet, expected.count == given.count else {
            return false
        }
        var difference: UInt8 = 0
        for (left, right) in zip(expected, given) {
            difference |= left ^ right
        }
        return difference == 0
    }
}
