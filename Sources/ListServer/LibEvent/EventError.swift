// swift-format-ignore-file: OrderedImports
import FoundationEssentials
import Glibc
import CEvent

/// A failed libevent or socket call: the one place C return codes become Swift errors.
///
/// Like swift-nio's `syscall` wrapper, every C call whose failure matters goes through `check`,
/// so the error names the call and carries `errno`.
struct EventError: Error, CustomStringConvertible, Equatable {
    /// The C function that failed.
    let call: String
    /// `errno` right after the failure (0 when the call does not set it).
    let errno: Int32
    /// What the caller was doing, for the message.
    var context: String?

    static func call(_ call: String, errno: Int32, context: String? = nil) -> EventError {
        EventError(call: call, errno: errno, context: context)
    }

    /// Throws when a libevent-style status (0 success, -1 failure) reports failure.
    static func check(_ status: Int32, _ call: String, context: String? = nil) throws(EventError) {
        if status < 0 { throw EventError(call: call, errno: cevent_errno(), context: context) }
    }

    var description: String {
        var text = "\(call) failed"
        if let context { text += " (\(context))" }
        if errno != 0 { text += ": \(String(cString: strerror(errno)))" }
        return text
    }
}
