import ListDomain
import Testing

@testable import ListServer

/// Checks a router response against what the spec documents for it: status, content type, headers and body.
struct ResponseConformance {
    let spec: OpenAPISpec
    var checker: SchemaChecker { SchemaChecker(spec: spec) }

    /// The documented response of `operation` for `status`, resolved; nil when the status is not documented.
    func documented(_ operation: JSONValue, status: Int) -> JSONValue? {
        operation["responses"]?[String(status)].flatMap(spec.resolve)
    }

    /// Every way `response` departs from `documented`; empty when it conforms.
    func violations(of response: HTTPResponse, against documented: JSONValue) -> [String] {
        var found: [String] = []
        let contentType = response.headers["Content-Type"] ?? ""
        let mediaType = String(contentType.prefix { $0 != ";" }).trimmingCharacters(in: .whitespaces).lowercased()
        let content = documented["content"]?.object ?? [:]
        if content.isEmpty {
            if !response.body.isEmpty { found.append("a body, but no documented content") }
        } else if let media = content[mediaType] {
            if mediaType == "application/json" && contentType != MediaType.json {
                found.append("Content-Type \"\(contentType)\" is not \"\(MediaType.json)\"")
            }
            if response.status == 206 {
                found += partViolations(response)
            } else {
                found += bodyViolations(response.body, mediaType: mediaType, schema: media["schema"])
            }
        } else {
            found.append("Content-Type \"\(contentType)\" is not documented (\(content.keys.sorted()))")
        }

        let headers = (documented["headers"]?.object ?? [:]).compactMapValues(spec.resolve)
        for (name, header) in headers where header["required"] == .bool(true) && response.headers[name] == nil {
            found.append("required header \(name) is missing")
        }
        // The loop writes `Vary` as it writes the head, with `Accept-Encoding` for a JSON answer: checked as if the
        // router had.
        var sent = response.headers
        var vary = response.vary
        if response.status != 304 && LoopServer.variesByEncoding(response) { vary.insert(.acceptEncoding) }
        if let value = vary.fieldValue { sent.add("Vary", value) }
        for (name, value) in sent where !HTTPHeaders.namesMatch(name, "Content-Type") {
            guard let header = headers.first(where: { HTTPHeaders.namesMatch($0.key, name) })?.value,
                let schema = header["schema"]
            else {
                found.append("header \(name) is not documented")
                continue
            }
            let headerValue = SchemaChecker.headerValue(value, schema: schema, spec: spec)
            found += checker.violations(of: headerValue, against: schema, at: "header \(name)")
        }
        return found
    }

    /// A 206's body is part of a file, not one: its length must be what its `Content-Range` says.
    private func partViolations(_ response: HTTPResponse) -> [String] {
        let range = response.headers["Content-Range"] ?? ""
        let numbers = range.dropFirst("bytes ".count).split(whereSeparator: { $0 == "-" || $0 == "/" })
            .compactMap { Int($0) }
        guard range.hasPrefix("bytes "), numbers.count == 3 else { return ["Content-Range \"\(range)\" is no range"] }
        return response.body.count == numbers[1] - numbers[0] + 1 && numbers[1] < numbers[2]
            ? [] : ["the body's \(response.body.count) bytes are not \(range)"]
    }

    private func bodyViolations(_ body: [UInt8], mediaType: String, schema: JSONValue?) -> [String] {
        guard let schema else { return [] }
        switch mediaType {
        case "application/json", "application/problem+json":
            guard let value = try? JSONValue(parsing: body) else { return ["the body is not JSON"] }
            return checker.violations(of: value, against: schema)
        case "image/jpeg", "image/png", "image/webp":
            // Binary: the schema says only that. The bytes must at least start as the format does.
            let signatures: [String: [UInt8]] = [
                "image/jpeg": [0xFF, 0xD8, 0xFF], "image/png": [0x89, 0x50, 0x4E, 0x47],
                "image/webp": Array("RIFF".utf8),
            ]
            return body.starts(with: signatures[mediaType]!) ? [] : ["the body is not a \(mediaType) file"]
        case "text/html", "text/css", "text/javascript":
            let files = WebAssets.files.values.map { Array($0.text.utf8) }
            return files.contains(body) ? [] : ["the body is none of the app's files"]
        case "text/plain":
            // Prometheus text: a `# HELP` or `# TYPE` line first, and `listserver_` series.
            let text = String(decoding: body, as: UTF8.self)
            let valid = text.hasPrefix("# ") && text.contains("\nlistserver_") && text.hasSuffix("\n")
            return valid ? [] : ["the body is not Prometheus text"]
        case "application/yaml":
            // No YAML parser here: the YAML is the embedded file, whose JSON twin is the parsed document.
            guard body == Array(OpenAPIDocument.yaml.utf8) else { return ["the YAML body is not openapi.yaml"] }
            return checker.violations(of: spec.root, against: schema)
        default:
            return ["no way to check a \(mediaType) body"]
        }
    }
}

/// The router a conformance case runs on.
enum ConformanceRouter: Sendable {
    /// The defaults: an instant store, CORS `*`, no admin token.
    case plain
    /// `admin.token` configured (`Self.adminToken`), so a reset without it is 401.
    case adminToken
    /// A list that already has 2^53 ids, so `POST /items` is 409 `list-full`.
    case fullList
    /// A store whose commits fail as an I/O error would: every write, reset and drop is 503 `store-unavailable`.
    case unavailableStore
    /// A store whose commits fail as a full disk would: every write, reset and drop is 507 `store-full`.
    case fullStore
    /// A closed store under a list with changes, as after a restart (so the changes are only in the store):
    /// reading them is 503 `store-unavailable`.
    case unreadableStore
    /// `picsum.enabled` false: Lorem Picsum's routes are 404.
    case picsumOff
    /// `metrics.enabled` false: `/metrics` is 404.
    case metricsOff
    /// A full disk, where item 5 of the default list has an uploaded image: removing it is 507.
    case fullStoreWithUpload
    /// As many datasets with a profile as there may be: a profile for one more is 507 `dataset-limit`.
    case fullProfiles
    /// Dataset `auth-run` has a profile with `auth`: its requests without a token are 401.
    case authProfile
    /// Dataset `auth-run` has a stored profile with `auth`, on a store whose writes fail: a revoke is 503 (an I/O
    /// error) or 507 (a full disk).
    case authUnavailableStore, authFullStore
}

/// One request and the status it must get; its response must conform to the spec.
struct ConformanceCase: Sendable, CustomTestStringConvertible {
    /// The path template in the spec, e.g. `/items/{id}`.
    let template: String
    let target: String
    /// The lower-case methods to send it with, each documented on the template.
    var methods = ["get", "head"]
    var headers: HTTPHeaders = [:]
    var body = ""
    /// A binary body (an image upload), sent instead of ``body``.
    var bytes: [UInt8]?
    /// Sent as `Content-Type` when not nil (a write's body is 415 without it).
    var contentType: String?
    var fromLoopback = true
    var router = ConformanceRouter.plain
    let status: Int

    var testDescription: String { "\(methods) \(target) \(headers.description) → \(status)" }
}

@Suite("OpenAPI: openapi.yaml matches the router")
struct OpenAPIConformanceTests {
    let spec = OpenAPISpec.embedded
    var conformance: ResponseConformance { ResponseConformance(spec: spec) }

    /// Responses only the connection layer gives (strict HTTP, shutdown); the router never does.
    static let connectionLayerResponses: Set<String> = [
        "RequestTimeout", "LengthRequired", "ContentTooLarge", "URITooLong", "HeaderFieldsTooLarge",
        "HTTPVersionNotSupported", "NotImplemented", "ShuttingDown", "ExpectationFailed",
    ]

    /// The token of the `.adminToken` router.
    static let adminToken = "conformance-token"

