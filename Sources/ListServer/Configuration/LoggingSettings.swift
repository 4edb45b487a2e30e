import Logging

/// How the server logs: the ``SettingKey/logLevel``, ``SettingKey/logFormat`` and ``SettingKey/accessLog`` keys.
///
/// Read by ``Settings/load(options:environment:activeProcessorCount:)``; ``LogOutput/bootstrap(_:)`` applies the
/// level and format to every logger of the process, and ``Observability`` turns the access log on or off.
struct LoggingSettings: Sendable, Equatable {
    /// ``SettingKey/logLevel``: the least severe level written (`trace`, `debug`, `info`, `notice`, `warning`, `error`,
    /// `critical`). Access lines are `info`, so a level above it silences them too.
    var level = Logger.Level.info

    /// ``SettingKey/logFormat``: `text` (swift-log's `StreamLogHandler` lines, for people) or `json` (one JSON object
    /// per line, for log collectors).
    var format = LogFormat.text

    /// ``SettingKey/accessLog``: whether every answered request gets a log line.
    var accessLog = true
}

/// The shape of log lines (``SettingKey/logFormat``).
enum LogFormat: String, CaseIterable, Sendable {
    /// `2026-03-02T10:00:00+0000 info ListServer: [ListServer] listening on …`: swift-log's `StreamLogHandler`.
    case text
    /// `{"timestamp":"2026-03-02T10:00:00.123Z","level":"info","label":"ListServer","message":"…","metadata":{}}`.
    case json
}
