import ListDomain

/// An HTTP date (RFC 9110 §5.6.7, the IMF-fixdate form every server sends in `Date`), such as
/// `Sun, 06 Nov 1994 08:49:37 GMT`.
///
/// Written by hand: a loop makes one a second for its answers' `Date` (`LibEvent/DateField.swift`), where evhttp
/// made one for every answer (`gmtime` and a formatted print, about 3,400 instructions of a write's 76,000 on the
/// loop, callgrind). The month and day names are fixed English, whatever the process's locale.
enum HTTPDate {
    /// The 29 bytes of the date `seconds` after 1970 began (UTC).
    static func imfFixdate(secondsSince1970 seconds: Int64) -> [UInt8] {
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400  // rounded down
        let ofDay = Int(seconds - days * 86_400)
        let (year, month, day) = civil(daysSince1970: days)
        let weekday = Int(((days % 7) + 11) % 7)  // 1970-01-01 was a Thursday (4, from Sunday's 0)
        var text: [UInt8] = []
        text.reserveCapacity(29)
        text += weekdays[weekday].utf8
        text += ", ".utf8
        append(day, width: 2, to: &text)
        text.append(UInt8(ascii: " "))
        text += months[month - 1].utf8
        text.append(UInt8(ascii: " "))
        append(Int(year), width: 4, to: &text)
        text.append(UInt8(ascii: " "))
        append(ofDay / 3600, width: 2, to: &text)
        text.append(UInt8(ascii: ":"))
        append(ofDay / 60 % 60, width: 2, to: &text)
        text.append(UInt8(ascii: ":"))
        append(ofDay % 60, width: 2, to: &text)
        text += " GMT".utf8
        return text
    }

    /// The ISO 8601 UTC date and time `milliseconds` after 1970 began, to the millisecond:
    /// `2026-11-29T19:05:00.123Z` (HAR's `startedDateTime`).
    static func iso8601(millisecondsSince1970 milliseconds: Int64) -> String {
        let seconds = milliseconds >= 0 ? milliseconds / 1000 : (milliseconds - 999) / 1000
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let ofDay = Int(seconds - days * 86_400)
        let (year, month, day) = civil(daysSince1970: days)
        var text: [UInt8] = []
        text.reserveCapacity(24)
        append(Int(year), width: 4, to: &text)
        text.append(UInt8(ascii: "-"))
        append(month, width: 2, to: &text)
        text.append(UInt8(ascii: "-"))
        append(day, width: 2, to: &text)
        text.append(UInt8(ascii: "T"))
        append(ofDay / 3600, width: 2, to: &text)
        text.append(UInt8(ascii: ":"))
        append(ofDay / 60 % 60, width: 2, to: &text)
        text.append(UInt8(ascii: ":"))
        append(ofDay % 60, width: 2, to: &text)
        text.append(UInt8(ascii: "."))
        append(Int(milliseconds - seconds * 1000), width: 3, to: &text)
        text.append(UInt8(ascii: "Z"))
        return String(decoding: text, as: UTF8.self)
    }

    private static let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// The date of the day `days` after 1970-01-01 (``CivilDate``).
    private static func civil(daysSince1970 days: Int64) -> (year: Int64, month: Int, day: Int) {
        let (year, month, day) = CivilDate.of(daysSince1970: days)
        return (year, Int(month), Int(day))
    }

    /// `value` in decimal, zero-padded to `width` digits.
    private static func append(_ value: Int, width: Int, to text: inout [UInt8]) {
        var digits = [UInt8](repeating: UInt8(ascii: "0"), count: width)
        var rest = value
        for index in stride(from: width - 1, through: 0, by: -1) {
            digits[index] = UInt8(ascii: "0") + UInt8(rest % 10)
            rest /= 10
        }
        text += digits
    }
}
