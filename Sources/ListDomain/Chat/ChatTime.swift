/// Timestamps of conversations and messages as JSON gives them: RFC 3339 in UTC, to the second,
/// `2026-09-21T14:13:20Z`, from milliseconds since 1970 (rounded down).
///
/// Without fractional seconds: `JSONDecoder`'s `.iso8601`, `ISO8601DateFormatter` with its default options and
/// swift-openapi-runtime's date transcoder all refuse `.000`, so a Swift client decodes these as they are.
///
/// By hand (``CivilDate``), as ListDomain uses no Foundation: four-digit years, 0 to 9999, which hold every
/// generated time (``ChatCatalog`` reaches back at most some 35 years).
public enum ChatTime {
    /// `millis` (milliseconds since 1970-01-01T00:00:00Z) as RFC 3339: `YYYY-MM-DDTHH:MM:SSZ`.
    public static func rfc3339(_ millis: Int64) -> String {
        var bytes = [UInt8](repeating: 0, count: byteCount)
        var span = bytes.mutableSpan
        var raw = span.mutableBytes
        var days = Days()
        _ = write(millis, days: &days, into: &raw, at: 0)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The length of ``rfc3339(_:)``: a constant the page path's callers inline (a `static let` was a call a time).
    @inlinable package static var byteCount: Int { 20 }

    /// The date part of the day last written (``write(_:days:into:at:)``): a page's messages are mostly of one day,
    /// and the calendar's arithmetic is the larger part of a time.
    package struct Days {
        /// The day (since 1970), and its `YYYY-MM-DD` as the first eight bytes and the last two.
        var day = Int64.min
        var date: (UInt64, UInt16) = (0, 0)

        package init() {}
    }

    /// Writes the 20 bytes of ``rfc3339(_:)`` into `bytes` from `offset`, the date from `days` when it is the same
    /// day; returns the offset past them. A page writes two or three a message: each pair of digits is one store from
    /// a table (a digit at a time, through an array, the times were 4 % of a page of messages).
    package static func write(
        _ millis: Int64, days: inout Days, into bytes: inout MutableRawSpan, at offset: Int
    ) -> Int {
        // Four-digit years: a time outside them (never one of this data's) is written as the nearest that has them.
        let (day, remainder) = floorDivision(min(max(millis, Self.earliest), Self.latest), 86_400_000)
        let pairs = digitPairs
        if day != days.day {
            let (year, month, dayOfMonth) = CivilDate.of(daysSince1970: day)
            let hyphen = UInt64(UInt8(ascii: "-"))
            let head =
                UInt64(pairs[Int(year / 100)]) | UInt64(pairs[Int(year % 100)]) << 16 | hyphen << 32
                | UInt64(pairs[Int(month)]) << 40 | hyphen << 56
            days.day = day
            days.date = (head, pairs[Int(dayOfMonth)])
        }
        let seconds = Int(remainder / 1000)
        let colon = UInt8(ascii: ":")
        bytes.storeBytes(of: days.date.0.littleEndian, toByteOffset: offset, as: UInt64.self)
        bytes.storeBytes(of: days.date.1.littleEndian, toByteOffset: offset + 8, as: UInt16.self)
        bytes.storeBytes(of: UInt8(ascii: "T"), toByteOffset: offset + 10, as: UInt8.self)
        bytes.storeBytes(of: pairs[seconds / 3600].littleEndian, toByteOffset: offset + 11, as: UInt16.self)
        bytes.storeBytes(of: colon, toByteOffset: offset + 13, as: UInt8.self)
        bytes.storeBytes(of: pairs[seconds / 60 % 60].littleEndian, toByteOffset: offset + 14, as: UInt16.self)
        bytes.storeBytes(of: colon, toByteOffset: offset + 16, as: UInt8.self)
        bytes.storeBytes(of: pairs[seconds % 60].littleEndian, toByteOffset: offset + 17, as: UInt16.self)
        bytes.storeBytes(of: UInt8(ascii: "Z"), toByteOffset: offset + 19, as: UInt8.self)
        return offset + byteCount
    }

    /// 0000-01-01T00:00:00Z and 9999-12-31T23:59:59.999Z, in milliseconds since 1970.
    static let earliest: Int64 = -62_167_219_200_000
    static let latest: Int64 = 253_402_300_799_999

    /// `00` to `99` as two ASCII digits each, the first in the low byte.
    private static let digitPairs: [UInt16] = (0..<100).map { value in
        UInt16(UInt8(ascii: "0") + UInt8(value / 10)) | UInt16(UInt8(ascii: "0") + UInt8(value % 10)) << 8
    }

    /// `value` and `divisor` (positive) as a quotient rounded down and a remainder in `0 ..< divisor`.
    private static func floorDivision(_ value: Int64, _ divisor: Int64) -> (Int64, Int64) {
        let remainder = value % divisor
        return remainder < 0 ? (value / divisor - 1, remainder + divisor) : (value / divisor, remainder)
    }
}
