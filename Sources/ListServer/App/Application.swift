import ListDomain
import Logging

/// A running ListServer: the domain (catalog, slow store, detail cache), the router, and the
/// HTTP server, wired from `Settings`. Main runs one; end-to-end tests run several on port 0.
final class Application: Sendable {
    let settings: Settings
    let cache: DetailCache
    /// The metrics served at `/metrics` and the access log.
    let observability: Observability
    private let server: HTTPServer

    /// Builds the domain and starts serving on the configured address.
    ///
    /// - Parameters:
    ///   - settings: What to serve, where, and what to measure and log.
    ///   - clock: The slow store's clock.
    ///   - accessLogger: Where access lines go when `log.access` is on; by default nowhere, so that embedders and
    ///     tests choose (`Main` passes the process's `ListServer.access` logger).
    ///   - faults: The limits of `?delay_ms` and the injected faults; by default those `settings` configure.
    static func start(
        settings: Settings,
        clock: any Clock<Duration> = ContinuousClock(),
        accessLogger: Logger = Logger(label: "ListServer.access") { _ in SwiftLogNoOpLogHandler() },
        faults: FaultSettings? = nil
    ) throws -> Application {
        let catalogs = LiveCatalog(
            seed: settings.seed, count: settings.itemCount, growEvery: .milliseconds(settings.growEveryMs))
        let store = SlowStore(catalog: catalogs.snapshot().catalog, latency: settings.latency, clock: clock)
        let cache = DetailCache(store: store, capacity: settings.cacheCapacity)
        let observability = Observability(settings: settings, accessLogger: accessLogger)
        let router = Router(
            catalogs: catalogs, cache: cache, paging: settings.paging, observability: observability,
            service: ServiceOptions(settings), faultInjector: FaultInjector(seed: settings.faultSeed),
            faults: faults ?? FaultSettings(settings))
        let server = try HTTPServer.start(
            host: settings.host, port: settings.port, threads: settings.threads, limits: settings.limits, router: router
        )
        return Application(settings: settings, cache: cache, observability: observability, server: server)
    }

    private init(settings: Settings, cache: DetailCache, observability: Observability, server: HTTPServer) {
        self.settings = settings
        self.cache = cache
        self.observability = observability
        self.server = server
    }

    /// The port actually bound.
    var port: Int { server.port }

    /// `host:port` as bound, IPv6 in brackets.
    var address: String {
        server.host.contains(":") ? "[\(server.host)]:\(server.port)" : "\(server.host):\(server.port)"
    }

    /// Drains requests in flight (at most `grace`, by default `shutdown.grace_ms`) and stops every loop.
    func shutdown(grace: Duration? = nil) async {
        await server.shutdown(grace: grace ?? settings.shutdownGrace)
    }

    /// Returns once the server has stopped.
    func waitUntilStopped() async {
        await server.waitUntilStopped()
    }
}
