@testable import ListServer

/// Starts a real ListServer on 127.0.0.1 with an ephemeral port, runs `body`, and always shuts it down.
///
/// Latency defaults to a short, fixed 300 ms so that a miss is clearly slower than a hit without
/// making the suite slow; tests that need other settings pass `configure`.
func withServer<T: Sendable>(
    configure: (inout Settings) -> Void = { _ in },
    _ body: (Application) async throws -> T
) async throws -> T {
    var settings = Settings(threads: 2)
    settings.host = "127.0.0.1"
    settings.port = 0
    settings.latencyMinMs = 300
    settings.latencyMaxMs = 300
    configure(&settings)
    let app = try Application.start(settings: settings)
    do {
        let result = try await body(app)
        await app.shutdown(grace: .seconds(5))
        return result
    } catch {
        await app.shutdown(grace: .seconds(5))
        throw error
    }
}
