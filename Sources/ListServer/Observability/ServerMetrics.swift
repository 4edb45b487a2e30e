import ListDomain
import Metrics
import Prometheus
import Synchronization

/// The server's metrics: swift-metrics handles backed by one `PrometheusCollectorRegistry`, exported as Prometheus
/// text at `GET /metrics`.
///
/// | metric | type | labels | what |
/// |---|---|---|---|
/// | `listserver_http_requests_total` | counter | `route`, `status` | responses sent, by route template (``RouteLabel``) |
/// | `listserver_http_request_duration_seconds` | histogram | `route` | from evhttp's callback to the reply |
/// | `listserver_http_requests_in_flight` | gauge | | requests received and not yet answered |
/// | `listserver_http_connections_open` | gauge | | client connections open now |
/// | `listserver_http_output_unsent_bytes` | gauge | | answers queued, not yet taken by the kernel |
/// | `listserver_http_connections_dropped_unread_total` | counter | | connections closed for not reading answers |
/// | `listserver_http_requests_rejected_total` | counter | `status` | request heads refused by the limits |
/// | `listserver_detail_cache_*` | counters, gauges | | ``DetailCache/statistics`` at scrape time |
/// | `listserver_allocator_allocated_bytes`, `…_resident_bytes` | gauges | | ``Allocator/statistics()`` at scrape time |
/// | `listserver_datasets_*` | gauges, counter | | ``ListMemoryStatistics`` at scrape time (`+Datasets.swift`) |
/// | `listserver_journal_*` | gauges, counter | | the request journal's usage at scrape time (`+Journal.swift`) |
/// | `listserver_image_*` | counters, gauges | | the image cache's statistics at scrape time (`+Images.swift`) |
/// | `listserver_writes_total` | counter | `method`, `outcome` | answers to writes (`+Writes.swift`) |
/// | `listserver_store_commit_*` | histogram, counter | | group commits: their time and the writes they carried |
///
/// Each series is made once through the registry, with its `# HELP` text, and wrapped in the swift-metrics type that
/// records it (`Counter`, `Timer`, `Meter`): the code that records sees only swift-metrics, and the registry
/// renders the text format. (`PrometheusMetricsFactory` would make the same objects, but without help texts.)
///
/// Recording costs no lookups: ``LoopObserver`` asks for a request counter once per route and status and keeps it,
/// per loop. The two gauges that change with every request or connection are summed from per-loop atomics at
/// scrape time instead of being updated through shared memory by every loop.
final class ServerMetrics: Sendable {
    /// The media type of the Prometheus text format, version 0.0.4.
    static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    /// The upper bounds of the duration histogram's buckets: 0.5 ms to 5 s (a page takes tens of microseconds, a
    /// detail miss 0.5 to 2 s by default).
    static let durationBuckets: [Duration] = [
        .microseconds(500), .milliseconds(1), .microseconds(2500), .milliseconds(5), .milliseconds(10),
        .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500),
        .seconds(1), .milliseconds(2500), .seconds(5),
    ]

    /// The statuses a refused request head can get; their counters exist (at 0) from the start.
    static let rejectionStatuses = [400, 408, 411, 413, 414, 431, 501, 505]

    /// Where every series lives, and what renders the text format.
    let registry = PrometheusCollectorRegistry()

    /// The factory the swift-metrics wrappers report `destroy()` to.
    private let factory: PrometheusMetricsFactory

    /// The values of the `route` label: the route names the metrics were made with, then `other`.
    let routeNames: [String]

    /// Request durations, by ``slot(of:)``.
    let durations: [Metrics.Timer]

    private let inFlight: Meter
    private let openConnections: Meter
    private let unsentOutput: Meter
    private let droppedUnread: Metrics.Counter
    /// What was added to ``droppedUnread`` so far.
    private let droppedUnreadAdded = Mutex<UInt64>(0)
    private let allocated: Meter
    private let resident: Meter
    private let cache: CacheSeries
    private let images: ImageSeries
    private let datasets: DatasetSeries
    private let journal: JournalSeries
    private let profiles: ProfileSeries
    /// The write path's series (`ServerMetrics+Writes.swift`).
    let writes: WriteSeries

    /// Every loop's gauges, summed at scrape time.
    private let loops = Mutex<[LoopGauges]>([])

    /// Creates every series of a fresh registry.
    ///
    /// - Parameter routes: The name of each route, by ``RouteLabel/index``: the route table's path templates.
    init(routes: [String]) {
        precondition(!routes.contains(RouteLabel.otherName), "a route may not be called \(RouteLabel.otherName)")
        routeNames = routes + [RouteLabel.otherName]
        factory = PrometheusMetricsFactory(registry: registry)
        let durationName = Self.descriptor(
            "http", "request_duration", unit: "seconds",
            help: "Time from receiving a request to handing its answer to the connection, by route.")
        durations = routeNames.map { [registry, factory] route in
            let labels = [("route", route)]
            let histogram = registry.makeDurationHistogram(
                descriptor: durationName, labels: labels, buckets: Self.durationBuckets)
            return Metrics.Timer(label: durationName.name, dimensions: labels, handler: histogram, factory: factory)
        }
        inFlight = Self.meter(
            registry, factory,
            Self.descriptor("http", "requests_in_flight", help: "Requests received, not yet answered."))
        openConnections = Self.meter(
            registry, factory, Self.descriptor("http", "connections_open", help: "Client connections open now."))
        unsentOutput = Self.meter(
            registry, factory,
            Self.descriptor(
                "http", "output_unsent", unit: "bytes",
                help: "Bytes of answers (event streams aside) queued for clients, not yet taken by the kernel."))
        droppedUnread = Self.counter(
            registry, factory,
            Self.descriptor(
                "http", "connections_dropped_unread", unit: "total",
                help:
                    "Connections closed because their clients did not read their answers (\(SettingKey.maxOutputBytes.name))."
            ))
        allocated = Self.meter(
            registry, factory,
            Self.descriptor(
                "allocator", "allocated", unit: "bytes", help: "Bytes of memory the server holds (jemalloc's count)."))
        resident = Self.meter(
            registry, factory,
            Self.descriptor(
                "allocator", "resident", unit: "bytes",
                help: "Bytes of physical memory in the allocator's pages (its share of the resident set)."))
        cache = CacheSeries(registry: registry, factory: factory)
        images = ImageSeries(registry: registry, factory: factory)
        datasets = DatasetSeries(registry: registry, factory: factory)
        journal = JournalSeries(registry: registry, factory: factory)
        profiles = ProfileSeries(registry: registry, factory: factory)
        writes = WriteSeries(registry: registry)
        for status in Self.rejectionStatuses { _ = rejectionCounter(status: status) }
    }

    // MARK: Series for the loops

    /// `label`'s place in ``routeNames`` (and ``durations``).
    func slot(of label: RouteLabel) -> Int {
        guard let index = label.index else { return routeNames.count - 1 }
        precondition(index < routeNames.count - 1, "route \(index) was not named to the metrics")
        return index
    }

    /// The counter of responses on `route` with `status`; the same series for every caller.
    func requestCounter(route: RouteLabel, status: Int) -> Metrics.Counter {
        let name = Self.descriptor(
            "http", "requests", unit: "total", help: "Responses sent, by route template and status code.")
        let labels = [("route", routeNames[slot(of: route)]), ("status", String(status))]
        return Metrics.Counter(
            label: name.name, dimensions: labels, handler: registry.makeCounter(descriptor: name, labels: labels),
            factory: factory)
    }

    /// The counter of request heads refused with `status` before reaching the router.
    func rejectionCounter(status: Int) -> Metrics.Counter {
        let name = Self.descriptor(
            "http", "requests_rejected", unit: "total",
            help: "Request heads refused by the HTTP limits (malformed, too large, too slow), by status code.")
        let labels = [("status", String(status))]
        return Metrics.Counter(
            label: name.name, dimensions: labels, handler: registry.makeCounter(descriptor: name, labels: labels),
            factory: factory)
    }

    /// Shows the request journal's usage in the `listserver_journal_*` series from now on.
    func observe(_ journal: Journal) {
        self.journal.observe(journal)
    }

    /// What the loops' connections hold of answers their clients have not read, and how many connections were
    /// closed for that so far, summed now (what `/metrics` shows, without asking for it: an answer over the output
    /// budget's threshold itself, which the budget refuses while clients hold it).
    var output: (unsent: Int, dropped: Int) {
        let sums = loopSums
        return (sums.unsent, sums.dropped)
    }

    /// Every loop's gauges, summed.
    private var loopSums: (inFlight: Int, connections: Int, unsent: Int, dropped: Int) {
        loops.withLock { loops in
            loops.reduce(into: (0, 0, 0, 0)) { sums, loop in
                sums.0 += loop.inFlight.load(ordering: .relaxed)
                sums.1 += loop.connections.load(ordering: .relaxed)
                sums.2 += loop.unsentOutput.load(ordering: .relaxed)
                sums.3 += loop.droppedUnread.load(ordering: .relaxed)
            }
        }
    }

    /// Registers one loop's gauges; they count from now on.
    func makeLoopGauges() -> LoopGauges {
        let gauges = LoopGauges()
        loops.withLock { $0.append(gauges) }
        return gauges
    }

    // MARK: Scraping

    /// The Prometheus text for `GET /metrics`, after bringing the gauges and the cache series up to date.
    ///
    /// - Parameters:
    ///   - statistics: The detail cache's counters now.
    ///   - imageStatistics: The image cache's counters now; nil leaves its series as they are.
    ///   - lists: The lists in memory now; nil leaves their series as they are.
    func exposition(
        cache statistics: DetailCacheStatistics, images imageStatistics: ImageCacheStatistics? = nil,
        lists: ListMemoryStatistics? = nil, profiles profileStatistics: ProfileRegistry.Statistics? = nil
    ) -> [UInt8] {
        let (requests, connections, unsent, dropped) = loopSums
        inFlight.set(requests)
        openConnections.set(connections)
        unsentOutput.set(unsent)
        droppedUnreadAdded.withLock { CacheSeries.advance(droppedUnread, from: &$0, to: UInt64(dropped)) }
        if let memory = Allocator.statistics() {
            allocated.set(memory.allocated)
            resident.set(memory.resident)
        }
        cache.update(statistics)
        if let imageStatistics { images.update(imageStatistics) }
        if let lists { datasets.update(lists) }
        if let profileStatistics { profiles.update(profileStatistics) }
        journal.update()
        return registry.emitToBuffer()
    }

    // MARK: Making series

    /// The name `listserver_<subsystem>_<name>[_<unit>]` and its help text.
    static func descriptor(_ subsystem: String, _ name: String, unit: String = "", help: String)
        -> MetricNameDescriptor
    {
        MetricNameDescriptor(
            namespace: "listserver", subsystem: subsystem, metricName: name, unitName: unit, helpText: help)
    }

    /// A gauge without labels.
    static func meter(
        _ registry: PrometheusCollectorRegistry, _ factory: PrometheusMetricsFactory, _ name: MetricNameDescriptor
    ) -> Meter {
        Meter(label: name.name, dimensions: [], handler: registry.makeGauge(descriptor: name), factory: factory)
    }

    /// A counter without labels.
    static func counter(
        _ registry: PrometheusCollectorRegistry, _ factory: PrometheusMetricsFactory, _ name: MetricNameDescriptor
    ) -> Metrics.Counter {
        Metrics.Counter(
            label: name.name, dimensions: [], handler: registry.makeCounter(descriptor: name), factory: factory)
    }
}

/// One loop's share of the in-flight and open-connection gauges: written only by that loop's thread, read by
/// whichever loop serves a scrape.
///
/// The padding keeps two loops' counters off one cache line, so loops never contend for it.
final class LoopGauges: Sendable {
    /// Requests this loop has received and not answered yet.
    let inFlight = Atomic<Int>(0)
    /// Connections this loop holds open.
    let connections = Atomic<Int>(0)
    /// Bytes of answers this loop's clients have not read yet, and connections it closed for that so far.
    let unsentOutput = Atomic<Int>(0)
    let droppedUnread = Atomic<Int>(0)
    private let padding: (Int, Int, Int, Int) = (0, 0, 0, 0)

    /// Adds `delta` to ``inFlight``; loop thread only (one writer, so no read-modify-write instruction is needed).
    func addInFlight(_ delta: Int) {
        inFlight.store(inFlight.load(ordering: .relaxed) &+ delta, ordering: .relaxed)
    }
}
