/// The route a request is counted under in `/metrics`: its ``Route``'s path template, the same string as its path in
/// `openapi.yaml`, or `other` for a target that names no route (unknown paths, malformed targets, refused heads).
///
/// A fixed set, so ids and query strings never become label values and the number of time series stays small. It
/// comes from the router's own match (``Router/match(_:)``), so it cannot drift from the routes. A path counts under
/// its template whatever the answer was: `/items/abc` is `/items/{id}` with status 400, `/items/` is `other` with 404.
struct RouteLabel: Sendable, Hashable {
    /// The route; nil for `other`.
    let route: Route?

    /// Unknown paths, malformed targets, refused heads.
    static let other = RouteLabel(route: nil)

    /// Every label: one per route, then `other`; ``index`` is a label's place here.
    static let all: [RouteLabel] = Route.allCases.map { RouteLabel(route: $0) } + [.other]

    /// The label's place in ``all``, for arrays kept per label.
    var index: Int { route?.rawValue ?? Self.otherIndex }

    private static let otherIndex = Route.allCases.count

    /// The value of the `route` label.
    var template: String { route?.facts.template ?? "other" }
}
