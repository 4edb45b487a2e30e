/// The route a request is counted under in `/metrics`: a place among the route names the metrics were made with
/// (``ServerMetrics/init(routes:)``: the route table's path templates, the same strings as the paths in
/// `openapi.yaml`), or `other` for a target that names no route (unknown paths, malformed targets, refused heads).
///
/// A fixed set, so ids and query strings never become label values and the number of time series stays small.
/// Observability does not know the routes: the router names a request's route (``Route/label``) from its own match,
/// and the application hands the route table's templates to the metrics at start-up, so the two cannot drift.
struct RouteLabel: Sendable, Hashable {
    /// The route's place among the route names; nil for `other`.
    let index: Int?

    /// Unknown paths, malformed targets, refused heads.
    static let other = RouteLabel(index: nil)

    /// The value of the `route` label for requests counted under `other`.
    static let otherName = "other"
}
