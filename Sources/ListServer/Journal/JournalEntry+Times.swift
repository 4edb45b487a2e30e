/// The journal's names and units.
extension JournalEntry {
    /// A wire fault's name, as the access log writes it.
    static func name(of fault: WireFault) -> String {
        switch fault {
        case .reset: "reset"
        case .truncated: "truncated"
        case .hang: "hang"
        }
    }

    /// `duration` in whole microseconds (negative for a negative one).
    static func microseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds &* 1_000_000 &+ attoseconds / 1_000_000_000_000
    }
}
