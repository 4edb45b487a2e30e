import ListDomain

/// A running ListServer: the domain (catalog, slow store, detail cache), the router, and the
/// HTTP server, wired from `Settings`. Main runs one; end-to-end tests run several on port 0.
final class Application: Sendable {
    let settings: Settings
    let cache: DetailCache
    private let server: HTTPServer

    /// Builds the domain and starts serving on the configured address.
    static func start(settings: Settings, clock: any Clock<Duration> = ContinuousClock()) throws -> Application {
        let catalog = Catalog(seed: settings.seed, count: settings.itemCount)
        let latency = LatencyDistribution.uniform(
            min: .milliseconds(settings.latencyMinMs), max: .milliseconds(settings.latencyMaxMs))
        let store = SlowStore(catalog: catalog, latency: latency, clock: clock)
        let cache = DetailCache(store: store, capacity: settings.cacheCapacity)
        let router = Router(catalog: catalog, cache: cache, paging: settings.paging)
        let server = try HTTPServer.start(
            host: settings.host, port: settings.port, threads: settings.threads, limits: settings.limits, router: router
        )
        return Application(settings: settings, cache: cache, server: server)
    }

    private init(settings: Settings, cache: DetailCache, server: HTTPServer) {
        self.settings = settings
        self.cache = cache
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
