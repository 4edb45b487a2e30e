/// A hand-written JSON byte writer for the hot page path.
///
/// Why not `JSONEncoder`: in the release micro-benchmarks (`ListBenchmarks`, results in `BENCHMARKS.md`) a 20-item
/// page takes about 2 µs with this writer and ``Catalog/writePage(_:order:version:into:)``, item generation
/// included, against about 46 µs for the equivalent `Codable` page through `JSONEncoder` (which also needs
/// Foundation, not imported here); and the writer allocates nothing once its buffer is warm. It appends UTF-8
/// straight into one reusable buffer: integers go through a digit loop (no `String`), literal keys come from
/// `StaticString`s, and strings are escaped per RFC 8259 in one pass.
///
/// The caller is responsible for the structure (commas, brackets, keys); the writer only guarantees that every
/// value it writes is a valid JSON value.
package struct JSONWriter: Sendable {
    /// The UTF-8 bytes written so far.
    package var bytes: [UInt8]

    /// Creates an empty writer whose buffer can take `capacity` bytes before it grows.
    package init(capacity: Int = 4096) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    /// Empties the buffer but keeps its storage, so a writer can be reused for the next response.
    package mutating func reset() {
        bytes.removeAll(keepingCapacity: true)
    }

    /// Appends literal JSON text as is: keys, punctuation, `true`, `false`. Nothing is escaped.
    package mutating func append(raw: StaticString) {
        raw.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    /// Appends a JSON string: quoted, with `"`, `\` and the control characters U+0000...U+001F escaped.
    ///
    /// Control characters are written as `\u00XX` (upper-case hex); everything else, including non-ASCII text,
    /// is copied as UTF-8, which RFC 8259 allows. A Swift `String` is always valid Unicode, so the output is
    /// always valid UTF-8.
    package mutating func append(string: String) {
        bytes.append(UInt8(ascii: "\""))
        // Most strings need no escape: a scan, then one copy, where appending byte by byte checked the capacity for
        // every byte (labels and authors, twice per item of every page and write).
        let copied = string.utf8.withContiguousStorageIfAvailable { utf8 in
            guard !utf8.contains(where: Self.needsEscape) else { return false }
            bytes.append(contentsOf: utf8)
            return true
        }
        if copied != true { appendEscaping(string) }
        bytes.append(UInt8(ascii: "\""))
    }

    /// Whether `byte` cannot stand as itself inside a JSON string.
    private static func needsEscape(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte < 0x20
    }

    /// The characters of `string`, escaped as JSON needs (without the quotes).
    private mutating func appendEscaping(_ string: String) {
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                bytes.append(UInt8(ascii: "\\"))
                bytes.append(byte)
            case 0..<0x20:
                append(raw: "\\u00")
                bytes.append(Self.hexDigit(byte >> 4, uppercase: true))
                bytes.append(Self.hexDigit(byte & 0xF, uppercase: true))
            default:
                bytes.append(byte)
            }
        }
    }

    /// Appends an unsigned integer in decimal, without building a `String`.
    package mutating func append(integer value: UInt64) {
        let start = bytes.count
        var rest = value
        repeat {
            let (quotient, digit) = rest.quotientAndRemainder(dividingBy: 10)
            bytes.append(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: digit))
            rest = quotient
        } while rest != 0
        // The digits came out least significant first: reverse them in place.
        var low = start
        var high = bytes.count - 1
        while low < high {
            bytes.swapAt(low, high)
            low += 1
            high -= 1
        }
    }

    /// Appends a signed integer in decimal (a leading `-` for negative values, `Int.min` included).
    package mutating func append(integer value: Int) {
        if value < 0 {
            bytes.append(UInt8(ascii: "-"))
        }
        append(integer: UInt64(value.magnitude))
    }

    /// Appends a double in the shortest form that reads back as the same value, or `null` for NaN and infinities.
    ///
    /// Swift's `description` is shortest round-trip and always valid JSON for finite values (`0.5`, `1.0`,
    /// `-0.0`, `1e-05`, `5e-324`, `1.7976931348623157e+308`). It allocates a small `String`, which is fine here:
    /// doubles appear once per detail response, not per page item.
    package mutating func append(double value: Double) {
        guard value.isFinite else {
            appendNull()
            return
        }
        bytes.append(contentsOf: value.description.utf8)
    }

    /// Appends `null`.
    package mutating func appendNull() {
        append(raw: "null")
    }

    /// Appends bytes that are already valid JSON (for example a string quoted and escaped in advance).
    mutating func append(encoded: [UInt8]) {
        bytes.append(contentsOf: encoded)
    }

    /// Appends the low 24 bits of `value` as six lower-case hex digits, most significant first.
    mutating func append(hex24 value: UInt32) {
        var shift: UInt32 = 20
        while true {
            bytes.append(Self.hexDigit(UInt8(truncatingIfNeeded: value >> shift) & 0xF, uppercase: false))
            if shift == 0 { break }
            shift -= 4
        }
    }

    /// The ASCII hex digit for a nibble in 0...15.
    @inline(__always)
    static func hexDigit(_ nibble: UInt8, uppercase: Bool) -> UInt8 {
        if nibble < 10 {
            return UInt8(ascii: "0") &+ nibble
        }
        return (uppercase ? UInt8(ascii: "A") : UInt8(ascii: "a")) &+ (nibble &- 10)
    }
}
