import Foundation

/// A value behind an `NSLock` (a pthread mutex), for test doubles only.
///
/// Not `Synchronization.Mutex`: on Linux that locks with futexes inside a library the thread sanitizer does not
/// instrument, so `swift test --sanitize=thread` reports every access it protects as a race. A pthread mutex is one
/// TSan understands, which keeps its runs of the domain tests free of those false reports.
final class PThreadLocked<Value>: @unchecked Sendable {
    private var value: Value
    private let lock = NSLock()

    init(_ value: Value) {
        self.value = value
    }

    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
