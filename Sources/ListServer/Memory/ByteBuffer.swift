/// A growable run of bytes that owns its memory: what ``JSONWriter`` writes a response body into.
///
/// The one type outside the rooms of C libraries that holds a pointer, for speed measured (issue 16,
/// BENCHMARKS.md "The page path at C speed"): a `[UInt8]` checks uniqueness and capacity on every `append`, copies a
/// literal's bytes one by one through its generic `append(contentsOf:)`, and cannot be grown by a few bytes and
/// written in place without one of those; the page path's JSON took about 40k of a page request's 131k
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

    /// Makes room for `more` bytes past ``count``.
    @inline(__always)
    private mutating func reserve(_ more: Int) {
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
    package mutating func append(literal: StaticString) {
        let length = literal.utf8CodeUnitCount
        reserve(length)
        (base + count).update(from: literal.utf8Start, count: length)
        count &+= length
    }

    /// `bytes`, in one copy.
    package mutating func append(_ bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { append($0) }
    }

    private mutating func append(_ buffer: UnsafeBufferPointer<UInt8>) {
        guard let source = buffer.baseAddress, !buffer.isEmpty else { return }
        reserve(buffer.count)
        (base + count).update(from: source, count: buffer.count)
        count &+= buffer.count
    }

    /// `string`'s UTF-8 bytes, in one copy, when none of them is one `stop` is true for; false (and nothing written)
    /// when one is, or when the string's UTF-8 is not stored contiguously.
    package mutating func append(utf8Of string: String, unless stop: (UInt8) -> Bool) -> Bool {
        let copied = string.utf8.withContiguousStorageIfAvailable { utf8 -> Bool in
            guard !utf8.contains(where: stop) else { return false }
            append(utf8)
            return true
        }
        return copied == true
    }

    /// `value` in decimal: its digits counted, then written in place from the last, two at a time from a table of
    /// the pairs 00...99 (one division by 100 for two digits).
    package mutating func append(decimal value: UInt64) {
        if value < 10 {
            append(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: value))
            return
        }
        var digits = 2
        var threshold: UInt64 = 100
        while value >= threshold {
            digits &+= 1
            guard threshold <= UInt64.max / 10 else { break }
            threshold &*= 10
        }
        reserve(digits)
        let pairs = Self.digitPairs.utf8Start
        var index = count &+ digits
        var rest = value
        while rest >= 100 {
            let (quotient, pair) = rest.quotientAndRemainder(dividingBy: 100)
            index &-= 2
            let source = pairs + Int(truncatingIfNeeded: pair) &* 2
            (base + index).update(from: source, count: 2)
            rest = quotient
        }
        if rest >= 10 {
            let source = pairs + Int(truncatingIfNeeded: rest) &* 2
            (base + (index &- 2)).update(from: source, count: 2)
        } else {
            base[index &- 1] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: rest)
        }
        count &+= digits
    }

    /// "00", "01", … "99", one after the other.
    private static let digitPairs: StaticString = """
        00010203040506070809101112131415161718192021222324252627282930313233343536373839\
        40414243444546474849505152535455565758596061626364656667686970717273747576777879\
        8081828384858687888990919293949596979899
        """

    /// The low `4 * digits` bits of `value` as `digits` lower-case hex digits, most significant first.
    package mutating func append(hex value: UInt32, digits: Int) {
        reserve(digits)
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
