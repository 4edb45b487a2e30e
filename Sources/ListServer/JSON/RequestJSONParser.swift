/// One run of ``RequestJSON/parse(_:maxDepth:)``: the body, a read index, and a scratch buffer for escaped strings.
///
/// Structure (this file) is a loop over an explicit stack of open containers rather than recursion, so a body of a
/// million `[` costs one array slot per level up to the depth limit and then an error, never a deep call stack.
/// Strings and UTF-8 are in `RequestJSONParser+Strings.swift`, numbers and literals in `+Literals.swift`.
struct RequestJSONParser {
    let bytes: [UInt8]
    /// The deepest nesting allowed; never negative.
    let maxDepth: Int
    /// The offset of the next byte to read.
    var index = 0
    /// The bytes of the string being decoded when it has escapes; kept between strings for its capacity.
    var scratch: [UInt8] = []

    init(bytes: [UInt8], maxDepth: Int) {
        self.bytes = bytes
        self.maxDepth = max(0, maxDepth)
    }

    /// An object or array that has been opened and not yet closed.
    private struct Container {
        let isObject: Bool
        var elements: [RequestJSON] = []
        var members: [(key: String, value: RequestJSON)] = []
        /// In an object, the key of the member whose value is being parsed.
        var key = ""
        /// Every key of a large object, for duplicate checks; nil while scanning ``members`` is cheaper.
        var keyIndex: Set<ExactKey>? = nil

        /// Up to this many members, a new key is compared with each; past it, looked up in ``keyIndex``.
        static let linearScanLimit = 16

        /// Takes `key` as the key of the next member; false if the object already has a member with that key.
        mutating func claim(_ key: String) -> Bool {
            if keyIndex != nil {
                return keyIndex!.insert(ExactKey(key)).inserted
            }
            if members.contains(where: { RequestJSON.sameScalars($0.key, key) }) {
                return false
            }
            if members.count >= Self.linearScanLimit {
                var index = Set(members.map { ExactKey($0.key) })
                index.insert(ExactKey(key))
                keyIndex = index
            }
            return true
        }
    }

    /// A key compared and hashed by its UTF-8 bytes, that is by Unicode scalars; `String`'s own `==` and hash use
    /// canonical equivalence, which would call `"\u212A"` (KELVIN SIGN) and `"K"` the same key.
    private struct ExactKey: Hashable {
        let key: String

        init(_ key: String) {
            self.key = key
        }

        static func == (lhs: ExactKey, rhs: ExactKey) -> Bool {
            RequestJSON.sameScalars(lhs.key, rhs.key)
        }

        func hash(into hasher: inout Hasher) {
            let bytes = key.utf8.span
            for index in bytes.indices {
                hasher.combine(bytes[index])
            }
        }
    }

