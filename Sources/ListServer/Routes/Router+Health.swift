/// `GET /healthz` and `GET /readyz`: answers for orchestrators (Docker `HEALTHCHECK`, Kubernetes probes, load
/// balancers), computed without touching the catalog or the detail cache.
///
/// - `/healthz` (liveness): `200 {"status":"ok"}` whenever a loop thread can answer at all.
/// - `/readyz` (readiness): `200 {"status":"ready","store":"ok"}` while the server takes traffic, and
///   `200 {"status":"ready","store":"unreachable"}` while its database (a shared PostgreSQL store) is down: writes
///   then answer 503, but pages, generated items, cached details and images go on, and a replica that turned
///   not-ready would take those down with it, every replica at once since they share the database. So the body
///   says it, for a person or a monitor, and the status stays 200 for the load balancer.
///
/// Readiness needs no state here, because the two "not ready" phases never reach the router:
/// - **Starting:** `Application.start` builds the catalog, the cache and the router before the listening sockets
///   accept anything, so until the server is ready a probe's connection is refused.
/// - **Draining:** from the start of a shutdown the LibEvent layer answers every request, `/readyz` included, with
///   `503` (`urn:listserver:problem:shutting-down`) and `Connection: close`, and new connections are refused.
///
/// Both answers carry `Cache-Control: no-store` so that no proxy between a probe and the server replays a stale one.
/// Other methods get the router's usual 405 with `Allow: GET, HEAD, OPTIONS`.
extension Router {
    /// The body of `GET /healthz`.
    static let healthyBody = Array(#"{"status":"ok"}"#.utf8)
    /// The bodies of `GET /readyz`, with the store reachable and not.
    static let readyBody = Array(#"{"status":"ready","store":"ok"}"#.utf8)
    static let readyWithoutStoreBody = Array(#"{"status":"ready","store":"unreachable"}"#.utf8)

    /// The answer to `GET /healthz` (`ready: false`) or `GET /readyz` (`ready: true`).
    static func probeResponse(ready: Bool, storeReachable: Bool = true) -> HTTPResponse {
        HTTPResponse(
            status: 200,
            headers: ["Content-Type": MediaType.json, "Cache-Control": "no-store"],
            body: ready ? (storeReachable ? readyBody : readyWithoutStoreBody) : healthyBody)
    }
}
