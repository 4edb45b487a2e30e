/// A growable run of bytes that owns its memory: what ``JSONWriter`` writes a response body into.
///
/// The one type outside the rooms of C libraries that holds a pointer, for speed measured (issue 16,
/// Benchmarks/HISTORY.md "The page path at C speed"): a `[UInt8]` checks uniqueness and capacity on every `append`,
/// copies a literal's bytes one by one through its generic `append(contentsOf:)`, and cannot be grown by a few bytes
/// and written in place without one of those; the page path's JSON took about 40k of a page request's 131k
/// instructions that way. Here a literal is one `memcpy`, an integer is written in place, and capacity is checked
/// once per call. Noncopyable, so the memory has one owner and is freed with it; every access is bounds-checked by
/// construction (each write first makes room for exactly what it writes).
package struct ByteBuffer: ~Copyable, @unchecked Sendable {
    private var base: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    /// The number of bytes written.
    package private(set) var count = 0

    /// An empty buffer with room for `capacity` bytes (at least 16) before it grows.
    package init(capacity: Int) {
        self.capacity = max(capacity, 16)
        base = UnsafeMutablePointer<UInt8>.allocate(capacity: self.capacity)
    }

    deinit { base.deallocate() }

    /// Forgets the bytes, keeping the memory.
    package mutating func removeAll() { count = 0 }

    /// The bytes written, as an array of their own.
    package var bytes: [UInt8] { Array(UnsafeBufferPointer(start: base, count: count)) }

    /// Makes room for `more` bytes past ``count``, for the `reserved` appends that follow.
    @inline(__always)
    package mutating func reserve(_ more: Int) {
        if count &+ more > capacity { grow(to: count + more) }
    }

    private mutating func grow(to needed: Int) {
        var newCapacity = capacity * 2
        while newCapacity < needed { newCapacity *= 2 }
        let grown = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        grown.initialize(from: base, count: count)
        base.deallocate()
        base = grown
        capacity = newCapacity
    }

    @inline(__always)
    package mutating func append(_ byte: UInt8) {
        reserve(1)
        base[count] = byte
        count &+= 1
    }

    /// A literal's UTF-8 bytes, in one copy.
    @inline(__always)
    package mutating func append(literal: StaticString) {
        reserve(literal.utf8CodeUnitCount)
        copyIn(literal.utf8Start, literal.utf8CodeUnitCount)
    }

    /// A literal's UTF-8 bytes, in one copy, into room made by ``reserve(_:)``: a trap, not a growth, if there is
    /// none. The page path reserves an item's largest size once and writes its fields with these (a growth check
    /// per field kept `base` and `count` in memory across a possible reallocation: about 2k instructions a page).
    @inline(__always)
    package mutating func appendReserved(literal: StaticString) {
        copyIn(literal.utf8Start, literal.utf8CodeUnitCount)
    }

    /// `bytes`, in one copy, into room made by ``reserve(_:)`` (a trap if there is none).
    @inline(__always)
    package mutating func appendReserved(_ bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { buffer in
            guard let source = buffer.baseAddress else { return }
            copyIn(source, buffer.count)
        }
    }

    /// `bytes`, in one copy, into room made by ``reserve(_:)`` (a trap if there is none).
    @inline(__always)
    package mutating func appendReserved(_ bytes: Span<UInt8>) {
        bytes.withUnsafeBufferPointer { buffer in
            guard let source = buffer.baseAddress else { return }
            copyIn(source, buffer.count)
        }
    }

    /// `bytes`, in one copy.
    package mutating func append(_ bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { append($0) }
    }

    private mutating func append(_ buffer: UnsafeBufferPointer<UInt8>) {
        guard let source = buffer.baseAddress, !buffer.isEmpty else { return }
        reserve(buffer.count)
        copyIn(source, buffer.count)
    }

    /// Copies `length` bytes from `source` past ``count``, into room already made: every copy in goes through here,
    /// and one past the room traps rather than overruns.
    @inline(__always)
    private mutating func copyIn(_ source: UnsafePointer<UInt8>, _ length: Int) {
        precondition(count &+ length <= capacity, "ByteBuffer: a reserved write past the reserved room")
        (base + count).update(from: source, count: length)
        count &+= length
    }

    /// Up to `maximum` bytes written by `body` into the room past ``count``, handed to it as a span (bounds-checked,
    /// so a writer outside this room needs no pointer); `body` returns how many it wrote, and they are kept. For
    /// ListDomain's writers of generated text (a message's text and times), which wrote into an array of their own
    /// that was then copied in (memmove and the array's checks: about a fifth of a page of messages, perf).
    @inline(__always)
    package mutating func append(atMost maximum: Int, _ body: (inout MutableRawSpan) -> Int) {
        reserve(maximum)
        let room = UnsafeMutableRawBufferPointer(start: base + count, count: maximum)
        var span = room.mutableBytes
        let written = body(&span)
        precondition(written >= 0 && written <= maximum, "ByteBuffer: a span writer reported more than its room")
        count &+= written
    }

    /// `string`'s UTF-8 bytes, in one copy, when none of them needs escaping inside a JSON string (`"`, `\`, a
    /// control character); false (and nothing written) when one does, or when the string's UTF-8 is not stored
    /// contiguously. The scan is a loop over the bytes, not a closure per byte (labels, authors and colours of every
    /// written item and answer, issue 16).
    package mutating func append(jsonSafeUTF8Of string: String) -> Bool {
        let copied = string.utf8.withContiguousStorageIfAvailable { utf8 -> Bool in
            for byte in utf8 where byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                return false
            }
            append(utf8)
            return true
        }
        return copied == true
    }

    /// `value` in decimal: its digits counted without a loop (the bit length times log10 2, corrected by one
    /// comparison), then written in place from the last, two at a time from a table of the pairs 00...99 (one
    /// multiplication by a reciprocal for two digits). About 30 instructions for a 4-digit number where the loops
    /// before took 80 (callgrind, issue 16).
    package mutating func append(decimal value: UInt64) {
        reserve(Self.maximumDecimalDigits)
        appendReserved(decimal: value)
    }

    /// The most digits a `UInt64` has.
    package static let maximumDecimalDigits = 20

    /// `value` in decimal (as ``append(decimal:)``) into room made by ``reserve(_:)`` (a trap if there is none).
    @inline(__always)
    package mutating func appendReserved(decimal value: UInt64) {
        if value < 10 {
            precondition(count < capacity, "ByteBuffer: a reserved write past the reserved room")
            base[count] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: value)
            count &+= 1
            return
        }
        let digits = Self.digitCount(value)
        precondition(count &+ digits <= capacity, "ByteBuffer: a reserved write past the reserved room")
        let pairs = UnsafeRawPointer(Self.digitPairs.utf8Start)
        var end = UnsafeMutableRawPointer(base + (count &+ digits))
        var rest = value
        while rest >= 100 {
            let quotient = rest / 100
            let pair = Int(truncatingIfNeeded: rest &- quotient &* 100)
            end -= 2
            end.storeBytes(of: pairs.loadUnaligned(fromByteOffset: pair &* 2, as: UInt16.self), as: UInt16.self)
            rest = quotient
        }
        if rest >= 10 {
            let pair = pairs.loadUnaligned(fromByteOffset: Int(truncatingIfNeeded: rest) &* 2, as: UInt16.self)
            (end - 2).storeBytes(of: pair, as: UInt16.self)
        } else {
            (end - 1).storeBytes(of: UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: rest), as: UInt8.self)
        }
        count &+= digits
    }

    /// The number of decimal digits of `value`: ⌊log10 2⌋ of its bit length (1233/4096 ≈ log10 2) is the count or
    /// one short, and the power of ten it names decides which.
    @inline(__always)
    private static func digitCount(_ value: UInt64) -> Int {
        let bits = 64 &- (value | 1).leadingZeroBitCount
        let guess = (bits &* 1233) >> 12
        return guess &+ (value >= powersOfTen[guess] ? 1 : 0)
    }

    /// 10^0 ... 10^19.
    private static let powersOfTen: [UInt64] = [
        1, 10, 100, 1_000, 10_000, 100_000, 1_000_000, 10_000_000, 100_000_000, 1_000_000_000, 10_000_000_000,
        100_000_000_000, 1_000_000_000_000, 10_000_000_000_000, 100_000_000_000_000, 1_000_000_000_000_000,
        10_000_000_000_000_000, 100_000_000_000_000_000, 1_000_000_000_000_000_000, 10_000_000_000_000_000_000,
    ]

    /// "00", "01", … "99", one after the other.
    private static let digitPairs: StaticString = """
        00010203040506070809101112131415161718192021222324252627282930313233343536373839\
        40414243444546474849505152535455565758596061626364656667686970717273747576777879\
        8081828384858687888990919293949596979899
        """

    /// The low `4 * digits` bits of `value` as `digits` lower-case hex digits, most significant first.
    package mutating func append(hex value: UInt32, digits: Int) {
        reserve(digits)
        appendReserved(hex: value, digits: digits)
    }

    /// As ``append(hex:digits:)``, into room made by ``reserve(_:)`` (a trap if there is none).
    @inline(__always)
    package mutating func appendReserved(hex value: UInt32, digits: Int) {
        precondition(digits >= 0 && count &+ digits <= capacity, "ByteBuffer: a reserved write past the reserved room")
        var rest = value
        var index = count &+ digits
        while index > count {
            index &-= 1
            let nibble = UInt8(truncatingIfNeeded: rest) & 0xF
            base[index] = nibble < 10 ? UInt8(ascii: "0") &+ nibble : UInt8(ascii: "a") &+ (nibble &- 10)
            rest >>= 4
        }
        count &+= digits
    }
}
