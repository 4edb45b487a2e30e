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
        var bytes: [UInt8] = []
        append(millis, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The 20 bytes of ``rfc3339(_:)``, appended to `bytes` digit by digit (a page writes two or three a message).
    package static func append(_ millis: Int64, to bytes: inout [UInt8]) {
        let (days, remainder) = floorDivision(millis, 86_400_000)
        let (year, month, day) = CivilDate.of(daysSince1970: days)
        let seconds = remainder / 1000
        append(year, digits: 4, to: &bytes)
        bytes.append(UInt8(ascii: "-"))
        append(month, digits: 2, to: &bytes)
        bytes.append(UInt8(ascii: "-"))
        append(day, digits: 2, to: &bytes)
        bytes.append(UInt8(ascii: "T"))
        append(seconds / 3600, digits: 2, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        append(seconds / 60 % 60, digits: 2, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        append(seconds % 60, digits: 2, to: &bytes)
        bytes.append(UInt8(ascii: "Z"))
    }

    /// `value` and `divisor` (positive) as a quotient rounded down and a remainder in `0 ..< divisor`.
    private static func floorDivision(_ value: Int64, _ divisor: Int64) -> (Int64, Int64) {
        let remainder = value % divisor
        return remainder < 0 ? (value / divisor - 1, remainder + divisor) : (value / divisor, remainder)
    }

    /// `value` (0 ... 10^digits - 1) in decimal, padded with zeros to `digits`.
    private static func append(_ value: Int64, digits: Int, to bytes: inout [UInt8]) {
        var divisor: Int64 = 1
        for _ in 1..<digits { divisor *= 10 }
        var rest = value
        while divisor > 0 {
            bytes.append(UInt8(ascii: "0") + UInt8(truncatingIfNeeded: rest / divisor % 10))
            rest %= divisor
            divisor /= 10
        }
    }
}
