/// Every route the server answers, one case per path template: the one table of what is true of a route.
///
/// ``facts`` is the table. The path's template is the route's path in `openapi.yaml` and its `route` label in
/// `/metrics`; its methods make `Allow` (on 405 and `OPTIONS`) and the methods a CORS preflight allows; its flags
/// say whether it is admin-only, a stream, a data endpoint (faults), a read that waits for a replica's catch-up,
/// whether it reads `?dataset=` and whether it decodes its own query (``Flags`` holds what is read per request). `RouteTableTests` walks it against `openapi.yaml` both ways
/// and against the router. Matching a target to a route is ``Router/Resource/init(segments:)`` (`/items` itself,
/// and a plain `/conversations/<digits>/messages`, are known without splitting): one pass over the decoded
/// segments, whose resource names its route (``Router/Resource/route``, a switch the compiler checks).
///
/// Adding a route: a case here and its row in `row`, a resource case with its match and its handler in
/// `Router.dispatch`, and its path in `openapi.yaml` and the README's list; the compiler asks for each switch, the
/// table tests for the spec and the README.
package enum Route: Int, CaseIterable, Sendable {
    case items, item, itemDetail, itemImage, itemImageFile
    case picsumList, picsumIDInfo, picsumSeedInfo, picsumIDSquare, picsumIDSized, picsumSeedSquare, picsumSeedSized
    case picsumSquare, picsumSized
    case changes, events, healthz, readyz, openAPIJSON, openAPIYAML, app, appFile, metrics
    case adminReset, adminDatasets, adminDataset, adminDatasetProfile, authToken, authRevoke
    case adminJournal, adminJournalEvents, adminJournalHAR, adminReport
    case conversations, conversation, conversationMessages, conversationMessage, conversationRead
    case conversationEvents

    /// What is true of one route.
    package struct Facts: Sendable {
        /// The path template: `/items/{id}/image`.
        package let template: String
        /// The methods the route answers besides `OPTIONS`, in `Allow`'s order.
        package let methods: [HTTPMethod]
        /// `Allow`: ``methods`` and `OPTIONS`.
        package let allow: String
        /// Admin-only: ``Router/authorizeAdmin(_:)`` first, and no CORS preflight from origins it refuses.
        package let admin: Bool
        /// An event stream (``RouteOutcome/stream(_:)``), which has no HEAD.
        package let stream: Bool
        /// A data endpoint: faults are injected into it (`Router+Faults.swift`).
        package let data: Bool
        /// A read of a list that waits for this server's copy to catch up with other servers' writes
        /// (`Router+Replicas.swift`).
        package let catchesUp: Bool
        /// Reads `?dataset=` beside `X-Dataset` (an `<img>` or an `EventSource` cannot set a header).
        package let datasetQuery: Bool
        /// GET and HEAD read the whole query themselves, so one that does not decode is their own 400, naming the
        /// parameter; on other routes and methods the router answers it.
        package let decodesQuery: Bool
        /// The setting that turns the route off (404 when off).
        package let gate: Gate?
        /// What a client's app asks for (not admin, the probes, `/metrics`, the spec or the app's own files): the
        /// journal records requests to it.
        package let journaled: Bool

        init(
            _ template: String, _ methods: [HTTPMethod] = [.get, .head], admin: Bool = false, stream: Bool = false,
            data: Bool = false, catchesUp: Bool = false, datasetQuery: Bool = false, decodesQuery: Bool = false,
            gate: Gate? = nil, journaled: Bool = true
        ) {
            self.template = template
            self.methods = methods
            allow = (methods + [.options]).map(\.name).joined(separator: ", ")
            self.admin = admin
            self.stream = stream
            self.data = data
            self.catchesUp = catchesUp
            self.datasetQuery = datasetQuery
            self.decodesQuery = decodesQuery
            self.gate = gate
            self.journaled = journaled && !admin
        }
    }

    /// A setting that turns routes off.
    package enum Gate: Sendable {
        /// ``SettingKey/picsumEnabled``
        case picsum
        /// ``SettingKey/metricsEnabled``
        case metrics
    }

    /// This route's facts (from ``table``).
    package var facts: Facts { Self.table[rawValue] }

    /// What routing reads of ``facts`` on every request, as plain values: the methods as bits, the flags, the gate.
    ///
    /// A copy of ``Facts`` retains its `allow` string and `methods` array, and both loops route at once, so each of
    /// those reference counts would move between the cores on every request; a copy of this retains nothing. Only
    /// the answers that need the strings (405, `OPTIONS`, the metrics names) read ``facts``.
    package struct Flags: Sendable {
        /// ``Facts/methods``, a bit each (``bit(of:)``).
        let methodBits: UInt16
        /// As ``Facts``'s flags of the same names.
        let admin, data, catchesUp, datasetQuery, decodesQuery, journaled: Bool
        /// ``Facts/gate``.
        let gate: Gate?

        init(_ facts: Facts) {
            methodBits = facts.methods.reduce(0) { $0 | Route.bit(of: $1) }
            admin = facts.admin
            data = facts.data
            catchesUp = facts.catchesUp
            datasetQuery = facts.datasetQuery
            decodesQuery = facts.decodesQuery
            journaled = facts.journaled
            gate = facts.gate
        }

        /// Whether the route answers `method` (`OPTIONS` aside, which every route answers).
        func answers(_ method: HTTPMethod) -> Bool { methodBits & Route.bit(of: method) != 0 }
    }

    /// This route's ``Flags`` (from ``flagTable``).
    var flags: Flags { Self.flagTable[rawValue] }

    /// ``table``'s flags, by ``rawValue``, made once.
    static let flagTable: [Flags] = table.map(Flags.init)

    /// A method's bit in ``Flags/methodBits``; 0 for a method no route answers.
    private static func bit(of method: HTTPMethod) -> UInt16 {
        switch method {
        case .get: 1 << 0
        case .head: 1 << 1
        case .post: 1 << 2
        case .put: 1 << 3
        case .patch: 1 << 4
        case .delete: 1 << 5
        case .options, .trace, .connect, .other: 0
        }
    }

    /// The facts of every route, by ``rawValue``, made once.
    package static let table: [Facts] = allCases.map(\.row)

    /// The table's row for this route: exhaustive, so no route goes without one.
    private var row: Facts {
        let picsum: (String) -> Facts = { Facts($0, data: true, decodesQuery: true, gate: .picsum) }
        return switch self {
        case .items:
            Facts("/items", [.get, .head, .post], data: true, catchesUp: true, decodesQuery: true)
        case .item:
            Facts("/items/{id}", [.get, .head, .patch, .delete], data: true, catchesUp: true)
        case .itemDetail:
            Facts("/items/{id}/detail", data: true, catchesUp: true)
        case .itemImage:
            Facts(
                "/items/{id}/image", [.get, .head, .put, .delete], data: true, catchesUp: true, datasetQuery: true,
                decodesQuery: true)
        case .itemImageFile:
            Facts("/items/{id}/image.{format}", data: true, catchesUp: true, datasetQuery: true, decodesQuery: true)
        case .conversations:
            Facts("/conversations", data: true, catchesUp: true, decodesQuery: true)
        case .conversation:
            Facts("/conversations/{id}", data: true, catchesUp: true)
        case .conversationMessages:
            Facts(
                "/conversations/{id}/messages", [.get, .head, .post], data: true, catchesUp: true, decodesQuery: true)
        case .conversationMessage:
            Facts(
                "/conversations/{id}/messages/{messageId}", [.get, .head, .patch, .delete], data: true, catchesUp: true)
        case .conversationRead:
            Facts("/conversations/{id}/read", [.post], data: true, catchesUp: true)
        case .conversationEvents:
            Facts("/conversations/events", [.get], stream: true, datasetQuery: true, decodesQuery: true)
        case .picsumList: picsum("/v2/list")
        case .picsumIDInfo: Facts("/id/{id}/info", data: true, gate: .picsum)
        case .picsumSeedInfo: Facts("/seed/{seed}/info", data: true, gate: .picsum)
        case .picsumIDSquare: picsum("/id/{id}/{size}")
        case .picsumIDSized: picsum("/id/{id}/{width}/{height}")
        case .picsumSeedSquare: picsum("/seed/{seed}/{size}")
        case .picsumSeedSized: picsum("/seed/{seed}/{width}/{height}")
        case .picsumSquare: picsum("/{size}")
        case .picsumSized: picsum("/{width}/{height}")
        case .changes: Facts("/items/changes", decodesQuery: true)
        case .events: Facts("/items/events", [.get], stream: true, datasetQuery: true, decodesQuery: true)
        case .healthz: Facts("/healthz", journaled: false)
        case .readyz: Facts("/readyz", journaled: false)
        case .openAPIJSON: Facts("/openapi.json", journaled: false)
        case .openAPIYAML: Facts("/openapi.yaml", journaled: false)
        case .app: Facts("/", journaled: false)
        case .appFile: Facts("/app/{file}", journaled: false)
        case .metrics: Facts("/metrics", gate: .metrics, journaled: false)
        case .adminReset: Facts("/admin/reset", [.post], admin: true)
        case .adminDatasets: Facts("/admin/datasets", admin: true)
        case .adminDataset: Facts("/admin/datasets/{name}", [.delete], admin: true)
        case .adminDatasetProfile:
            Facts("/admin/datasets/{name}/profile", [.get, .head, .put, .delete], admin: true)
        case .authToken: Facts("/auth/token", [.post])
        case .authRevoke: Facts("/auth/revoke", [.post])
        case .adminJournal:
            Facts("/admin/journal", [.get, .head, .delete], admin: true, datasetQuery: true, decodesQuery: true)
        case .adminJournalEvents:
            Facts("/admin/journal/events", [.get], admin: true, stream: true, datasetQuery: true, decodesQuery: true)
        case .adminJournalHAR: Facts("/admin/journal.har", admin: true, datasetQuery: true, decodesQuery: true)
        case .adminReport: Facts("/admin/report", admin: true, datasetQuery: true, decodesQuery: true)
        }
    }

    /// What requests to this route count under in `/metrics`: its place in ``templates``.
    var label: RouteLabel { RouteLabel(index: rawValue) }

    /// Every route's path template, by ``rawValue``: the route names the metrics are made with (``ServerMetrics``).
    static let templates: [String] = table.map(\.template)

    /// Every method some route answers, and `OPTIONS`, in `Allow`'s order: what a CORS preflight allows.
    static let allMethods: String = {
        let order: [HTTPMethod] = [.get, .head, .post, .put, .patch, .delete]
        let used = order.filter { method in table.contains { $0.methods.contains(method) } }
        return (used + [.options]).map(\.name).joined(separator: ", ")
    }()
}
