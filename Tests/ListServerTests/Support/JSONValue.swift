/// A JSON value that keeps booleans, numbers and null apart (`JSONSerialization` blurs them into `NSNumber`), read
/// by a strict little RFC 8259 parser: it checks that the server's output is valid JSON and means what it should.
///
/// Strings are decoded (escapes, surrogate pairs) and must be valid UTF-8; numbers are kept as their text
/// (checked against the JSON number grammar) so tests can compare them exactly.
indirect enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case number(String)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// Parses a complete JSON text; `nil` if it is not valid JSON.
    static func parse(_ bytes: [UInt8]) -> JSONValue? {
        var parser = TinyJSONParser(bytes: bytes)
        guard let value = parser.value() else { return nil }
        parser.skipWhitespace()
        return parser.position == bytes.count ? value : nil
    }

    /// Parses a complete JSON text; throws if it is not valid JSON.
    init(parsing bytes: some Collection<UInt8>) throws {
        guard let value = Self.parse(Array(bytes)) else {
            throw InvalidJSON(text: String(decoding: bytes.prefix(200), as: UTF8.self))
        }
        self = value
    }

    /// What ``init(parsing:)`` throws.
    struct InvalidJSON: Error {
        /// The start of the text that did not parse.
        let text: String
    }

    /// The member `key` of an object, or nil.
    subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    var object: [String: JSONValue]? {
        if case .object(let members) = self { members } else { nil }
    }

    var array: [JSONValue]? {
        if case .array(let elements) = self { elements } else { nil }
    }

    var string: String? {
        if case .string(let text) = self { text } else { nil }
    }

    /// A number's value as a `Double` (its text is in ``number(_:)``).
    var number: Double? {
        if case .number(let text) = self { Double(text) } else { nil }
    }
}

/// The recursive-descent parser behind ``JSONValue/parse(_:)``.
struct TinyJSONParser {
    let bytes: [UInt8]
    var position = 0

    init(bytes: [UInt8]) { self.bytes = bytes }

    private var current: UInt8? { position < bytes.count ? bytes[position] : nil }

    mutating func skipWhitespace() {
        while let byte = current, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { position += 1 }
    }

    mutating func value() -> JSONValue? {
        skipWhitespace()
        switch current {
        case UInt8(ascii: "{"): return object()
        case UInt8(ascii: "["): return array()
        case UInt8(ascii: "\""): return string().map(JSONValue.string)
        case UInt8(ascii: "t"): return literal("true", .bool(true))
        case UInt8(ascii: "f"): return literal("false", .bool(false))
        case UInt8(ascii: "n"): return literal("null", .null)
        default: return number()
        }
    }

    private mutating func literal(_ text: String, _ value: JSONValue) -> JSONValue? {
        let expected = Array(text.utf8)
        guard bytes.count - position >= expected.count,
            Array(bytes[position..<position + expected.count]) == expected
        else { return nil }
        position += expected.count
        return value
    }

    private mutating func object() -> JSONValue? {
        position += 1
        var members: [String: JSONValue] = [:]
        skipWhitespace()
        if current == UInt8(ascii: "}") {
            position += 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard current == UInt8(ascii: "\""), let key = string(), members[key] == nil else { return nil }
            skipWhitespace()
            guard current == UInt8(ascii: ":") else { return nil }
            position += 1
            guard let member = value() else { return nil }
            members[key] = member
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): position += 1
            case UInt8(ascii: "}"):
                position += 1
                return .object(members)
            default: return nil
            }
        }
    }

    private mutating func array() -> JSONValue? {
        position += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if current == UInt8(ascii: "]") {
            position += 1
            return .array(elements)
        }
        while true {
            guard let element = value() else { return nil }
            elements.append(element)
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): position += 1
            case UInt8(ascii: "]"):
                position += 1
                return .array(elements)
            default: return nil
            }
        }
    }

    private mutating func string() -> String? {
        position += 1
        var utf8: [UInt8] = []
        while let byte = current {
            position += 1
            switch byte {
            case UInt8(ascii: "\""):
                return String(validating: utf8, as: UTF8.self)
            case 0..<0x20:
                return nil
            case UInt8(ascii: "\\"):
                guard let escaped = current else { return nil }
                position += 1
                switch escaped {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): utf8.append(escaped)
                case UInt8(ascii: "b"): utf8.append(0x08)
                case UInt8(ascii: "f"): utf8.append(0x0C)
                case UInt8(ascii: "n"): utf8.append(0x0A)
                case UInt8(ascii: "r"): utf8.append(0x0D)
                case UInt8(ascii: "t"): utf8.append(0x09)
                case UInt8(ascii: "u"):
                    guard let scalar = unicodeEscape() else { return nil }
                    utf8.append(contentsOf: Array(String(Character(scalar)).utf8))
                default: return nil
                }
            default:
                utf8.append(byte)
            }
        }
        return nil
    }

    /// After `\u`: four hex digits, or a surrogate pair written as two escapes.
    private mutating func unicodeEscape() -> Unicode.Scalar? {
        guard let first = hex4() else { return nil }
        if (0xD800..<0xDC00).contains(first) {
            guard current == UInt8(ascii: "\\") else { return nil }
            position += 1
            guard current == UInt8(ascii: "u") else { return nil }
            position += 1
            guard let second = hex4(), (0xDC00..<0xE000).contains(second) else { return nil }
            return Unicode.Scalar(0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00))
        }
        return Unicode.Scalar(first)
    }

    private mutating func hex4() -> UInt32? {
        guard bytes.count - position >= 4,
            bytes[position..<position + 4].allSatisfy({ Character(Unicode.Scalar($0)).isHexDigit })
        else { return nil }
        let text = String(decoding: bytes[position..<position + 4], as: UTF8.self)
        guard let value = UInt32(text, radix: 16) else { return nil }
        position += 4
        return value
    }

    /// `-? (0 | [1-9][0-9]*) (\.[0-9]+)? ([eE][+-]?[0-9]+)?`
    private mutating func number() -> JSONValue? {
        let start = position
        let isDigit = { (byte: UInt8?) in byte.map { (0x30...0x39).contains($0) } ?? false }
        if current == UInt8(ascii: "-") { position += 1 }
        if current == UInt8(ascii: "0") {
            position += 1
        } else if isDigit(current) {
            while isDigit(current) { position += 1 }
        } else {
            return nil
        }
        if current == UInt8(ascii: ".") {
            position += 1
            guard isDigit(current) else { return nil }
            while isDigit(current) { position += 1 }
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            position += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { position += 1 }
            guard isDigit(current) else { return nil }
            while isDigit(current) { position += 1 }
        }
        return .number(String(decoding: bytes[start..<position], as: UTF8.self))
    }
}
