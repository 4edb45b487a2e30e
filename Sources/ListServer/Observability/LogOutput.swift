import FoundationEssentials
import Glibc
import Logging
import Synchronization

/// The process's log output: every `Logger` writes through one ``BufferedLogWriter`` on standard error, as text or
/// as JSON lines, at the configured level.
enum LogOutput {
    /// Points swift-log's `LoggingSystem` at standard error with `settings`' format and level; call once, first
    /// thing in `main`.
    ///
    /// - Returns: The writer; ``BufferedLogWriter/flush()`` it before the process exits.
    static func bootstrap(_ settings: LoggingSettings) -> BufferedLogWriter {
        pinTimeZone()
        let writer = BufferedLogWriter(droppedNotice: { droppedNotice($0, format: settings.format) })
        let stream = BufferedLogStream(writer: writer)
        LoggingSystem.bootstrap { label in
            var handler = makeHandler(label: label, format: settings.format, stream: stream)
            handler.logLevel = settings.level
            return handler
        }
        return writer
    }

    /// Sets `TZ` to `:/etc/localtime` when it is not set, which names the same zone glibc uses without it.
    ///
    /// `StreamLogHandler` stamps each line with `localtime`, and glibc's `localtime` with no `TZ` checks
    /// `/etc/localtime` again on every call (a `stat` of the path, measured at about a tenth of an access line's
    /// cost); with `TZ` set it sees the value unchanged and goes on. Call before any other thread runs: `setenv`
    /// is not safe alongside `getenv` elsewhere.
    static func pinTimeZone() {
        if ProcessInfo.processInfo.environment["TZ"] == nil { setenv("TZ", ":/etc/localtime", 0) }
    }

    /// The handler for one logger: swift-log's `StreamLogHandler` for text, ``JSONLinesLogHandler`` for JSON.
    static func makeHandler(
        label: String,
        format: LogFormat,
        stream: any TextOutputStream & Sendable,
        provider: Logger.MetadataProvider? = nil
    ) -> any LogHandler {
        switch format {
        case .text: StreamLogHandler(label: label, stream: stream, metadataProvider: provider)
        case .json: JSONLinesLogHandler(label: label, stream: stream, metadataProvider: provider)
        }
    }

    /// The line that reports `count` lines lost because standard error did not keep up, in `format`.
    static func droppedNotice(_ count: Int, format: LogFormat) -> String {
        let line = CapturedLine()
        let logger = Logger(label: "ListServer") { makeHandler(label: $0, format: format, stream: line) }
        logger.warning("\(count) log lines dropped: standard error did not keep up")
        return line.text
    }
}

/// A stream that keeps what is written to it (one line, for ``LogOutput/droppedNotice(_:format:)``).
private final class CapturedLine: TextOutputStream, Sendable {
    private let storage = Mutex("")

    /// Everything written so far.
    var text: String { storage.withLock { $0 } }

    func write(_ string: String) {
        storage.withLock { $0 += string }
    }
}
