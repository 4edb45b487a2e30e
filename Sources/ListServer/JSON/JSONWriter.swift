import ListDomain

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
///
/// The bytes go into a ``ByteBuffer`` (`Memory/`): a literal is one copy, an integer is written in place. Over a
/// `[UInt8]` the same page cost about 40k instructions more (Benchmarks/HISTORY.md, issue 16). Noncopyable, as its
/// buffer.
package struct JSONWriter: ~Copyable, Sendable {
    private var buffer: ByteBuffer
    /// The base path the server's own URLs in this body start with: `/d/<name>` for a request that named its dataset
    /// so (``RequestTarget/base``), nil otherwise (no array to retain); ``appendImageURLStart()`` writes it.
    package var basePath: [UInt8]? = nil

    /// The most bytes ``basePath`` holds: `/d/` and a dataset name of at most 64 bytes.
    package static let maximumBasePathBytes = 67

    /// The UTF-8 bytes written so far, as an array of their own (a copy: take it once, at the end).
    package var bytes: [UInt8] { buffer.bytes }

    /// The number of bytes written so far.
    package var count: Int { buffer.count }

    /// Creates an empty writer whose buffer can take `capacity` bytes before it grows.
    package init(capacity: Int = 4096) {
        buffer = ByteBuffer(capacity: capacity)
    }

    /// Empties the buffer but keeps its storage, so a writer can be reused for the next response.
    package mutating func reset() {
        buffer.removeAll()
    }

    /// Appends literal JSON text as is: keys, punctuation, `true`, `false`. Nothing is escaped.
    @inline(__always)
    package mutating func append(raw: StaticString) {
        buffer.append(literal: raw)
    }

    /// Appends a JSON string: quoted, with `"`, `\` and the control characters U+0000...U+001F escaped.
    ///
    /// Control characters are written as `\u00XX` (upper-case hex); everything else, including non-ASCII text,
    /// is copied as UTF-8, which RFC 8259 allows. A Swift `String` is always valid Unicode, so the output is
    /// always valid UTF-8.
    package mutating func append(string: String) {
        buffer.append(UInt8(ascii: "\""))
        // Most strings need no escape: a scan, then one copy, where appending byte by byte checked the capacity for
        // every byte (labels and authors, twice per item of every page and write).
        if !buffer.append(jsonSafeUTF8Of: string) { appendEscaping(string) }
        buffer.append(UInt8(ascii: "\""))
    }

    /// The characters of `string`, escaped as JSON needs (without the quotes).
    private mutating func appendEscaping(_ string: String) {
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                buffer.append(UInt8(ascii: "\\"))
                buffer.append(byte)
            case 0..<0x20:
                append(raw: "\\u00")
                buffer.append(Self.hexDigit(byte >> 4, uppercase: true))
                buffer.append(Self.hexDigit(byte & 0xF, uppercase: true))
            default:
                buffer.append(byte)
            }
        }
    }

    /// Appends what `body` writes into a span of `maximum` bytes, as it is: the bytes must already be valid JSON
    /// where they go (``ByteBuffer/append(atMost:_:)``). `body` returns how many it wrote.
    @inline(__always)
    package mutating func append(atMost maximum: Int, _ body: (inout MutableRawSpan) -> Int) {
        buffer.append(atMost: maximum, body)
    }

    /// Appends an unsigned integer in decimal, without building a `String`.
    package mutating func append(integer value: UInt64) {
        buffer.append(decimal: value)
    }

    /// Appends a signed integer in decimal (a leading `-` for negative values, `Int.min` included).
    package mutating func append(integer value: Int) {
        if value < 0 {
            buffer.append(UInt8(ascii: "-"))
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
        buffer.append(Array(value.description.utf8))
    }

    /// Appends `null`.
    package mutating func appendNull() {
        append(raw: "null")
    }

    /// Appends bytes that are already valid JSON (for example a string quoted and escaped in advance).
    package mutating func append(encoded: [UInt8]) {
        buffer.append(encoded)
    }

    /// Makes room for `bytes` more bytes, for the `reserved` appends that follow: together they may write that
    /// many bytes without another capacity check (and trap, rather than grow, past them). Always inlined: the page
    /// path calls it once an item, and an outlined call cost 18 instructions an item (callgrind).
    @inline(__always)
    package mutating func reserve(_ bytes: Int) {
        buffer.reserve(bytes)
    }

    /// ``append(raw:)`` into reserved room.
    @inline(__always)
    package mutating func appendReserved(raw: StaticString) {
        buffer.appendReserved(literal: raw)
    }

    /// ``append(integer:)`` (at most 20 bytes) into reserved room.
    @inline(__always)
    package mutating func appendReserved(integer value: UInt64) {
        buffer.appendReserved(decimal: value)
    }

    /// ``append(integer:)`` for a signed integer (at most 21 bytes) into reserved room.
    @inline(__always)
    package mutating func appendReserved(integer value: Int) {
        if value < 0 {
            buffer.appendReserved(literal: "-")
        }
        buffer.appendReserved(decimal: UInt64(value.magnitude))
    }

    /// ``append(encoded:)`` into reserved room.
    @inline(__always)
    package mutating func appendReserved(encoded: [UInt8]) {
        buffer.appendReserved(encoded)
    }

    /// `,"blur_hash":"`, `placeholder` (``PhotoPlaceholders/hashBytes``) and `"` (15 bytes more) into reserved room.
    @inline(__always)
    package mutating func appendReserved(placeholder: Span<UInt8>) {
        buffer.appendReserved(literal: ",\"blur_hash\":\"")
        buffer.appendReserved(placeholder)
        buffer.appendReserved(literal: "\"")
    }

    /// `,"image_url":"` and the start of an item's path, ``basePath`` then `/items/`: what every item's JSON writes
    /// before its id (and `/image"`).
    package mutating func appendImageURLStart() {
        buffer.reserve(21 + (basePath?.count ?? 0))  // exactly: room to spare would grow a writer sized for one item
        appendReservedImageURLStart()
    }

    /// ``appendImageURLStart()`` into reserved room (21 bytes and ``basePath``).
    @inline(__always)
    package mutating func appendReservedImageURLStart() {
        if let basePath {
            buffer.appendReserved(literal: ",\"image_url\":\"")
            buffer.appendReserved(basePath)
            buffer.appendReserved(literal: "/items/")
        } else {
            buffer.appendReserved(literal: ",\"image_url\":\"/items/")
        }
    }

    /// ``append(hex24:)`` (6 bytes) into reserved room.
    @inline(__always)
    mutating func appendReserved(hex24 value: UInt32) {
        buffer.appendReserved(hex: value, digits: 6)
    }

    /// Appends the low 24 bits of `value` as six lower-case hex digits, most significant first.
    mutating func append(hex24 value: UInt32) {
        buffer.append(hex: value, digits: 6)
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