    /// Requests that reach the statuses the routes give on their own. Cases run in order on one router per kind:
    /// the first detail request is a miss (with `Server-Timing`), the next a hit; the change feed is asked first
    /// while the list is fresh, then after the writes (which use ids 20-29); the resets come last, and one more look
    /// at the feed with them in it.
    static let cases: [ConformanceCase] =
        [
            .init(template: "/items", target: "/items", status: 200),
            .init(template: "/items", target: "/items?page=2&limit=5&_=1700000000", status: 200),
            .init(template: "/items", target: "/items?page=100&limit=100", status: 200),  // the last page
            .init(template: "/items", target: "/items?page=9007199254740992&limit=1", status: 200),  // past the end
            .init(template: "/items", target: "/items?page=3&limit=4&order=desc", status: 200),
            .init(template: "/items", target: "/items?order=desc&limit=2", status: 200),  // cursor paging from the end
            .init(template: "/items", target: "/items?after=9990&limit=5", status: 200),  // has_more
            .init(template: "/items", target: "/items?after=9999", status: 200),  // nothing new: next_cursor 9999
            .init(template: "/items", target: "/items?before=3&order=asc", status: 200),
            .init(template: "/items", target: "/items", headers: ["If-None-Match": "*"], status: 304),
            .init(template: "/items", target: "/items?after=5", headers: ["If-None-Match": "W/\"x\", *"], status: 304),
            .init(template: "/items", target: "/items?page=0", status: 400),
            .init(template: "/items", target: "/items?limit=101", status: 400),
            .init(template: "/items", target: "/items?page=1&page=2", status: 400),
            .init(template: "/items", target: "/items?_=%zz", status: 400),
            .init(template: "/items", target: "/items?order=up", status: 400),
            .init(template: "/items", target: "/items?page=1&after=3", status: 400),
            .init(template: "/items", target: "/items?after=1&before=9", status: 400),
            .init(template: "/items/{id}", target: "/items/0", status: 200),
            .init(template: "/items/{id}", target: "/items/9999?x=%zz", status: 400),
            .init(template: "/items/{id}", target: "/items/7", headers: ["If-None-Match": "*"], status: 304),
            .init(template: "/items/{id}", target: "/items/10000", status: 404),
            .init(template: "/items/{id}", target: "/items/18446744073709551615", status: 404),
            .init(template: "/items/{id}", target: "/items/18446744073709551616", status: 400),
            .init(template: "/items/{id}", target: "/items/-1", status: 400),
            .init(template: "/items/{id}", target: "/items/%zz", status: 400),
            .init(template: "/items/{id}/detail", target: "/items/42/detail", status: 200),
            .init(template: "/items/{id}/detail", target: "/items/42/detail", status: 200),
            .init(
                template: "/items/{id}/detail", target: "/items/42/detail", headers: ["Pragma": "no-cache"], status: 200
            ),
            .init(
                template: "/items/{id}/detail", target: "/items/43/detail", headers: ["If-None-Match": "*"], status: 304
            ),
            .init(template: "/items/{id}/detail", target: "/items/4.2/detail", status: 400),
            .init(template: "/items/{id}/detail", target: "/items/10000/detail", status: 404),
        ] + imageCases + picsumCases + webAppCases + [
            .init(template: "/healthz", target: "/healthz", status: 200),
            .init(template: "/readyz", target: "/readyz", status: 200),
            .init(template: "/readyz", target: "/readyz?x=%zz", status: 400),
            .init(template: "/openapi.json", target: "/openapi.json", status: 200),
            .init(template: "/openapi.json", target: "/openapi.json?x=%zz", status: 400),
            .init(template: "/openapi.yaml", target: "/openapi.yaml", status: 200),
            .init(template: "/metrics", target: "/metrics", status: 200),
            .init(template: "/metrics", target: "/metrics?x=%zz", status: 400),
            .init(template: "/metrics", target: "/metrics", router: .metricsOff, status: 404),
        ] + optionsCases + changesCases + eventsCases + writeCases + chatWriteCases + uploadCases + datasetListCases
        + datasetCases
        + journalCases
        + profileCases + authCases
        + storeFailureCases
        + resetCases + changesAfterResetCases

    /// Images: each format by extension, `format` and `Accept`; a miss then a hit; 304; the 400s and 404s.
    static let imageCases: [ConformanceCase] = [
        .init(template: "/items/{id}/image", target: "/items/42/image?w=60&h=40", status: 200),
        .init(template: "/items/{id}/image", target: "/items/42/image?w=60&h=40", status: 200),
        .init(
            template: "/items/{id}/image", target: "/items/42/image?w=60&format=png&grayscale&blur=2", status: 200),
        .init(
            template: "/items/{id}/image", target: "/items/43/image?h=30",
            headers: ["Accept": "image/webp,image/*,*/*;q=0.8"], status: 200),
        .init(
            template: "/items/{id}/image", target: "/items/43/image?h=30", headers: ["Cache-Control": "no-cache"],
            status: 200),
        .init(
            template: "/items/{id}/image", target: "/items/44/image?w=20", headers: ["If-None-Match": "*"],
            status: 304),
        .init(template: "/items/{id}/image", target: "/items/44/image?w=0", status: 400),
        .init(template: "/items/{id}/image", target: "/items/44/image?w=5000&h=5001", status: 400),
        .init(template: "/items/{id}/image", target: "/items/44/image?blur=11", status: 400),
        .init(template: "/items/{id}/image", target: "/items/44/image?format=gif", status: 400),
        .init(template: "/items/{id}/image", target: "/items/44/image?grayscale=maybe", status: 400),
        .init(template: "/items/{id}/image", target: "/items/44/image?w=1&w=2", status: 400),
        .init(template: "/items/{id}/image", target: "/items/x/image", status: 400),
        .init(
            template: "/items/{id}/image", target: "/items/42/image?dataset=a", headers: ["X-Dataset": "b"],
            status: 400),
        .init(template: "/items/{id}/image", target: "/items/42/image?w=30&dataset=ui-7", status: 200),
        .init(template: "/items/{id}/image", target: "/items/10000/image", status: 404),
        .init(template: "/items/{id}/image.{format}", target: "/items/42/image.jpg?w=30", status: 200),
        .init(template: "/items/{id}/image.{format}", target: "/items/42/image.png?h=30", status: 200),
        .init(template: "/items/{id}/image.{format}", target: "/items/42/image.webp?w=30&h=30", status: 200),
        .init(template: "/items/{id}/image.{format}", target: "/items/42/image.gif", status: 404),
        .init(
            template: "/items/{id}/image.{format}", target: "/items/42/image.jpeg?w=30",
            headers: ["If-None-Match": "\"x\", *"], status: 304),
        .init(template: "/items/{id}/image.{format}", target: "/items/42/image.png?h=99999", status: 400),
        // Ranges (GET only: a HEAD answers as the whole image's GET).
        .init(
            template: "/items/{id}/image", target: "/items/42/image?w=60&h=40", methods: ["get"],
            headers: ["Range": "bytes=0-99"], status: 206),
        .init(
            template: "/items/{id}/image", target: "/items/42/image?w=60&h=40", methods: ["head"],
            headers: ["Range": "bytes=0-99"], status: 200),
        .init(
            template: "/items/{id}/image", target: "/items/42/image?w=60&h=40", methods: ["get"],
            headers: ["Range": "bytes=99999999-"], status: 416),
        .init(
            template: "/items/{id}/image.{format}", target: "/items/42/image.png?h=30", methods: ["get"],
            headers: ["Range": "bytes=-10"], status: 206),
        .init(
            template: "/items/{id}/image.{format}", target: "/items/42/image.png?h=30", methods: ["get"],
            headers: ["Range": "bytes=99999999-"], status: 416),
    ]

