/// The proleptic Gregorian calendar's date of a day counted from 1970-01-01 (Howard Hinnant's `civil_from_days`):
/// the one conversion behind the HTTP `Date` and HAR times (`HTTPDate`), the JSON log lines' timestamps and the chat's
/// times (``ChatTime``). By hand, as ListDomain uses no Foundation; integer arithmetic, exact for any day within
/// ±25 million years.
public enum CivilDate {
    /// The year, month (1...12) and day of the month (1...31) of the day `days` after 1970-01-01.
    public static func of(daysSince1970 days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let shifted = days + 719_468  // from 0000-03-01
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097  // 0...146096
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365  // 0...399
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)  // 0...365, from March
        let monthFromMarch = (5 * dayOfYear + 2) / 153  // 0...11
        let day = dayOfYear - (153 * monthFromMarch + 2) / 5 + 1
        let month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
