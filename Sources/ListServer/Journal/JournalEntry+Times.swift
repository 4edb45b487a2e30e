/// The journal's names and units.
extension JournalEntry {
    /// `duration` in whole microseconds (negative for a negative one).
    static func microseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds &* 1_000_000 &+ attoseconds / 1_000_000_000_000
    }
}
