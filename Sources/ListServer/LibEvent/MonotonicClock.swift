// swift-format-ignore-file: OrderedImports
import Glibc  // before CEvent
import CEvent

/// Monotonic milliseconds for connection deadlines.
enum MonotonicClock {
    static func milliseconds() -> Int64 { Int64(cevent_monotonic_ms()) }
}

extension Duration {
    /// As a C `timeval`.
    var timeval: Glibc.timeval {
        let (seconds, attoseconds) = components
        return Glibc.timeval(tv_sec: Int(seconds), tv_usec: Int(attoseconds / 1_000_000_000_000))
    }
}
