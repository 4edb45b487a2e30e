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

    /// The proleptic Gregorian date `days` after 1970-01-01 (Howard Hinnant's `civil_from_days`).
    private static func civil(daysSince1970 days: Int64) -> (year: Int64, month: Int, day: Int) {
        let shifted = days + 719_468  // from 0000-03-01
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097  // 0...146096
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365  // 0...399
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)  // 0...365, from March
        let monthFromMarch = (5 * dayOfYear + 2) / 153  // 0...11
        let day = Int(dayOfYear - (153 * monthFromMarch + 2) / 5 + 1)
        let month = Int(monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9)
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
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
