/// The route a request is counted under in `/metrics`: a fixed set of templates, so ids and query strings never
/// become label values and the number of time series stays small.
///
/// Classification reads the raw request-target byte by byte without allocating, except for targets that need the
/// router's own parsing to be classified exactly (absolute-form, or a path with percent-encoding), which go through
/// ``RequestTarget`` and its decoded segments. A path counts under a template whatever the answer was: `/items/abc`
/// is `/items/{id}` with status 400, `/items/` is `other` with 404.
enum RouteLabel: Int, CaseIterable, Sendable {
    /// `/items`
    case items
    /// `/items/{id}`
    case item
    /// `/items/{id}/detail`
    case itemDetail
    /// `/healthz`
    case healthz
    /// `/readyz`
    case readyz
    /// `/metrics`
    case metrics
    /// `/openapi.yaml` and `/openapi.json`
    case openAPI
    /// Anything else: unknown paths, malformed targets, rejected request heads.
    case other

    /// The value of the `route` label.
    var template: String {
        switch self {
        case .items: "/items"
        case .item: "/items/{id}"
        case .itemDetail: "/items/{id}/detail"
        case .healthz: "/healthz"
        case .readyz: "/readyz"
        case .metrics: "/metrics"
        case .openAPI: "/openapi"
        case .other: "other"
        }
    }

    /// The route of a raw request-target, as received: `/items?page=2` is ``items``.
    init(target: String) {
        let utf8 = target.utf8
        let pathEnd = utf8.firstIndex(of: UInt8(ascii: "?")) ?? utf8.endIndex
        let path = utf8[..<pathEnd]
        guard path.first == UInt8(ascii: "/"), !path.contains(UInt8(ascii: "%")) else {
            self = Self.decoded(target)
            return
        }
        self = Self.classify(path)
    }

    /// The route of an origin-form path without percent-encoding, such as `/items/42/detail`.
    private static func classify(_ path: Substring.UTF8View) -> RouteLabel {
        if path.starts(with: "/items".utf8) {
            let rest = path.dropFirst(6)
            guard let slash = rest.first else { return .items }
            guard slash == UInt8(ascii: "/") else { return .other }  // `/itemsx`
            let afterSlash = rest.dropFirst()
            guard let nextSlash = afterSlash.firstIndex(of: UInt8(ascii: "/")) else {
                return afterSlash.isEmpty ? .other : .item
            }
            guard nextSlash != afterSlash.startIndex else { return .other }  // `/items//detail`
            return afterSlash[nextSlash...].elementsEqual("/detail".utf8) ? .itemDetail : .other
        }
        if path.elementsEqual("/healthz".utf8) { return .healthz }
        if path.elementsEqual("/readyz".utf8) { return .readyz }
        if path.elementsEqual("/metrics".utf8) { return .metrics }
        if path.elementsEqual("/openapi.yaml".utf8) || path.elementsEqual("/openapi.json".utf8) { return .openAPI }
        return .other
    }

    /// The route of a target the fast path cannot judge, from the segments the router itself would see.
    private static func decoded(_ target: String) -> RouteLabel {
        guard let parsed = try? RequestTarget(target),
            let decodedSegments = try? parsed.segments(maximumCount: Router.maximumSegments)
        else { return .other }
        return classify(segments: decodedSegments)
    }

    /// The route of decoded path segments: `["items", "42"]` is ``item``.
    static func classify(segments: [String]) -> RouteLabel {
        switch segments.count {
        case 1:
            switch segments[0] {
            case "items": return .items
            case "healthz": return .healthz
            case "readyz": return .readyz
            case "metrics": return .metrics
            case "openapi.yaml", "openapi.json": return .openAPI
            default: return .other
            }
        case 2 where segments[0] == "items" && !segments[1].isEmpty:
            return .item
        case 3 where segments[0] == "items" && !segments[1].isEmpty && segments[2] == "detail":
            return .itemDetail
        default:
            return .other
        }
    }
}
