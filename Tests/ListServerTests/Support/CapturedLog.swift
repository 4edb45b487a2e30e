import Logging
import Synchronization

@testable import ListServer

/// A `TextOutputStream` that keeps every write, for log handler tests.
final class CapturedLog: TextOutputStream, Sendable {
    private let storage = Mutex("")

    func write(_ string: String) {
        storage.withLock { $0 += string }
    }

    /// Everything written so far.
    var text: String { storage.withLock { $0 } }

    /// The complete lines written so far.
    var lines: [String] { text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init) }

    /// A logger labelled `label` writing here in `format`, at `level`.
    func logger(_ label: String, format: LogFormat, level: Logger.Level = .info) -> Logger {
        var logger = Logger(label: label) { LogOutput.makeHandler(label: $0, format: format, stream: self) }
        logger.logLevel = level
        return logger
    }
}
