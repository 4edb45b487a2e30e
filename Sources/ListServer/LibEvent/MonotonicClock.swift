// swift-format-ignore-file: OrderedImports
import Foundation  // before CEvent: both define fd_set, and the other order fails to build
import CEvent

/// Monotonic milliseconds for connection deadlines.
enum MonotonicClock {
    static func milliseconds() -> Int64 { Int64(cevent_monotonic_ms()) }
}

extension Duration {
    /// As a C `timeval`.
    var timeval: Foundation.timeval {
        let (seconds, attoseconds) = components
        return Foundation.timeval(tv_sec: Int(seconds), tv_usec: Int(attoseconds / 1_000_000_000_000))
    }
}
