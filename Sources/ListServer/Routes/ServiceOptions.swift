/// The router's client-facing options that are not paging: CORS, page latency, admin access, the dataset TTL it
/// reports, Lorem Picsum's routes, the public URL, and how long a read waits for a replica to catch up.
package struct ServiceOptions: Sendable, Equatable {
    /// ``SettingKey/corsAllowOrigin``: who may read responses from a browser; nil sends no CORS fields.
    var cors: CORSPolicy? = CORSPolicy(origins: .any)
    /// ``SettingKey/pageLatencyMs``: how long every `/items` list response is held before it is sent.
    var pageLatency: Duration = .zero
    /// ``SettingKey/adminToken``: the bearer token admin endpoints require; with none, loopback clients get in without
    /// one.
    var adminToken = AdminToken.none
    /// ``SettingKey/datasetTTLSeconds``: how long an idle dataset is kept (shown by `GET /admin/datasets`; zero: for
    /// ever).
    var datasetTTL: Duration = .zero
    /// ``SettingKey/adminAllowedOrigins`` (and the server's own origin): which web pages may call the admin endpoints.
    var adminOrigin = AdminOrigin(allowed: .none, publicURL: nil)
    /// ``SettingKey/imageProgressive``: whether a JPEG is progressive when the request does not say.
    var imageProgressive = false
    /// ``SettingKey/picsumEnabled``: whether Lorem Picsum's routes are served (404 otherwise).
    var picsumEnabled = true
    /// ``SettingKey/publicURL``: the base of absolute URLs; nil takes each request's `Host`.
    var publicURL: String?
    /// The longest a read waits for its list's copy to catch up with another server's commit
    /// (`Router+Replicas.swift`); not a setting: tests change it.
    var catchUpWait: Duration = .milliseconds(200)
}
