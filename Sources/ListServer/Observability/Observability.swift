import Logging

/// What one server measures and logs about its requests: the metrics behind `GET /metrics` and the access log.
///
/// Made once per ``Application`` from its settings and shared by the router (which serves `/metrics`) and every
/// loop (each records through a ``LoopObserver`` of its own). Either part may be off.
package final class Observability: Sendable {
    /// The metrics, or nil when ``SettingKey/metricsEnabled`` is false (then `/metrics` is 404).
    let metrics: ServerMetrics?
    /// The access log, or nil when ``SettingKey/accessLog`` is false or ``SettingKey/logLevel`` is above `info`.
    let accessLog: AccessLog?
    /// The request journal, or nil when ``SettingKey/journalCapacity`` is 0.
    let journal: Journal?

    /// Neither metrics nor an access log nor a journal: what a router gets unless told otherwise.
    package static let disabled = Observability(metrics: nil, accessLog: nil)

    /// Creates an observability from its parts.
    init(metrics: ServerMetrics?, accessLog: AccessLog?, journal: Journal? = nil) {
        self.metrics = metrics
        self.accessLog = accessLog
        self.journal = journal
        if let metrics, let journal { metrics.observe(journal) }
    }

    /// Creates the metrics and access log the settings ask for.
    ///
    /// - Parameters:
    ///   - settings: ``SettingKey/metricsEnabled``, ``SettingKey/accessLog``, ``SettingKey/logFormat`` and
    ///     ``SettingKey/logLevel``.
    ///   - accessLogger: Where access lines go (at level `info`); its own log level is respected too.
    ///   - routes: The name of each route requests are counted under (``ServerMetrics/init(routes:)``).
    ///   - journalDataset: The dataset a request went to, given its route's place in `routes` and its `X-Dataset`
    ///     field (the router's rule).
    convenience init(
        settings: Settings, accessLogger: Logger, routes: [String],
        journalDataset: @escaping @Sendable (HTTPRequest, Int?, String?) -> Journal.Attribution? = { _, _, _ in nil },
        wallMillisecondsNow: Int64 = 0
    ) {
        let logs = settings.logging.accessLog && settings.logging.level <= .info && accessLogger.logLevel <= .info
        self.init(
            metrics: settings.metricsEnabled ? ServerMetrics(routes: routes) : nil,
            accessLog: logs ? AccessLog(logger: accessLogger, format: settings.logging.format) : nil,
            journal: settings.journal.capacity > 0
                ? Journal(
                    settings: settings.journal, routes: routes, epochWallMilliseconds: wallMillisecondsNow,
                    datasetOf: journalDataset) : nil)
    }

    /// A recorder for one event loop; call on that loop's thread, and use it only there.
    func makeLoopObserver() -> LoopObserver {
        LoopObserver(metrics: metrics, accessLog: accessLog, journal: journal)
    }
}
