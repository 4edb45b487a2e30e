/// `GET /metrics`: the Prometheus text format, from this server's ``ServerMetrics``.
extension Router {
    /// The 404 every method gets on `/metrics` while ``SettingKey/metricsEnabled`` is false.
    static let metricsDisabled = Problem(
        .notFound, detail: "there is no resource at \"/metrics\" (\(SettingKey.metricsEnabled.name) is false)")

    /// `GET /metrics`: the detail cache's and the image cache's statistics as they are at scrape time.
    ///
    /// The answer is `text/plain; version=0.0.4; charset=utf-8` with `Cache-Control: no-store`; any query is
    /// ignored. With ``SettingKey/metricsEnabled`` false there is no such resource (404).
    func scrapeMetrics() throws(Problem) -> RouteOutcome {
        guard let metrics = observability.metrics else {
            throw Self.metricsDisabled
        }
        return .response(
            HTTPResponse(
                status: 200,
                headers: ["Content-Type": ServerMetrics.contentType, "Cache-Control": "no-store"],
                body: metrics.exposition(
                    cache: cache.statistics, images: images?.statistics, lists: writes.lists.memoryStatistics,
                    profiles: profiles.statistics)))
    }
}
