/// The router's client-facing options that are not paging: CORS, page latency and admin access.
package struct ServiceOptions: Sendable, Equatable {
    /// `cors.allow_origin`: who may read responses from a browser; nil sends no CORS fields.
    var cors: CORSPolicy? = CORSPolicy(origins: .any)
    /// `items.latency_ms`: how long every `/items` list response is held before it is sent.
    var pageLatency: Duration = .zero
    /// `admin.token`: the bearer token admin endpoints require; with none, loopback clients get in without one.
    var adminToken = AdminToken.none
    /// `data.dataset_ttl_s`: how long an idle dataset is kept (shown by `GET /admin/datasets`; zero: for ever).
    var datasetTTL: Duration = .zero
    /// `admin.allowed_origins` (and the server's own origin): which web pages may call the admin endpoints.
    var adminOrigin = AdminOrigin(allowed: .none, publicURL: nil)
    /// `picsum.enabled`: whether Lorem Picsum's routes are served (404 otherwise).
    var picsumEnabled = true
    /// `server.public_url`: the base of absolute URLs; nil takes each request's `Host`.
    var publicURL: String?
    /// The longest a read waits for its list's copy to catch up with another server's commit
    /// (`Router+Replicas.swift`); not a setting: tests change it.
    var catchUpWait: Duration = .milliseconds(200)
}
