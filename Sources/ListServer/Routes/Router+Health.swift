/// `GET /healthz` and `GET /readyz`: answers for orchestrators (Docker `HEALTHCHECK`, Kubernetes probes, load
/// balancers), computed without touching the catalog or the detail cache.
///
/// - `/healthz` (liveness): `200 {"status":"ok"}` whenever a loop thread can answer at all.
/// - `/readyz` (readiness): `200 {"status":"ready"}` while the server takes traffic.
///
/// Readiness needs no state here, because the two "not ready" phases never reach the router:
/// - **Starting:** `Application.start` builds the catalog, the cache and the router before the listening sockets
///   accept anything, so until the server is ready a probe's connection is refused.
/// - **Draining:** from the start of a shutdown the LibEvent layer answers every request, `/readyz` included, with
///   `503` (`urn:listserver:problem:shutting-down`) and `Connection: close`, and new connections are refused.
///
/// Both answers carry `Cache-Control: no-store` so that no proxy between a probe and the server replays a stale one.
/// Other methods get the router's usual 405 with `Allow: GET, HEAD`.
extension Router {
    /// The body of `GET /healthz`.
    static let healthyBody = Array(#"{"status":"ok"}"#.utf8)
    /// The body of `GET /readyz`.
    static let readyBody = Array(#"{"status":"ready"}"#.utf8)

    /// The answer to `GET /healthz` (`ready: false`) or `GET /readyz` (`ready: true`).
    static func probeResponse(ready: Bool) -> HTTPResponse {
        HTTPResponse(
            status: 200,
            headers: ["Content-Type": MediaType.json, "Cache-Control": "no-store"],
            body: ready ? readyBody : healthyBody)
    }
}
