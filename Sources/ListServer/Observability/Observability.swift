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

    /// Neither metrics nor an access log: what a router gets unless told otherwise.
    package static let disabled = Observability(metrics: nil, accessLog: nil)

    /// Creates an observability from its parts.
    init(metrics: ServerMetrics?, accessLog: AccessLog?) {
        self.metrics = metrics
        self.accessLog = accessLog
    }

    /// Creates the metrics and access log the settings ask for.
    ///
    /// - Parameters:
    ///   - settings: ``SettingKey/metricsEnabled``, ``SettingKey/accessLog``, ``SettingKey/logFormat`` and
    ///     ``SettingKey/logLevel``.
    ///   - accessLogger: Where access lines go (at level `info`); its own log level is respected too.
    ///   - routes: The name of each route requests are counted under (``ServerMetrics/init(routes:)``).
    convenience init(settings: Settings, accessLogger: Logger, routes: [String]) {
        let logs = settings.logging.accessLog && settings.logging.level <= .info && accessLogger.logLevel <= .info
        self.init(
            metrics: settings.metricsEnabled ? ServerMetrics(routes: routes) : nil,
            accessLog: logs ? AccessLog(logger: accessLogger, format: settings.logging.format) : nil)
    }

    /// A recorder for one event loop; call on that loop's thread, and use it only there.
    func makeLoopObserver() -> LoopObserver {
        LoopObserver(metrics: metrics, accessLog: accessLog)
    }
}
