package import ListDomain

/// The item fields of a write request's JSON body, checked against ``ItemOverrides/Limits`` and turned into the
/// domain's ``ItemOverrides`` (`POST /items`) or ``ItemPatch`` (`PATCH /items/<id>`).
///
/// The body is an object with any of `label`, `author` (strings, counted in Characters), `width`, `height`, `likes`
/// (whole numbers, however written: `1500`, `1500.0` and `1.5e3` alike, as JSON Schema's `integer` has it) and
/// `color` (`"#rrggbb"`, either case). Anything else is refused with the field named: `id` (the server assigns ids),
/// unknown keys, values of the wrong type or out of range, and strings with U+0000. The first problem in document
/// order is the one reported.
package enum ItemBody {
    /// The fields of `POST /items`: `label` is required, the others optional; `null` for an optional field means
    /// "generated", as if it were left out.
    package static func creation(_ json: RequestJSON) throws(ItemBodyError) -> ItemOverrides {
        var overrides = ItemOverrides()
        try forEachField(of: json, idReason: "the id is assigned by the server") { field, value throws(ItemBodyError) in
            if case .null = value {
                guard field != .label else {
                    throw ItemBodyError(field: field.rawValue, reason: "label is required")
                }
            } else {
                try set(field, to: value, in: &overrides)
            }
        }
        guard overrides.label != nil else {
            throw ItemBodyError(field: Field.label.rawValue, reason: "label is required")
        }
        return overrides
    }

    /// The fields of `PATCH /items/<id>` as a JSON merge patch (RFC 7396): a field left out is kept, a value sets
    /// it, and `null` returns it to its generated value. `{}` is a patch that changes nothing.
    package static func patch(_ json: RequestJSON) throws(ItemBodyError) -> ItemPatch {
        var values = ItemOverrides()
        var cleared: UInt8 = 0  // the fields given as null, by Field.bit
        try forEachField(of: json, idReason: "the id cannot be changed") { field, value throws(ItemBodyError) in
            if case .null = value {
                cleared |= field.bit
            } else {
                try set(field, to: value, in: &values)
            }
        }
        func change<Value>(_ field: Field, _ value: Value?) -> ItemPatch.Change<Value> {
            if cleared & field.bit != 0 { return .clear }
            return value.map { .set($0) } ?? .keep
        }
        var patch = ItemPatch()
        patch.label = change(.label, values.label)
        patch.author = change(.author, values.author)
        patch.width = change(.width, values.width)
        patch.height = change(.height, values.height)
        patch.color = change(.color, values.color)
        patch.likes = change(.likes, values.likes)
        return patch
    }

    /// Checks `value`, not `null`, as `field` and stores it in `overrides`.
    private static func set(
        _ field: Field, to value: RequestJSON, in overrides: inout ItemOverrides
    ) throws(ItemBodyError) {
        typealias Limits = ItemOverrides.Limits
        switch field {
        case .label: overrides.label = try text(value, field, Limits.labelLength, maxBytes: Limits.labelBytes)
        case .author: overrides.author = try text(value, field, Limits.authorLength, maxBytes: Limits.authorBytes)
        case .width: overrides.width = try integer(value, field, Limits.dimension)
        case .height: overrides.height = try integer(value, field, Limits.dimension)
        case .color: overrides.color = try color(value, field)
        case .likes: overrides.likes = try integer(value, field, Limits.likes)
        }
    }

    /// The fields an item body may carry, named as in JSON.
    private enum Field: String, CaseIterable {
        case label, author, width, height, color, likes

        /// The field named `key`, compared by Unicode scalars; nil for any other key.
        init?(key: String) {
            guard let field = Self.allCases.first(where: { RequestJSON.sameScalars($0.rawValue, key) }) else {
                return nil
            }
            self = field
        }

        /// This field's bit in a set of fields held as a `UInt8` (cheaper than a `Set`, which hashes).
        var bit: UInt8 {
            switch self {
            case .label: 1
            case .author: 2
            case .width: 4
            case .height: 8
            case .color: 16
            case .likes: 32
            }
        }

        /// `label, author, width, height, color and likes`.
        static let list = allCases.dropLast().map(\.rawValue).joined(separator: ", ") + " and likes"
    }

    /// Calls `body` with each member of the object `json` in order, after refusing a non-object, `id`, unknown
    /// keys and (in a value built by hand; the parser refuses them) repeated fields.
    private static func forEachField(
        of json: RequestJSON, idReason: String,
        _ body: (Field, RequestJSON) throws(ItemBodyError) -> Void
    ) throws(ItemBodyError) {
        guard case .object(let members) = json else {
            throw ItemBodyError(field: nil, reason: "the body must be a JSON object, got \(kind(of: json))")
        }
        var seen: UInt8 = 0  // the fields met so far, by Field.bit
        for (key, value) in members {
            guard let field = Field(key: key) else {
                if RequestJSON.sameScalars(key, "id") {
                    throw ItemBodyError(field: "id", reason: "field \"id\": \(idReason)")
                }
                if RequestJSON.sameScalars(key, "image_url") {
                    throw ItemBodyError(
                        field: "image_url", reason: "field \"image_url\" is read-only: the server makes it from the id")
                }
                throw ItemBodyError(
                    field: key, reason: "unknown field \(Problem.quoted(key)); an item has \(Field.list)")
            }
            guard seen & field.bit == 0 else {
                throw ItemBodyError(field: field.rawValue, reason: "field \"\(field.rawValue)\" appears twice")
            }
            seen |= field.bit
            try body(field, value)
        }
    }

    /// A string whose length in Characters is in `length` and in UTF-8 bytes at most `maxBytes`, without U+0000.
    private static func text(
        _ value: RequestJSON, _ field: Field, _ length: ClosedRange<Int>, maxBytes: Int
    ) throws(ItemBodyError) -> String {
        func expected() -> String { "a string of \(length.lowerBound) to \(length.upperBound) characters" }
        guard case .string(let string) = value else {
            throw wrongValue(field, expected: expected(), got: value)
        }
        let utf8 = string.utf8.span
        if utf8.indices.contains(where: { utf8[$0] == 0 }) {
            throw ItemBodyError(field: field.rawValue, reason: "field \"\(field.rawValue)\": U+0000 is not allowed")
        }
        if utf8.count > maxBytes {
            throw ItemBodyError(
                field: field.rawValue,
                reason: "field \"\(field.rawValue)\": expected at most \(maxBytes) bytes of UTF-8, got \(utf8.count)")
        }
        // Characters (grapheme clusters), as `Limits` counts them: "e" + U+0301 is one. Every Character has at
        // least one byte, so a non-empty string of at most `upperBound` bytes fits without counting.
        if utf8.count > length.upperBound || utf8.count < max(1, length.lowerBound) {
            let count = string.count
            guard length.contains(count) else {
                throw ItemBodyError(
                    field: field.rawValue, reason: "field \"\(field.rawValue)\": expected \(expected()), got \(count)")
            }
        }
        return string
    }

    /// A whole number in `range`, with or without a fraction or an exponent: openapi.yaml declares these fields
    /// `type: integer`, which JSON Schema defines by value, so `1500.0` is as valid as `1500` to every client that
    /// checks a body against it (and some JSON encoders write whole floats that way).
    private static func integer(
        _ value: RequestJSON, _ field: Field, _ range: ClosedRange<Int>
    ) throws(ItemBodyError) -> Int {
        guard case .number(let number) = value, let integer = number.wholeValue, range.contains(integer) else {
            throw wrongValue(field, expected: "an integer in \(range.lowerBound)...\(range.upperBound)", got: value)
        }
        return integer
    }

    /// A colour `"#rrggbb"` (hex digits in either case) as 0xRRGGBB.
    private static func color(_ value: RequestJSON, _ field: Field) throws(ItemBodyError) -> UInt32 {
        guard case .string(let string) = value, string.utf8.count == 7, string.utf8.first == UInt8(ascii: "#") else {
            throw wrongValue(field, expected: "a string \"#rrggbb\"", got: value)
        }
        var rgb: UInt32 = 0
        for byte in string.utf8.dropFirst() {
            guard let digit = hexValue(byte) else {
                throw wrongValue(field, expected: "a string \"#rrggbb\"", got: value)
            }
            rgb = rgb << 4 | digit
        }
        return rgb
    }

    private static func hexValue(_ byte: UInt8) -> UInt32? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(byte - UInt8(ascii: "A") + 10)
        default: nil
        }
    }

    /// `field "width": expected an integer in 1...100000, got 1.5`.
    private static func wrongValue(_ field: Field, expected: String, got value: RequestJSON) -> ItemBodyError {
        ItemBodyError(
            field: field.rawValue, reason: "field \"\(field.rawValue)\": expected \(expected), got \(shown(value))")
    }

    /// A value as a detail shows it: strings quoted (and cut short), numbers as written, containers by kind.
    private static func shown(_ value: RequestJSON) -> String {
        switch value {
        case .string(let string): Problem.quoted(string)
        case .number(let number):
            // A literal is ASCII; a long one is cut like a quoted string.
            number.literal.utf8.count <= Problem.quotedValueLimit
                ? number.literal : number.literal.prefix(Problem.quotedValueLimit) + "..."
        case .bool(let bool): bool ? "true" : "false"
        case .null: "null"
        case .object, .array: kind(of: value)
        }
    }

    /// `an object`, `an array`, `a string`, `a number`, `a boolean` or `null`.
    private static func kind(of value: RequestJSON) -> String {
        switch value {
        case .object: "an object"
        case .array: "an array"
        case .string: "a string"
        case .number: "a number"
        case .bool: "a boolean"
        case .null: "null"
        }
    }
}

/// Why a body's item fields are not acceptable: the field (nil when the body as a whole is wrong) and a reason
/// that reads as a problem `detail`, such as `field "color": expected a string "#rrggbb", got "red"`.
package struct ItemBodyError: Error, Equatable, CustomStringConvertible {
    /// The JSON field at fault, as the client spelled it; nil when the body as a whole is wrong.
    package let field: String?
    /// The whole sentence, field included.
    package let reason: String

    package init(field: String?, reason: String) {
        self.field = field
        self.reason = reason
    }

    package var description: String { reason }
}
