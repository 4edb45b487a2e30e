/// The route a request is counted under in `/metrics`: a fixed set of templates, so ids and query strings never
/// become label values and the number of time series stays small.
///
/// It is derived from the router's own match (``Router/match(_:)``), the resource the path names, so it cannot
/// drift from the routes: a resource has a label or the compiler says so. A path counts under its template whatever
/// the answer was: `/items/abc` is `/items/{id}` with status 400, `/items/` is `other` with 404.
enum RouteLabel: Int, CaseIterable, Sendable {
    /// `/items`
    case items
    /// `/items/{id}`
    case item
    /// `/items/{id}/detail`
    case itemDetail
    /// `/items/{id}/image` (any extension)
    case itemImage
    /// `/healthz`
    case healthz
    /// `/readyz`
    case readyz
    /// `/metrics`
    case metrics
    /// `/openapi.yaml` and `/openapi.json`
    case openAPI
    /// `/admin/reset`
    case adminReset
    /// `/admin/datasets/{name}`
    case adminDataset
    /// `/admin/datasets`
    case adminDatasets
    /// `/items/changes`
    case changes
    /// `/items/events`
    case events
    /// Lorem Picsum's `/v2/list`
    case picsumList
    /// Lorem Picsum's `/id/{id}/info` and `/seed/{seed}/info`
    case picsumInfo
    /// Lorem Picsum's image routes and redirects
    case picsumImage
    /// The browser app: `/` and `/app/{file}`
    case webApp
    /// Anything else: unknown paths, malformed targets, rejected request heads.
    case other

    /// The value of the `route` label.
    var template: String {
        switch self {
        case .items: "/items"
        case .item: "/items/{id}"
        case .itemDetail: "/items/{id}/detail"
        case .itemImage: "/items/{id}/image"
        case .healthz: "/healthz"
        case .readyz: "/readyz"
        case .metrics: "/metrics"
        case .openAPI: "/openapi"
        case .adminReset: "/admin/reset"
        case .adminDataset: "/admin/datasets/{name}"
        case .adminDatasets: "/admin/datasets"
        case .changes: "/items/changes"
        case .events: "/items/events"
        case .picsumList: "/v2/list"
        case .picsumInfo: "/id/{id}/info"
        case .picsumImage: "/id/{id}/{width}/{height}"
        case .webApp: "/app/{file}"
        case .other: "other"
        }
    }

    /// The label of the resource a request named; ``other`` for none (an unknown path or a malformed target).
    init(_ resource: Router.Resource?) {
        switch resource {
        case .items: self = .items
        case .item: self = .item
        case .itemDetail: self = .itemDetail
        case .itemImage: self = .itemImage
        case .picsumList: self = .picsumList
        case .picsumInfo: self = .picsumInfo
        case .picsumImage: self = .picsumImage
        case .probe(let ready): self = ready ? .readyz : .healthz
        case .openAPI: self = .openAPI
        case .metrics: self = .metrics
        case .adminReset: self = .adminReset
        case .adminDataset: self = .adminDataset
        case .adminDatasets: self = .adminDatasets
        case .changes: self = .changes
        case .events: self = .events
        case .webApp: self = .webApp
        case nil: self = .other
        }
    }
}