    /// Lorem Picsum's routes: the list (lenient, with its Link), info, images served and redirected, and the 400s and
    /// 404s.
    static let picsumCases: [ConformanceCase] =
        [
            .init(template: "/v2/list", target: "/v2/list", headers: ["Host": "127.0.0.1:8080"], status: 200),
            .init(template: "/v2/list", target: "/v2/list?page=0&limit=abc", status: 200),
            .init(
                template: "/v2/list", target: "/v2/list?page=3&limit=500", headers: ["Host": "localhost"], status: 200),
            .init(
                template: "/v2/list", target: "/v2/list?page=99999&limit=7", headers: ["Host": "[::1]:80"], status: 200),
            .init(template: "/v2/list", target: "/v2/list", headers: ["Host": "evil.example/<x>"], status: 400),
            .init(template: "/id/{id}/info", target: "/id/42/info", headers: ["Host": "127.0.0.1:8080"], status: 200),
            .init(template: "/id/{id}/info", target: "/id/abc/info", status: 404),
            .init(template: "/id/{id}/info", target: "/id/10000/info", status: 404),
            .init(template: "/seed/{seed}/info", target: "/seed/picsum/info", status: 200),
            .init(template: "/id/{id}/{size}", target: "/id/42/40", status: 200),
            .init(template: "/id/{id}/{size}", target: "/id/42/40.webp?grayscale", status: 200),
            .init(template: "/id/{id}/{size}", target: "/id/42/40.png", headers: ["If-None-Match": "*"], status: 304),
            .init(
                template: "/id/{id}/{size}", target: "/id/42/40", methods: ["get"], headers: ["Range": "bytes=5-"],
                status: 206),
            .init(
                template: "/id/{id}/{size}", target: "/id/42/40", methods: ["get"],
                headers: ["Range": "bytes=99999999-"], status: 416),
            .init(template: "/id/{id}/{size}", target: "/id/42/5001", status: 400),
            .init(template: "/id/{id}/{size}", target: "/id/42/40.gif", status: 400),
            .init(template: "/id/{id}/{size}", target: "/id/9999999/40", status: 404),
            .init(template: "/id/{id}/{width}/{height}", target: "/id/7/30/20.jpg?blur", status: 200),
            .init(
                template: "/id/{id}/{width}/{height}", target: "/id/7/30/20?blur=2", headers: ["If-None-Match": "*"],
                status: 304),
            .init(
                template: "/id/{id}/{width}/{height}", target: "/id/7/30/20", methods: ["get"],
                headers: ["Range": "bytes=0-0"], status: 206),
            .init(
                template: "/id/{id}/{width}/{height}", target: "/id/7/30/20", methods: ["get"],
                headers: ["Range": "bytes=99999999-"], status: 416),
            .init(template: "/id/{id}/{width}/{height}", target: "/id/7/30/20?blur=11", status: 400),
            .init(template: "/id/{id}/{width}/{height}", target: "/id/x/30/20", status: 404),
            .init(template: "/seed/{seed}/{size}", target: "/seed/a/100", status: 302),
            .init(template: "/seed/{seed}/{size}", target: "/seed/a/6000", status: 400),
            .init(
                template: "/seed/{seed}/{width}/{height}", target: "/seed/b/100/0.webp?grayscale&blur=3", status: 302),
            .init(template: "/seed/{seed}/{width}/{height}", target: "/seed/b/100/80.bmp", status: 400),
            .init(template: "/{size}", target: "/200", status: 302),
            .init(template: "/{size}", target: "/200.txt", status: 400),
            .init(template: "/{width}/{height}", target: "/200/300?grayscale", status: 302),
            .init(template: "/{width}/{height}", target: "/200/300?blur=0", status: 400),
        ]
        + [
            "/v2/list", "/id/{id}/info", "/seed/{seed}/info", "/id/{id}/{size}", "/id/{id}/{width}/{height}",
            "/seed/{seed}/{size}", "/seed/{seed}/{width}/{height}", "/{size}", "/{width}/{height}",
        ].map { ConformanceCase(template: $0, target: example($0), router: .picsumOff, status: 404) }
        // OPTIONS on a path of a parameterised route's shape but not its content (an empty id, a size that is not
        // digits) names no resource.
        + [
            ("/items/{id}", "/items/"), ("/items/{id}/detail", "/items//detail"),
            ("/items/{id}/image", "/items//image"),
            ("/items/{id}/image.{format}", "/items//image.png"), ("/id/{id}/info", "/id//info"),
            ("/seed/{seed}/info", "/seed//info"), ("/id/{id}/{size}", "/id/1/x"),
            ("/id/{id}/{width}/{height}", "/id/1/2/x"), ("/seed/{seed}/{size}", "/seed/s/x"),
            ("/seed/{seed}/{width}/{height}", "/seed/s/x/2"), ("/{size}", "/x.jpg"), ("/{width}/{height}", "/2/x"),
            ("/app/{file}", "/app/a/b"), ("/conversations/{id}", "/conversations/"),
            ("/conversations/{id}/messages", "/conversations//messages"),
            ("/conversations/{id}/messages/{messageId}", "/conversations/1/messages/"),
            ("/conversations/{id}/read", "/conversations//read"),
        ].map { ConformanceCase(template: $0, target: $1, methods: ["options"], status: 404) }

    /// The browser app: the page and a file, each fresh and revalidated, and a name that is not there.
    static let webAppCases: [ConformanceCase] = [
        .init(template: "/", target: "/", status: 200),
        .init(template: "/", target: "/", headers: ["If-None-Match": WebAssets.files["index.html"]!.tag], status: 304),
        .init(template: "/app/{file}", target: "/app/app.js", status: 200),
        .init(template: "/app/{file}", target: "/app/app.css?v=2", status: 200),
        .init(
            template: "/app/{file}", target: "/app/list.js",
            headers: ["If-None-Match": WebAssets.files["list.js"]!.tag],
            status: 304),
        .init(template: "/app/{file}", target: "/app/..%2fPackage.swift", status: 404),
    ]

    /// OPTIONS on every path, plain and as a CORS preflight (whose answer has the preflight fields).
    static let optionsCases: [ConformanceCase] = [
        ("/items", "/items?page=0"), ("/items/{id}", "/items/abc"), ("/items/{id}/detail", "/items/42/detail"),
        ("/items/{id}/image", "/items/42/image"), ("/items/{id}/image.{format}", "/items/42/image.png"),
        ("/v2/list", "/v2/list"), ("/id/{id}/info", "/id/1/info"), ("/seed/{seed}/info", "/seed/x/info"),
        ("/id/{id}/{size}", "/id/1/2"), ("/id/{id}/{width}/{height}", "/id/1/2/3"),
        ("/seed/{seed}/{size}", "/seed/s/2"),
        ("/seed/{seed}/{width}/{height}", "/seed/s/2/3.jpg"), ("/{size}", "/2"), ("/{width}/{height}", "/2/3"),
        ("/healthz", "/healthz"), ("/readyz", "/readyz"), ("/openapi.json", "/openapi.json"),
        ("/openapi.yaml", "/openapi.yaml"), ("/admin/reset", "/admin/reset"), ("/items/changes", "/items/changes"),
        ("/items/events", "/items/events"), ("/conversations/events", "/conversations/events"),
        ("/admin/datasets/{name}", "/admin/datasets/bad%20name"),
        ("/admin/datasets", "/admin/datasets"), ("/admin/datasets/{name}/profile", "/admin/datasets/x/profile"),
        ("/", "/"), ("/app/{file}", "/app/app.js"), ("/metrics", "/metrics"), ("/auth/token", "/auth/token"),
        ("/auth/revoke", "/auth/revoke"), ("/admin/journal", "/admin/journal"),
        ("/admin/journal/events", "/admin/journal/events"), ("/admin/journal.har", "/admin/journal.har"),
        ("/admin/report", "/admin/report"), ("/conversations", "/conversations"),
        ("/conversations/{id}", "/conversations/x"), ("/conversations/{id}/messages", "/conversations/1/messages"),
        ("/conversations/{id}/messages/{messageId}", "/conversations/1/messages/x"),
        ("/conversations/{id}/read", "/conversations/1/read"),
    ].flatMap { template, target in
        [
            ConformanceCase(template: template, target: target, methods: ["options"], status: 204),
            ConformanceCase(
                template: template, target: target, methods: ["options"],
                headers: [
                    "Origin": "http://localhost:3000", "Access-Control-Request-Method": "GET",
                    "Access-Control-Request-Headers": "x-client-id, if-none-match",
                ],
                status: 204),
        ]
    }

    /// `GET /items/changes` on the fresh list: nothing yet, a `since` it never reached (410), bad parameters.
    static let changesCases: [ConformanceCase] = [
        .init(template: "/items/changes", target: "/items/changes", status: 200),
        .init(template: "/items/changes", target: "/items/changes?since=0&limit=1000&wait_ms=0", status: 200),
        .init(template: "/items/changes", target: "/items/changes?since=99", status: 410),
        .init(template: "/items/changes", target: "/items/changes?since=-1", status: 400),
        .init(template: "/items/changes", target: "/items/changes?limit=1001", status: 400),
        .init(template: "/items/changes", target: "/items/changes?wait_ms=30001", status: 400),
        .init(
            template: "/items/changes", target: "/items/changes", headers: ["X-Dataset": "no spaces"], status: 400),
        .init(
            template: "/items/changes", target: "/items/changes?since=0", router: .unreadableStore, status: 503),
    ]

    /// `GET /items/events` (no HEAD: a stream has no length): the stream's head, and the 400s before it opens.
    ///
    /// Not reached: the operation's 503, `ShuttingDown`, which only the connection layer gives while it drains.
    static let eventsCases: [ConformanceCase] = [
        .init(template: "/items/events", target: "/items/events", methods: ["get"], status: 200),
        .init(
            template: "/items/events", target: "/items/events?since=3", methods: ["get"],
            headers: ["Last-Event-ID": "2", "X-Dataset": "ui-test-42"], status: 200),
        .init(template: "/items/events", target: "/items/events?since=x", methods: ["get"], status: 400),
        .init(
            template: "/items/events", target: "/items/events", methods: ["get"], headers: ["Last-Event-ID": "one"],
            status: 400),
        // The chat's stream: the same head and refusals.
        .init(template: "/conversations/events", target: "/conversations/events", methods: ["get"], status: 200),
        .init(
            template: "/conversations/events", target: "/conversations/events?since=x", methods: ["get"],
            status: 400),
        .init(
            template: "/conversations/events", target: "/conversations/events?dataset=chat-3", methods: ["get"],
            headers: webSocketUpgrade(), status: 101),
        .init(
            template: "/conversations/events", target: "/conversations/events", methods: ["get"],
            headers: webSocketUpgrade(version: "7"), status: 426),
        // The WebSocket handshake (RFC 6455 §1.3's key), and its refusals.
        .init(
            template: "/items/events", target: "/items/events?since=1", methods: ["get"],
            headers: webSocketUpgrade(), status: 101),
        .init(
            template: "/items/events", target: "/items/events", methods: ["get"],
            headers: webSocketUpgrade(version: "8"), status: 426),
        .init(
            template: "/items/events", target: "/items/events", methods: ["get"],
            headers: webSocketUpgrade(key: "short"), status: 400),
    ]

