import Testing

@testable import ListServer

/// Starts a real ListServer on 127.0.0.1 with an ephemeral port, runs `body`, and always shuts it down.
///
/// Latency defaults to a short, fixed 300 ms so that a miss is clearly slower than a hit without
/// making the suite slow; tests that need other settings pass `configure`, and other fault limits `faults`.
func withServer<T: Sendable>(
    configure: (inout Settings) -> Void = { _ in },
    faults: FaultSettings? = nil,
    _ body: (Application) async throws -> T
) async throws -> T {
    var settings = testSettings()
    configure(&settings)
    let app = try await Application.start(settings: settings, faults: faults)
    do {
        let result = try await body(app)
        await app.shutdown(grace: .seconds(5))
        return result
    } catch {
        await app.shutdown(grace: .seconds(5))
        throw error
    }
}

/// Settings for a server on 127.0.0.1 with an ephemeral port whose store waits exactly `latencyMs`, keeping its
/// writes in an in-memory SQLite database (tests of durability set `dataPath` to a file in a temporary folder).
func testSettings(threads: Int = 2, latencyMs: Int = 300) -> Settings {
    var settings = Settings(threads: threads)
    settings.host = "127.0.0.1"
    settings.port = 0
    settings.dataPath = ":memory:"
    settings.latencyMinMs = latencyMs
    settings.latencyMaxMs = latencyMs
    settings.imageLatencyMinMs = latencyMs
    settings.imageLatencyMaxMs = latencyMs
    return settings
}

/// Waits until the store has started `count` fetches, so that many requests are truly in flight.
///
/// - Throws: ``TestFailure`` saying how many fetches had started when it gives up (after 10 s).
func waitForStoreFetches(_ app: Application, _ count: UInt64) async throws {
    try await waitUntil(
        "the store to start \(count) fetches", describe: { "\($0) started" },
        observe: { app.cache.statistics.storeFetches }, isDone: { $0 >= count })
}

/// Expects the server on `port` still to answer a plain request on a new connection, correctly: `GET /items/1` is
/// a 200 with item 1.
func expectHealthy(port: Int, sourceLocation: SourceLocation = #_sourceLocation) async throws {
    let response = try await fetch(port: port, "/items/1")
    #expect(response.status == 200, sourceLocation: sourceLocation)
    let item = try response.jsonObject()
    #expect(item["label"] as? String == "Line 1", sourceLocation: sourceLocation)
}