    /// Parses the whole body as one value with nothing but whitespace after it.
    mutating func parseDocument() throws(RequestJSONError) -> RequestJSON {
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF {
            throw RequestJSONError(offset: 0, reason: "a byte order mark (U+FEFF) is not allowed")
        }
        skipWhitespace()
        guard index < bytes.count else {
            throw RequestJSONError(offset: index, reason: "empty body")
        }
        // The innermost open container is a local, so adding to it touches no array; the ones around it wait in
        // `outer`, innermost last.
        var current: Container? = nil
        var outer: [Container] = []
        nextValue: while true {
            // Here a value starts (after optional whitespace): a scalar, or a container that opens.
            skipWhitespace()
            guard index < bytes.count else {
                throw unexpected(expecting: "a value")
            }
            var value: RequestJSON
            switch bytes[index] {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                let depth = current == nil ? 0 : outer.count + 1
                guard depth < maxDepth else {
                    throw RequestJSONError(offset: index, reason: "nesting deeper than \(maxDepth)")
                }
                let isObject = bytes[index] == UInt8(ascii: "{")
                index += 1
                skipWhitespace()
                if index < bytes.count, bytes[index] == UInt8(ascii: isObject ? "}" : "]") {
                    index += 1
                    value = isObject ? .object([]) : .array([])
                } else {
                    var container = Container(isObject: isObject)
                    if isObject {
                        try readKey(into: &container, afterComma: false)
                    }
                    if let enclosing = current.take() {
                        outer.append(enclosing)
                    }
                    current = container
                    continue nextValue
                }
            case UInt8(ascii: "\""):
                value = .string(try parseString())
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                value = .number(try parseNumber())
            default:
                value = try parseLiteral()
            }

            // A value is complete: add it to the innermost container, and close every container that ends here.
            while var container = current.take() {
                skipWhitespace()
                let next: UInt8? = index < bytes.count ? bytes[index] : nil
                if container.isObject {
                    container.members.append((key: container.key, value: value))
                    switch next {
                    case UInt8(ascii: ","):
                        index += 1
                        skipWhitespace()
                        try readKey(into: &container, afterComma: true)
                        current = container
                        continue nextValue
                    case UInt8(ascii: "}"):
                        index += 1
                        value = .object(container.members)
                    default:
                        throw unexpected(expecting: "',' or '}'")
                    }
                } else {
                    container.elements.append(value)
                    switch next {
                    case UInt8(ascii: ","):
                        index += 1
                        skipWhitespace()
                        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
                            throw RequestJSONError(offset: index, reason: "trailing comma before ']'")
                        }
                        current = container
                        continue nextValue
                    case UInt8(ascii: "]"):
                        index += 1
                        value = .array(container.elements)
                    default:
                        throw unexpected(expecting: "',' or ']'")
                    }
                }
                current = outer.popLast()
            }
            skipWhitespace()
            guard index == bytes.count else {
                throw RequestJSONError(offset: index, reason: "trailing data after the value")
            }
            return value
        }
    }

    /// Reads a member's key and its `:` into `object`, checking that the key is new; leaves the index at the value.
    private mutating func readKey(into object: inout Container, afterComma: Bool) throws(RequestJSONError) {
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
            if afterComma, index < bytes.count, bytes[index] == UInt8(ascii: "}") {
                throw RequestJSONError(offset: index, reason: "trailing comma before '}'")
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: "'") {
                throw RequestJSONError(offset: index, reason: "keys take double quotes, not single quotes")
            }
            throw unexpected(expecting: afterComma ? "a key in double quotes" : "a key in double quotes or '}'")
        }
        let keyOffset = index
        let key = try parseString()
        guard object.claim(key) else {
            throw RequestJSONError(offset: keyOffset, reason: "duplicate key \(Problem.quoted(key))")
        }
        object.key = key
        skipWhitespace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else {
            throw unexpected(expecting: "':' after the key")
        }
        index += 1
    }

    /// Moves past JSON whitespace: space, tab, line feed and carriage return, nothing else.
    mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    /// The error for the byte at the index (or the end of the body) where `expected` should be.
    ///
    /// The reason names what was found: `expected ',' or '}', got 'x'`, or a code point for anything but printable
    /// ASCII (`got U+00A0`); bytes that are not UTF-8 get `invalid UTF-8` instead.
    func unexpected(expecting expected: String) -> RequestJSONError {
        guard index < bytes.count else {
            return RequestJSONError(offset: index, reason: "unexpected end of body, expected \(expected)")
        }
        let byte = bytes[index]
        let found: String
        switch byte {
        case 0x21...0x7E:
            found = "'" + String(Unicode.Scalar(byte)) + "'"
        case 0..<0x80:
            found = Self.codePoint(UInt32(byte))
        default:
            guard let length = scalarLength(at: index),
                let scalar = String(decoding: bytes[index..<index + length], as: UTF8.self).unicodeScalars.first
            else {
                return RequestJSONError(offset: index, reason: "invalid UTF-8")
            }
            found = Self.codePoint(scalar.value)
        }
        return RequestJSONError(offset: index, reason: "expected \(expected), got \(found)")
    }

    /// `U+00A0`: at least four upper-case hex digits.
    static func codePoint(_ value: UInt32) -> String {
        "U+" + hex(value, digits: 4, uppercase: true)
    }

    /// `value` in hex, padded with zeros to `digits`.
    static func hex(_ value: UInt32, digits: Int, uppercase: Bool) -> String {
        let text = String(value, radix: 16, uppercase: uppercase)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }
}