    static func webSocketUpgrade(key: String = "dGhlIHNhbXBsZSBub25jZQ==", version: String = "13") -> HTTPHeaders {
        ["Upgrade": "websocket", "Connection": "Upgrade", "Sec-WebSocket-Key": key, "Sec-WebSocket-Version": version]
    }

    /// `POST /items`, `PATCH` and `DELETE /items/{id}` on the plain router, each status they give on their own
    /// (the injected ones are in `controlCases`, the store's in `storeFailureCases`). Ids 20-29 are theirs.
    static let writeCases: [ConformanceCase] = [
        // POST /items
        .init(
            template: "/items", target: "/items", methods: ["post"], body: #"{"label":"Running late"}"#,
            contentType: "application/json", status: 201),
        .init(
            template: "/items", target: "/items", methods: ["post"],
            headers: ["Idempotency-Key": "conformance-post", "X-Dataset": "ui-test-42"],
            body: ##"{"label":"once","color":"#F4A261"}"##, contentType: "application/json; charset=utf-8", status: 201),
        .init(  // the retry: the recorded 201, with Idempotent-Replayed
            template: "/items", target: "/items?delay_ms=0", methods: ["post"],
            headers: ["Idempotency-Key": "conformance-post", "X-Dataset": "ui-test-42"],
            body: ##"{"label":"once","color":"#F4A261"}"##, contentType: "application/json; charset=utf-8", status: 201),
        .init(
            template: "/items", target: "/items", methods: ["post"],
            headers: ["Idempotency-Key": "conformance-post", "X-Dataset": "ui-test-42"], body: #"{"label":"twice"}"#,
            contentType: "application/json", status: 422),
        .init(template: "/items", target: "/items", methods: ["post"], body: #"{"label":"x"}"#, status: 415),
        .init(
            template: "/items", target: "/items", methods: ["post"], body: #"{"label":"x"}"#,
            contentType: "text/plain", status: 415),
        .init(
            template: "/items", target: "/items", methods: ["post"], body: #"{"label":"x",}"#,
            contentType: "application/json", status: 400),
        .init(
            template: "/items", target: "/items", methods: ["post"], body: #"{"label":"x","mood":"happy"}"#,
            contentType: "application/json", status: 400),
        .init(
            template: "/items", target: "/items", methods: ["post"], headers: ["X-Dataset": "no spaces"],
            body: #"{"label":"x"}"#, contentType: "application/json", status: 400),
        .init(
            template: "/items", target: "/items", methods: ["post"], headers: ["Idempotency-Key": "not visible"],
            body: #"{"label":"x"}"#, contentType: "application/json", status: 400),
        .init(
            template: "/items", target: "/items", methods: ["post"], body: #"{"label":"x"}"#,
            contentType: "application/json", router: .fullList, status: 409),
        // PATCH /items/{id}
        .init(
            template: "/items/{id}", target: "/items/20", methods: ["patch"], body: #"{"likes":12,"color":null}"#,
            contentType: "application/merge-patch+json", status: 200),
        .init(
            template: "/items/{id}", target: "/items/20", methods: ["patch"], headers: ["If-Match": "*"],
            body: #"{"label":null}"#, contentType: "application/json", status: 200),
        .init(
            template: "/items/{id}", target: "/items/21", methods: ["patch"],
            headers: ["If-Match": #""v1-0000000000000000""#], body: #"{"likes":1}"#, contentType: "application/json",
            status: 412),
        .init(
            template: "/items/{id}", target: "/items/99999999", methods: ["patch"], body: #"{"likes":1}"#,
            contentType: "application/json", status: 404),
        .init(
            template: "/items/{id}", target: "/items/21", methods: ["patch"], body: #"{"likes":1}"#,
            contentType: "text/plain", status: 415),
        .init(
            template: "/items/{id}", target: "/items/21", methods: ["patch"], body: #"{"likes":-1}"#,
            contentType: "application/json", status: 400),
        .init(
            template: "/items/{id}", target: "/items/abc", methods: ["patch"], body: #"{"likes":1}"#,
            contentType: "application/json", status: 400),
        .init(
            template: "/items/{id}", target: "/items/22", methods: ["patch"],
            headers: ["Idempotency-Key": "conformance-patch"], body: #"{"likes":1}"#, contentType: "application/json",
            status: 200),
        .init(
            template: "/items/{id}", target: "/items/22", methods: ["patch"],
            headers: ["Idempotency-Key": "conformance-patch"], body: #"{"likes":2}"#, contentType: "application/json",
            status: 422),
        // DELETE /items/{id}
        .init(template: "/items/{id}", target: "/items/23", methods: ["delete"], status: 204),
        .init(template: "/items/{id}", target: "/items/23", methods: ["delete"], status: 404),
        .init(
            template: "/items/{id}", target: "/items/24", methods: ["delete"],
            headers: ["If-Match": #""v1-0000000000000000""#], status: 412),
        .init(template: "/items/{id}", target: "/items/abc", methods: ["delete"], status: 400),
        .init(
            template: "/items/{id}", target: "/items/24", methods: ["delete"], headers: ["X-Dataset": "no spaces"],
            status: 400),
        .init(
            template: "/items/{id}", target: "/items/25", methods: ["delete"],
            headers: ["Idempotency-Key": "conformance-delete"], status: 204),
        .init(  // the retry: the recorded 204, with Idempotent-Replayed, not a 404
            template: "/items/{id}", target: "/items/25", methods: ["delete"],
            headers: ["Idempotency-Key": "conformance-delete"], status: 204),
        .init(
            template: "/items/{id}", target: "/items/26", methods: ["delete"],
            headers: ["Idempotency-Key": "conformance-delete"], status: 422),
        // The changes the writes above made, as the feed lists them.
        .init(template: "/items/changes", target: "/items/changes?since=0", status: 200),
        .init(
            template: "/items/changes", target: "/items/changes?since=0", headers: ["X-Dataset": "ui-test-42"],
            status: 200),
    ]

    /// A small PNG and JPEG to upload.
    static let uploadPNG: [UInt8] = encoded(.png)
    static let uploadJPEG: [UInt8] = encoded(.jpeg)

    static func encoded(_ format: ImageFormat) -> [UInt8] {
        do {
            let spec = ImageSpec(id: 7, width: 24, height: 16, color: 0x3366_99)
            return try ImageCodecs().encode(ImageRenderer.render(spec), as: format)
        } catch {
            Issue.record("cannot encode a test image: \(error)")
            return []
        }
    }

    /// `PUT` and `DELETE /items/{id}/image`: first upload, replacement, the conditions, the key, every refusal.
    /// Ids 30-39 are theirs.
    static let uploadCases: [ConformanceCase] = {
        let path = "/items/{id}/image"
        func put(
            _ target: String, _ bytes: [UInt8], _ contentType: String? = "image/png", headers: HTTPHeaders = [:],
            status: Int
        ) -> ConformanceCase {
            ConformanceCase(
                template: path, target: target, methods: ["put"], headers: headers, bytes: bytes,
                contentType: contentType, status: status)
        }
        func delete(_ target: String, headers: HTTPHeaders = [:], status: Int) -> ConformanceCase {
            ConformanceCase(template: path, target: target, methods: ["delete"], headers: headers, status: status)
        }
        return [
            put("/items/30/image", uploadPNG, status: 201),
            put("/items/30/image", uploadJPEG, "image/jpeg", status: 200),
            .init(template: path, target: "/items/30/image", status: 200),
            .init(template: path, target: "/items/30/image?w=12&format=webp&grayscale", status: 200),
            put("/items/30/image", uploadPNG, headers: ["If-None-Match": "*"], status: 412),
            put("/items/30/image", uploadPNG, headers: ["If-Match": #""v1-0000000000000000""#], status: 412),
            put("/items/31/image", uploadPNG, headers: ["Idempotency-Key": "conformance-upload"], status: 201),
            put("/items/31/image", uploadPNG, headers: ["Idempotency-Key": "conformance-upload"], status: 201),
            put(
                "/items/31/image", uploadJPEG, "image/jpeg", headers: ["Idempotency-Key": "conformance-upload"],
                status: 422),
            put("/items/32/image", uploadPNG, nil, status: 415),
            put("/items/32/image", uploadPNG, "text/plain", status: 415),
            put("/items/32/image", uploadPNG, "image/jpeg", status: 415),
            put("/items/32/image", [], status: 400),
            put("/items/32/image", Array("not an image".utf8), status: 400),
            put("/items/32/image", Array(uploadPNG.prefix(uploadPNG.count / 2)), status: 400),
            put("/items/abc/image", uploadPNG, status: 400),
            put("/items/99999999/image", uploadPNG, status: 404),
            delete("/items/30/image", status: 204),
            delete("/items/33/image", status: 204),
            delete("/items/33/image", headers: ["If-Match": "*"], status: 412),
            delete("/items/34/image", headers: ["Idempotency-Key": "conformance-unupload"], status: 204),
            delete("/items/35/image", headers: ["Idempotency-Key": "conformance-unupload"], status: 422),
            delete("/items/abc/image", status: 400),
            delete("/items/99999999/image", status: 404),
        ]
    }()

    /// `DELETE /admin/datasets/{name}`: allowed, a bad name, without the configured token, from another host.
    static let datasetCases: [ConformanceCase] = [
        .init(
            template: "/admin/datasets/{name}", target: "/admin/datasets/ui-test-42", methods: ["delete"], status: 204),
        .init(
            template: "/admin/datasets/{name}", target: "/admin/datasets/never-used", methods: ["delete"], status: 204),
        .init(
            template: "/admin/datasets/{name}", target: "/admin/datasets/bad%20name", methods: ["delete"],
            status: 400),
        .init(
            template: "/admin/datasets/{name}", target: "/admin/datasets/ui-test-42", methods: ["delete"],
            fromLoopback: false, status: 403),
        .init(
            template: "/admin/datasets/{name}", target: "/admin/datasets/ui-test-42", methods: ["delete"],
            router: .adminToken, status: 401),
        .init(
            template: "/admin/datasets/{name}", target: "/admin/datasets/ui-test-42", methods: ["delete"],
            headers: ["Authorization": "Bearer \(adminToken)"], fromLoopback: false, router: .adminToken,
            status: 204),
    ]

    /// `/admin/datasets/{name}/profile`: set, read (a dataset without one has the empty profile), cleared; a bad
    /// name or body, without the token, from another host, and one profile past the most there may be.
    static let profileCases: [ConformanceCase] = {
        let template = "/admin/datasets/{name}/profile"
        let target = "/admin/datasets/ui-test-42/profile"
        let body =
            #"{"outage":{"for_ms":10,"every_ms":60000},"script":[{"match":{"route":"/items","query":{"page":"2"}},"respond":{"status":503,"retry_after_s":1},"times":2}]}"#
        func put(_ body: String, router: ConformanceRouter = .plain, status: Int) -> ConformanceCase {
            ConformanceCase(
                template: template, target: target, methods: ["put"], body: body, contentType: "application/json",
                router: router, status: status)
        }
        return [
            put(body, status: 200),
            put(#"{"bandwidth":{"kbps":0}}"#, status: 400),
            put(
                #"{"latency":{"list":{"min_ms":300,"max_ms":900}},"bandwidth":{"kbps":750},"#
                    + #""rate_limit":{"requests":10,"per_s":1,"burst":20},"auth":{"token_ttl_s":30}}"#, status: 200),
            put(#"{"script":[{"respond":{}}]}"#, status: 400),
            put(body, router: .fullProfiles, status: 507),
            put(body, router: .adminToken, status: 401),
            ConformanceCase(
                template: template, target: target, methods: ["put"], body: body, contentType: "application/json",
                fromLoopback: false, status: 403),
            .init(template: template, target: target, methods: ["get", "head"], status: 200),
            .init(template: template, target: target, methods: ["delete"], status: 204),
            .init(
                template: template, target: "/admin/datasets/bad%20name/profile", methods: ["get", "head", "delete"],
                status: 400),
            .init(
                template: template, target: target, methods: ["get", "head", "delete"], router: .adminToken,
                status: 401),
            .init(
                template: template, target: target, methods: ["get", "head", "delete"], fromLoopback: false,
                status: 403),
        ]
    }()

    /// `POST /auth/token` and `/auth/revoke`: a token (for a dataset with `auth` or without), a bad dataset name, a
    /// revoke the store cannot write; and every data route of a dataset with `auth`, without a token.
    static let authCases: [ConformanceCase] = {
        let bad: HTTPHeaders = ["X-Dataset": "bad name"]
        let auth: HTTPHeaders = ["X-Dataset": "auth-run"]
        var cases: [ConformanceCase] = [
            .init(template: "/auth/token", target: "/auth/token", methods: ["post"], status: 200),
            .init(
                template: "/auth/token", target: "/auth/token", methods: ["post"], headers: auth, body: "{}",
                contentType: "application/json", router: .authProfile, status: 200),
            .init(template: "/auth/token", target: "/auth/token", methods: ["post"], headers: bad, status: 400),
            .init(
                template: "/auth/revoke", target: "/auth/revoke", methods: ["post"], headers: auth,
                router: .authProfile, status: 204),
            .init(template: "/auth/revoke", target: "/auth/revoke", methods: ["post"], headers: bad, status: 400),
            .init(
                template: "/auth/revoke", target: "/auth/revoke", methods: ["post"], headers: auth,
                router: .authUnavailableStore, status: 503),
            .init(
                template: "/auth/revoke", target: "/auth/revoke", methods: ["post"], headers: auth,
                router: .authFullStore, status: 507),
        ]
        cases += chatWrites(router: .authProfile, headers: auth, status: 401)
        for template in Route.table.filter({ $0.data && $0.methods.contains(.get) }).map(\.template) {
            cases.append(
                .init(template: template, target: example(template), headers: auth, router: .authProfile, status: 401))
        }
        for (template, path, method, body) in [
            ("/items", "/items", "post", #"{"label":"x"}"#), ("/items/{id}", "/items/5", "patch", #"{"likes":1}"#),
            ("/items/{id}", "/items/5", "delete", ""), ("/items/{id}/image", "/items/5/image", "delete", ""),
        ] {
            cases.append(
                .init(
                    template: template, target: path, methods: [method], headers: auth, body: body,
                    contentType: body.isEmpty ? nil : "application/json", router: .authProfile, status: 401))
        }
        cases.append(
            .init(
                template: "/items/{id}/image", target: "/items/5/image", methods: ["put"], headers: auth,
                bytes: uploadPNG, contentType: "image/png", router: .authProfile, status: 401))
        return cases
    }()

    /// `GET /admin/datasets`: listed (after the writes to `ui-test-42`), a bad parameter, without the token, from
    /// another host, and a store that cannot be read.
    static let datasetListCases: [ConformanceCase] = [
        .init(template: "/admin/datasets", target: "/admin/datasets", status: 200),
        .init(template: "/admin/datasets", target: "/admin/datasets?after=ui&limit=1", status: 200),
        .init(template: "/admin/datasets", target: "/admin/datasets?limit=0", status: 400),
        .init(template: "/admin/datasets", target: "/admin/datasets?after=bad%20name", status: 400),
        .init(template: "/admin/datasets", target: "/admin/datasets", fromLoopback: false, status: 403),
        .init(template: "/admin/datasets", target: "/admin/datasets", router: .adminToken, status: 401),
        .init(template: "/admin/datasets", target: "/admin/datasets", router: .unreadableStore, status: 503),
    ]

    /// The journal's routes: answered (after some requests), a bad parameter or dataset, without the token, from
    /// another host, and with the journal off (the router without metrics has none).
    static let journalCases: [ConformanceCase] =
        [
            ("/admin/journal", "/admin/journal", ["get", "head"]),
            ("/admin/journal.har", "/admin/journal.har", ["get", "head"]),
            ("/admin/report", "/admin/report", ["get", "head"]),
            ("/admin/journal/events", "/admin/journal/events", ["get"]),
        ].flatMap { template, path, methods in
            [
                ConformanceCase(template: template, target: path, methods: methods, status: 200),
                ConformanceCase(
                    template: template, target: path + "?dataset=bad%20name", methods: methods, status: 400),
                ConformanceCase(
                    template: template, target: path, methods: methods, headers: ["X-Dataset": "a b"], status: 400),
                ConformanceCase(template: template, target: path, methods: methods, fromLoopback: false, status: 403),
                ConformanceCase(template: template, target: path, methods: methods, router: .adminToken, status: 401),
                ConformanceCase(template: template, target: path, methods: methods, router: .metricsOff, status: 404),
            ]
        } + [
            .init(template: "/admin/journal", target: "/admin/journal?since=0&limit=5&client=tab-1", status: 200),
            .init(template: "/admin/journal", target: "/admin/journal?limit=0", status: 400),
            .init(template: "/admin/journal", target: "/admin/journal?since=-1", status: 400),
            .init(
                template: "/admin/journal", target: "/admin/journal?dataset=ui-test-42", methods: ["delete"],
                status: 204),
            .init(
                template: "/admin/journal", target: "/admin/journal?dataset=bad%20name", methods: ["delete"],
                status: 400),
            .init(
                template: "/admin/journal", target: "/admin/journal", methods: ["delete"], fromLoopback: false,
                status: 403),
            .init(
                template: "/admin/journal", target: "/admin/journal", methods: ["delete"], router: .adminToken,
                status: 401),
            .init(
                template: "/admin/journal", target: "/admin/journal", methods: ["delete"], router: .metricsOff,
                status: 404),
            .init(
                template: "/admin/journal/events", target: "/admin/journal/events", methods: ["get"],
                headers: ["Last-Event-ID": "one"], status: 400),
            .init(template: "/admin/report", target: "/admin/report?client=tab-1", status: 200),
            .init(template: "/conversations", target: "/conversations", status: 200),
            .init(template: "/conversations", target: "/conversations?limit=3&after=1790000000000_2", status: 200),
            .init(template: "/conversations", target: "/conversations?after=2", status: 400),
            .init(template: "/conversations", target: "/conversations?_=%zz", status: 400),
            .init(template: "/conversations", target: "/conversations", headers: ["If-None-Match": "*"], status: 304),
            .init(template: "/conversations/{id}", target: "/conversations/%zz", status: 400),
            .init(
                template: "/conversations/{id}", target: "/conversations/2", headers: ["If-None-Match": "*"],
                status: 304),
            .init(template: "/conversations/{id}/messages", target: "/conversations/%zz/messages", status: 400),
            .init(
                template: "/conversations/{id}/messages", target: "/conversations/2/messages?around=3",
                headers: ["If-None-Match": "*"], status: 304),
            .init(template: "/conversations/{id}", target: "/conversations/4", status: 200),
            .init(template: "/conversations/{id}", target: "/conversations/50", status: 404),
            .init(template: "/conversations/{id}", target: "/conversations/x", status: 400),
            .init(
                template: "/conversations/{id}/messages", target: "/conversations/0/messages?order=desc&limit=30",
                status: 200),
            .init(
                template: "/conversations/{id}/messages", target: "/conversations/1/messages?around=40&limit=9",
                status: 200),
            .init(
                template: "/conversations/{id}/messages", target: "/conversations/1/messages?before=3", status: 200),
            .init(
                template: "/conversations/{id}/messages", target: "/conversations/0/messages?around=99999",
                status: 404),
            .init(
                template: "/conversations/{id}/messages", target: "/conversations/0/messages?after=1&around=2",
                status: 400),
        ]

    /// Every write, reset and drop on a store that cannot commit: 503 (an I/O error) or 507 (a full disk).
    static let storeFailureCases: [ConformanceCase] = [
        (ConformanceRouter.unavailableStore, 503), (.fullStore, 507),
    ].flatMap { router, status in
        [
            ConformanceCase(
                template: "/items", target: "/items", methods: ["post"], body: #"{"label":"x"}"#,
                contentType: "application/json", router: router, status: status),
            ConformanceCase(
                template: "/items/{id}", target: "/items/5", methods: ["patch"], body: #"{"likes":1}"#,
                contentType: "application/json", router: router, status: status),
            ConformanceCase(
                template: "/items/{id}", target: "/items/5", methods: ["delete"], router: router, status: status),
            ConformanceCase(
                template: "/items/{id}/image", target: "/items/5/image", methods: ["put"], bytes: uploadPNG,
                contentType: "image/png", router: router, status: status),
            ConformanceCase(
                template: "/items/{id}/image", target: "/items/5/image", methods: ["delete"],
                router: router == .fullStore ? .fullStoreWithUpload : router,
                status: router == .fullStore ? status : 204),
            ConformanceCase(
                template: "/admin/reset", target: "/admin/reset", methods: ["post"], router: router, status: status),
            ConformanceCase(
                template: "/admin/datasets/{name}", target: "/admin/datasets/ui-test-42", methods: ["delete"],
                router: router, status: status),
        ] + chatWrites(router: router, status: status)
    }

    /// After the resets: the feed with `reset` changes in it.
    static let changesAfterResetCases: [ConformanceCase] = [
        .init(template: "/items/changes", target: "/items/changes?since=0&limit=1000", status: 200)
    ]

    /// `POST /admin/reset`: allowed, with a bad body, without the configured token, and from another host.
    static let resetCases: [ConformanceCase] = [
        .init(template: "/admin/reset", target: "/admin/reset", methods: ["post"], status: 200),
        .init(template: "/admin/reset", target: "/admin/reset", methods: ["post"], body: "{\"seed\": 7}", status: 200),
        .init(
            template: "/admin/reset", target: "/admin/reset", methods: ["post"], body: "{\"seed\": -1}", status: 400),
        .init(template: "/admin/reset", target: "/admin/reset", methods: ["post"], body: "reset", status: 400),
        .init(
            template: "/admin/reset", target: "/admin/reset", methods: ["post"], fromLoopback: false, status: 403),
        .init(template: "/admin/reset", target: "/admin/reset", methods: ["post"], router: .adminToken, status: 401),
        .init(
            template: "/admin/reset", target: "/admin/reset", methods: ["post"],
            headers: ["Authorization": "Bearer wrong"], router: .adminToken, status: 401),
        .init(
            template: "/admin/reset", target: "/admin/reset", methods: ["post"],
            headers: ["Authorization": "Bearer \(adminToken)"], fromLoopback: false, router: .adminToken,
            status: 200),
    ]

    /// Requests whose statuses come from the control parameters (`fail`, `delay_ms`): injected 500, 503 and 429,
    /// and the 400 of a malformed `delay_ms` on paths that otherwise ignore their query.
    ///
    /// Without them `everyDocumentedStatusIsReached` would miss 500, 429, the injected 503 and those 400s, which
    /// only the controls (`Router+Faults.swift`) produce.
    static let controlCases: [ConformanceCase] =
        Route.table.filter { $0.data && $0.methods.contains(.get) }.map(\.template).flatMap { template in
            let path = example(template)
            return [
                ConformanceCase(template: template, target: path + "?fail=500", status: 500),
                ConformanceCase(template: template, target: path + "?fail=503", status: 503),
                ConformanceCase(template: template, target: path + "?fail=429", status: 429),
                ConformanceCase(template: template, target: path + "?fail=teapot", status: 400),
            ]
        }
        + writeControlCases + uploadControlCases
        + [
            ("/healthz", "get"), ("/readyz", "get"), ("/openapi.json", "get"), ("/openapi.yaml", "get"),
            ("/items", "options"), ("/items/{id}", "options"), ("/items/{id}/detail", "options"),
            ("/items/{id}/image", "options"), ("/items/{id}/image.{format}", "options"), ("/healthz", "options"),
            ("/readyz", "options"), ("/openapi.json", "options"), ("/openapi.yaml", "options"),
            ("/admin/reset", "options"), ("/items/changes", "get"), ("/items/changes", "options"),
            ("/items/events", "options"), ("/admin/datasets/{name}", "options"), ("/admin/datasets", "options"),
            ("/admin/datasets/{name}/profile", "options"), ("/v2/list", "options"),
            ("/id/{id}/info", "options"), ("/seed/{seed}/info", "options"), ("/id/{id}/{size}", "options"),
            ("/id/{id}/{width}/{height}", "options"), ("/seed/{seed}/{size}", "options"),
            ("/seed/{seed}/{width}/{height}", "options"), ("/{size}", "options"), ("/{width}/{height}", "options"),
            ("/", "get"), ("/", "options"), ("/app/{file}", "get"), ("/app/{file}", "options"), ("/metrics", "get"),
            ("/metrics", "options"), ("/auth/token", "options"), ("/auth/revoke", "options"),
            ("/admin/journal", "get"), ("/admin/journal", "options"), ("/admin/journal.har", "get"),
            ("/admin/journal.har", "options"), ("/admin/report", "get"), ("/admin/report", "options"),
            ("/admin/journal/events", "options"), ("/conversations", "options"), ("/conversations/{id}", "options"),
            ("/conversations/{id}/messages", "options"), ("/conversations/{id}/messages/{messageId}", "options"),
            ("/conversations/{id}/read", "options"), ("/conversations/events", "options"),
        ].map { template, method in
            ConformanceCase(
                template: template, target: example(template) + "?delay_ms=soon",
                methods: method == "get" ? ["get", "head"] : [method], status: 400)
        }
        + [
            ConformanceCase(
                template: "/items/events", target: "/items/events?delay_ms=soon", methods: ["get"], status: 400),
            ConformanceCase(
                template: "/conversations/events", target: "/conversations/events?delay_ms=soon", methods: ["get"],
                status: 400),
        ]

    /// `template` with an example value in each of its placeholders.
    static func example(_ template: String) -> String {
        template.replacing("{id}", with: "5").replacing("{name}", with: "ui-test-42").replacing("{format}", with: "png")
            .replacing("{seed}", with: "s").replacing("{size}", with: "20").replacing("{width}", with: "20")
            .replacing("{height}", with: "10").replacing("{file}", with: "app.js").replacing("{messageId}", with: "3")
    }

    /// The same on image uploads and their removal.
    static let uploadControlCases: [ConformanceCase] = {
        var cases: [ConformanceCase] = []
        for (fail, status) in [("500", 500), ("503", 503), ("429", 429), ("teapot", 400)] {
            let target = "/items/5/image?fail=" + fail
            cases.append(
                ConformanceCase(
                    template: "/items/{id}/image", target: target, methods: ["put"], bytes: uploadPNG,
                    contentType: "image/png", status: status))
            cases.append(
                ConformanceCase(template: "/items/{id}/image", target: target, methods: ["delete"], status: status))
        }
        return cases
    }()

    /// The injected 500, 503 and 429 in place of a write (nothing is written), and a malformed `fail` (400).
    static let writeControlCases: [ConformanceCase] =
        [
            ("/items", "/items", "post", #"{"label":"x"}"#), ("/items/{id}", "/items/5", "patch", #"{"likes":1}"#),
            ("/items/{id}", "/items/5", "delete", ""),
        ].flatMap { template, path, method, body in
            [("500", 500), ("503", 503), ("429", 429), ("teapot", 400)].map { fail, status in
                ConformanceCase(
                    template: template, target: path + "?fail=" + fail, methods: [method], body: body,
                    contentType: body.isEmpty ? nil : "application/json", status: status)
            }
        }
        + [("500", 500), ("503", 503), ("429", 429), ("teapot", 400)].flatMap { fail, status in
            chatWrites(router: .plain, query: "?fail=" + fail, status: status)
        }

    /// Routes `request` on `router`, awaiting deferred work.
    static func answer(_ request: HTTPRequest, router: Router) async -> HTTPResponse {
        await router.answer(request)
    }

    /// One router of each kind, shared by the cases that run in one test.
    struct Routers {
        let plain = RouterFixture.router()
        let adminToken: Router = {
            var service = ServiceOptions()
            do {
                service.adminToken = try AdminToken(parsing: OpenAPIConformanceTests.adminToken)
            } catch {
                Issue.record("the test token does not parse: \(error)")
            }
            return RouterFixture.router(service: service)
        }()
        let fullList = RouterFixture.router(count: Catalog.maximumCount)
        let metricsOff = RouterFixture.router(metrics: false)
        let picsumOff: Router = {
            var service = ServiceOptions()
            service.picsumEnabled = false
            return RouterFixture.router(service: service)
        }()
        let unavailableStore = Self.failing(StoreFailure(.unavailable, "disk I/O error"))
        let fullStore = Self.failing(StoreFailure(.full, "database or disk is full"))
        let unreadableStore: Router
        let fullStoreWithUpload: Router = {
            let store = MemoryListStore()
            store.failNextCommits(1_000, with: StoreFailure(.full, "database or disk is full"))
            let image = StoredImage(format: .png, width: 24, height: 16, byteCount: 100, digest: 1, revision: 1)
            let written = WrittenItem(overrides: ItemOverrides(width: 24, height: 16), revision: 1, image: image)
            let header = ListHeader(seed: 42, baseCount: 10_000, version: 1, nextID: 10_000, lastSequence: 1)
            return RouterFixture.router(
                store: store, stored: [ListRegistry.defaultList: StoredList(header: header, written: [5: written])])
        }()

        let fullProfiles: Router = {
            let router = RouterFixture.router()
            for index in 0..<ProfileRegistry.capacity {
                router.profiles.set(DatasetProfile(outage: .init(forMs: 1)), for: "filled-\(index)")
            }
            return router
        }()

        let authProfile: Router = {
            let router = RouterFixture.router()
            router.profiles.set(DatasetProfile(auth: .init(tokenTTLSeconds: 30)), for: "auth-run")
            return router
        }()

        let authUnavailableStore: Router
        let authFullStore: Router

        init() async {
            authUnavailableStore = await Self.storedAuth(failing: StoreFailure(.unavailable, "disk I/O error"))
            authFullStore = await Self.storedAuth(failing: StoreFailure(.full, "database or disk is full"))
            // The default list as a restarted server loads it: three changes, kept only in the store, now closed.
            let store = MemoryListStore()
            await store.close()
            let header = ListHeader(seed: 42, baseCount: 10_000, version: 1, nextID: 10_003, lastSequence: 3)
            unreadableStore = RouterFixture.router(
                store: store, stored: [ListRegistry.defaultList: StoredList(header: header)])
        }

        /// A router where `auth-run` has a profile with `auth`, stored before the store's writes start to fail with
        /// `failure`.
        private static func storedAuth(failing failure: StoreFailure) async -> Router {
            let store = MemoryListStore()
            let stored = StoredProfile(
                body: Array(#"{"auth":{"token_ttl_s":30}}"#.utf8), setAt: .init(milliseconds: 1), tokenKey: 1)
            try? await store.setProfile(stored, of: "auth-run")
            store.failNextCommits(1_000, with: failure)
            let router = RouterFixture.router(store: store)
            router.profiles.set(DatasetProfile(auth: .init(tokenTTLSeconds: 30)), for: "auth-run", tokenKey: 1)
            return router
        }

        /// A router whose store fails every commit (far more than any test makes) with `failure`; dataset
        /// `ui-test-42` has been written to (a drop of one that never was writes nothing, so cannot fail).
        private static func failing(_ failure: StoreFailure) -> Router {
            let store = MemoryListStore()
            store.failNextCommits(1_000, with: failure)
            let header = ListHeader(seed: 42, baseCount: 10_000, version: 1, nextID: 10_001, lastSequence: 1)
            return RouterFixture.router(store: store, stored: ["ui-test-42": StoredList(header: header)])
        }

        subscript(kind: ConformanceRouter) -> Router {
            switch kind {
            case .plain: plain
            case .adminToken: adminToken
            case .fullList: fullList
            case .unavailableStore: unavailableStore
            case .fullStore: fullStore
            case .unreadableStore: unreadableStore
            case .picsumOff: picsumOff
            case .metricsOff: metricsOff
            case .fullStoreWithUpload: fullStoreWithUpload
            case .fullProfiles: fullProfiles
            case .authProfile: authProfile
            case .authUnavailableStore: authUnavailableStore
            case .authFullStore: authFullStore
            }
        }
    }

    /// A concrete target for `template`: path parameters from their `example`, plus query parameters with examples.
    func exampleTarget(_ template: String, operation: JSONValue) -> String {
        var path = template
        var query: [String] = []
        for parameter in (operation["parameters"]?.array ?? []).compactMap(spec.resolve) {
            guard let name = parameter["name"]?.string, let example = parameter["example"] else { continue }
            let text = example.string ?? SchemaChecker.describe(example)
            switch parameter["in"]?.string {
            case "path": path = path.replacing("{\(name)}", with: text)
            case "query": query.append("\(name)=\(text)")
            default: continue
            }
        }
        return query.isEmpty ? path : path + "?" + query.joined(separator: "&")
    }

    /// The example request bodies of `operation`: per media type of its request body, that media type (to send as
    /// `Content-Type`) and its `example` as compact JSON. One body-less request (nil, no body) when the operation
    /// documents no request body.
    static func exampleBodies(_ operation: JSONValue) -> [(mediaType: String?, body: [UInt8])] {
        guard let content = operation["requestBody"]?["content"]?.object else { return [(nil, [])] }
        return content.sorted { $0.key < $1.key }.map { mediaType, media in
            // An image's example is a real file of that type: a schema of `format: binary` has no example.
            if let format = ImageFormat.allCases.first(where: { MediaType.image($0) == mediaType }) {
                return (mediaType, encoded(format))
            }
            return (mediaType, media["example"].map { Array(compactJSON($0).utf8) } ?? [])
        }
    }

    /// `value` as JSON text (objects with sorted keys; the spec's examples hold integers only).
    static func compactJSON(_ value: JSONValue) -> String {
        switch value {
        case .null: "null"
        case .bool(let flag): String(flag)
        case .number: SchemaChecker.describe(value)
        case .string(let text): "\"\(text)\""
        case .array(let elements): "[" + elements.map(compactJSON).joined(separator: ",") + "]"
        case .object(let members):
            "{"
                + members.sorted { $0.key < $1.key }.map { "\"\($0.key)\":\(compactJSON($0.value))" }
                .joined(separator: ",") + "}"
        }
    }

    /// Sends `item` with each of its methods; returns, per method, the status it got and every way the answer
    /// departs from the case or the spec (empty when it has the case's status and conforms to its documentation).
    func outcomes(of item: ConformanceCase, on routers: Routers) async -> [(
        method: String, status: Int, problems: [String]
    )] {
        var found: [(method: String, status: Int, problems: [String])] = []
        for method in item.methods {
            guard let operation = spec.operations(item.template)[method] else {
                found.append((method, 0, ["\(method) \(item.template) is not documented"]))
                continue
            }
            var headers = item.headers
            if let contentType = item.contentType { headers.add("Content-Type", contentType) }
            let request = HTTPRequest(
                method: HTTPMethod(method.uppercased()), target: item.target, headers: headers,
                body: item.bytes ?? Array(item.body.utf8), fromLoopback: item.fromLoopback)
            let response = await Self.answer(request, router: routers[item.router])
            var problems: [String] = []
            if response.status != item.status { problems.append("status \(response.status), not \(item.status)") }
            if let documented = conformance.documented(operation, status: response.status) {
                problems += conformance.violations(of: response, against: documented)
            } else {
                problems.append("status \(response.status) is not documented")
            }
            found.append((method, response.status, problems))
        }
        return found
    }

    /// The statuses documented for an operation that a route gives (all but the connection layer's).
    func routeStatuses(_ operation: JSONValue) -> Set<String> {
        let responses = (operation["responses"]?.object ?? [:]).filter { _, response in
            let reference = response["$ref"]?.string ?? ""
            return !Self.connectionLayerResponses.contains { reference == "#/components/responses/\($0)" }
        }
        return Set(responses.keys)
    }

    @Test(
        "every documented operation answers its example request with a documented success",
        arguments: OpenAPISpec.embedded.paths)
    func documentedOperations(template: String) async throws {
        let operations = spec.operations(template)
        #expect(!operations.isEmpty)
        #expect(operations["options"] != nil, "\(template): OPTIONS is answered on every path")
        for (method, operation) in operations.sorted(by: { $0.key < $1.key }) {
            let target = exampleTarget(template, operation: operation)
            #expect(!target.contains("{"), "\(template): a path parameter has no example")
            let success = try #require(
                routeStatuses(operation).compactMap(Int.init).filter { (200..<400).contains($0) }.min(),
                "\(method) \(template) documents no success")
            for (mediaType, body) in Self.exampleBodies(operation) {
                #expect(mediaType == nil || !body.isEmpty, "\(method) \(template): \(mediaType ?? "") has no example")
                // A write's body is 415 without its media type.
                let headers: HTTPHeaders = mediaType.map { ["Content-Type": $0] } ?? [:]
                let request = HTTPRequest(
                    method: HTTPMethod(method.uppercased()), target: target, headers: headers, body: body)
                let response = await Self.answer(request, router: RouterFixture.router())
                let what = "\(method) \(target) \(mediaType ?? "")"
                // The lowest documented success, or for an upload the first one's 201 (each request here goes to a
                // new router, where the item has no upload yet).
                #expect(response.status == success || (method == "put" && response.status == 201), "\(what)")
                let documented = try #require(conformance.documented(operation, status: response.status))
                #expect(conformance.violations(of: response, against: documented) == [], "\(what)")
            }
        }
    }

    /// Paths whose GET has no HEAD: `/items/events` is an event stream, with no length to announce (HEAD there is
    /// 405, which `undocumentedMethods` checks).
    static let getOnlyPaths: Set = ["/items/events", "/conversations/events", "/admin/journal/events"]

    @Test(
        "HEAD is documented like GET (but for ranges) and answered like GET",
        arguments: OpenAPISpec.embedded.paths.filter {
            let operations = OpenAPISpec.embedded.operations($0)
            return (operations["get"] != nil || operations["head"] != nil) && !getOnlyPaths.contains($0)
        })
    func headLikeGet(template: String) async throws {
        let operations = spec.operations(template)
        let get = try #require(operations["get"])
        let head = try #require(operations["head"])
        // But for ranges: RFC 9110 defines them for GET only, so a HEAD never answers 206 or 416.
        var getResponses = get["responses"]?.object ?? [:]
        getResponses["206"] = nil
        getResponses["416"] = nil
        #expect(head["responses"]?.object == getResponses)
        #expect(head["parameters"] == get["parameters"])
        let target = exampleTarget(template, operation: get)
        let getResponse = await Self.answer(HTTPRequest(method: .get, target: target), router: RouterFixture.router())
        let headResponse = await Self.answer(HTTPRequest(method: .head, target: target), router: RouterFixture.router())
        #expect(headResponse.status == getResponse.status)
        // An image's Server-Timing holds the encode's wall-clock time (the detail's comes from the test clock).
        func comparable(_ headers: HTTPHeaders) -> HTTPHeaders {
            guard headers["Server-Timing"]?.contains("encode;") == true else { return headers }
            return HTTPHeaders(headers.filter { $0.name != "Server-Timing" }.map { ($0.name, $0.value) })
        }
        #expect(comparable(headResponse.headers) == comparable(getResponse.headers))
        // The LibEvent layer leaves it off the wire. Metrics move between two scrapes (the allocator's bytes).
        if template != "/metrics" {
            #expect(headResponse.body == getResponse.body)
        }
    }

    @Test("every status a route gives is documented, and the response conforms to it")
    func everyRouteStatus() async throws {
        let routers = await Routers()
        for item in Self.cases {
            for outcome in await outcomes(of: item, on: routers) {
                #expect(outcome.problems == [], "\(outcome.method) \(item.target) \(item.headers)")
            }
        }
    }

    @Test("the control parameters give their documented statuses (fail, delay_ms)")
    func controlStatuses() async throws {
        // Fails until the router reads the control parameters: see `controlCases`.
        let routers = await Routers()
        for item in Self.controlCases {
            for outcome in await outcomes(of: item, on: routers) {
                #expect(outcome.problems == [], "\(outcome.method) \(item.target)")
            }
        }
    }

    @Test("every documented status but the connection layer's is reached by some case")
    func everyDocumentedStatusIsReached() async throws {
        let routers = await Routers()
        var reached: [String: Set<String>] = [:]
        for item in Self.cases + Self.controlCases {
            // A case counts when it got its status and conforms; the two tests above report those that do not.
            for outcome in await outcomes(of: item, on: routers) where outcome.problems.isEmpty {
                reached["\(outcome.method) \(item.template)", default: []].insert(String(outcome.status))
            }
        }
        for template in spec.paths {
            for (method, operation) in spec.operations(template) {
                let missing = routeStatuses(operation).subtracting(reached["\(method) \(template)"] ?? [])
                // Until the control parameters are wired (see `controlCases`): 500, 429, injected 503s, some 400s.
                #expect(missing.isEmpty, "\(method) \(template): no case reaches \(missing.sorted())")
            }
        }
    }

    @Test(
        "methods a path does not document get 405 with Allow listing exactly the documented ones",
        arguments: OpenAPISpec.embedded.paths)
    func undocumentedMethods(template: String) async throws {
        let operations = spec.operations(template)
        let methodNotAllowed = try #require(spec.componentResponse("MethodNotAllowed"))
        let anyOperation = try #require(operations.sorted { $0.key < $1.key }.first?.value)
        let target = exampleTarget(template, operation: anyOperation)
        let documentedMethods = Set(operations.keys.map { $0.uppercased() })
        let router = RouterFixture.router()
        let methods: [HTTPMethod] = [.get, .head, .post, .put, .delete, .options, .patch, .trace, .connect]
        for method in methods where !documentedMethods.contains(method.name) {
            let response = await Self.answer(HTTPRequest(method: method, target: target), router: router)
            #expect(response.status == 405, "\(method.name) \(target)")
            let allow = Set(
                (response.headers["Allow"] ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
            #expect(allow == documentedMethods, "\(method.name) \(target)")
            #expect(conformance.violations(of: response, against: methodNotAllowed) == [], "\(method.name) \(target)")
        }
    }

    @Test(
        "paths the spec does not have are 404 NotFound, whatever the method",
        arguments: [
            "/index.html", "/items/", "/items/42/", "/items/42/detail/x", "/openapi", "/openapi.yml", "/OPENAPI.JSON",
            "/openapi.json/",
        ])
    func undocumentedPaths(target: String) async throws {
        let notFound = try #require(spec.componentResponse("NotFound"))
        #expect(!spec.paths.contains(target))
        for method in [HTTPMethod.get, .head, .post, .options] {
            let response = await Self.answer(
                HTTPRequest(method: method, target: target), router: RouterFixture.router())
            #expect(response.status == 404, "\(method.name) \(target)")
            #expect(conformance.violations(of: response, against: notFound) == [], "\(method.name) \(target)")
        }
    }

    @Test("every kind of problem has a documented response its body conforms to", arguments: Problem.Kind.allCases)
    func problemKinds(kind: Problem.Kind) throws {
        let problem = Problem(kind, detail: "a detail \"quoted\"", parameter: kind == .invalidParameter ? "limit" : nil)
        let body = try JSONValue(parsing: problem.response().body)
        let responses = (spec.root["components"]?["responses"]?.object ?? [:]).compactMapValues(spec.resolve)
        let conforming = responses.filter { _, response in
            guard let schema = response["content"]?["application/problem+json"]?["schema"] else { return false }
            return conformance.checker.violations(of: body, against: schema).isEmpty
        }
        #expect(
            !conforming.isEmpty,
            "\(kind): no documented problem response accepts \(problem.response().body.count) bytes")
    }
}
