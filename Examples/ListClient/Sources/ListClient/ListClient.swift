// A list screen's data layer on the client generated from ListServer's openapi.yaml (swift-openapi-generator's
// build plugin; swift-openapi-urlsession as the transport), as the list posts' ListModel and ListItemModel would use
// it on a device: page through the list, fetch each row's slow detail concurrently, send a message, edit it with
// If-Match, follow the change feed, use a chat (a reply sent with an Idempotency-Key, the jump to its origin, an
// edit, the read marker), and run under a scenario a UI test would set (a profile: a scripted failure and a token to
// sign in with). Runs on Linux as a command (SwiftUI itself is Apple-only); exits 0 only when
// every step saw what the API promises.
//
//   swift run --package-path Examples/ListClient ListClient http://127.0.0.1:8080
import Foundation
import HTTPTypes
import OpenAPIRuntime
import OpenAPIURLSession

struct Failure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// The bearer token the client holds, once it has signed in: added to every request but the admin ones (which take
/// the admin token, not the dataset's).
final class BearerToken: ClientMiddleware, @unchecked Sendable {
    private let lock = NSLock()
    private var token: String?

    var value: String? {
        get { lock.withLock { token } }
        set { lock.withLock { token = newValue } }
    }

    func intercept(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
        next: (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        var request = request
        if let token = value, !(request.path ?? "").hasPrefix("/admin/") {
            request.headerFields[.authorization] = "Bearer \(token)"
        }
        return try await next(request, body, baseURL)
    }
}

/// Sends entity tags as they are: swift-openapi-runtime 1.x percent-encodes every header parameter (RFC 6570
/// "simple" style, as OpenAPI 3.0.3 and 3.1.0 read), which turns an `If-Match` of `"v1-…"` into `%22v1-…%22`, a tag
/// no server has. OpenAPI 3.1.1 and later say header values are not percent-encoded; the runtime keeps the old
/// behaviour for compatibility and its maintainers point to a middleware like this one
/// (apple/swift-openapi-generator#529, #827, #857). Only the conditional fields are decoded: the others this client
/// sends (`X-Dataset`, `Idempotency-Key`) hold no character the runtime encodes, and a value some other code put in
/// as it is must not be decoded.
struct HeaderValuesAsSent: ClientMiddleware {
    static let entityTagFields: [HTTPField.Name] = [.ifMatch, .ifNoneMatch]

    func intercept(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
        next: (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        var request = request
        for index in request.headerFields.indices
        where Self.entityTagFields.contains(request.headerFields[index].name) {
            let field = request.headerFields[index]
            if let decoded = field.value.removingPercentEncoding, decoded != field.value {
                request.headerFields[index] = HTTPField(name: field.name, value: decoded)
            }
        }
        return try await next(request, body, baseURL)
    }
}

@main
struct ListClientMain {
    static func main() async {
        let arguments = CommandLine.arguments
        guard arguments.count == 2, let server = URL(string: arguments[1]) else {
            print("usage: ListClient <server URL>")
            exit(64)
        }
        print("dataset \(dataset)")  // scripts/examples-test.sh reads the report card of it
        do {
            try await run(
                Client(
                    serverURL: server, transport: URLSessionTransport(), middlewares: [HeaderValuesAsSent(), bearer]))
            print("every step passed")
        } catch {
            print("FAILED: \(error)")
            exit(1)
        }
    }

    /// A dataset of its own, so a run starts from the generated list whatever ran before.
    static let dataset = "listclient-\(UUID().uuidString.prefix(8))"
    /// The token the client signs in with (step 6).
    static let bearer = BearerToken()

    static func run(_ client: Client) async throws {
        // 1. ListModel: three pages of 20, as the screen scrolls.
        var items: [Components.Schemas.Item] = []
        var page = 1
        while page <= 3 {
            let body = try await numberedPage(client, page: page, limit: 20)
            guard body.page == page, body.items.count == 20 else {
                throw Failure("page \(page): \(body.items.count) items")
            }
            items += body.items
            guard let next = body.nextPage else { break }
            page = next
        }
        guard items.map(\.id) == Array(0..<60) else { throw Failure("the pages hold ids \(items.map(\.id))") }
        print("listed \(items.count) items over 3 pages; total \(try await total(client))")

        // 2. ListItemModel: each row's slow detail, twenty at a time, concurrently; each in [0, 1).
        let started = ContinuousClock.now
        let amounts = try await withThrowingTaskGroup(of: (Int, Double).self) { group in
            for item in items.prefix(20) {
                group.addTask {
                    let response = try await client.getItemDetail(
                        path: .init(id: item.id), headers: .init(xDataset: dataset))
                    let detail = try response.ok.body.json
                    return (detail.id, detail.amount)
                }
            }
            return try await group.reduce(into: [Int: Double]()) { $0[$1.0] = $1.1 }
        }
        guard amounts.count == 20, amounts.values.allSatisfy({ (0..<1).contains($0) }) else {
            throw Failure("details: \(amounts)")
        }
        print("fetched 20 details concurrently in \(ContinuousClock.now - started)")

        // 3. Chat: send a message with an Idempotency-Key, send it again (a retry), and get the same item once.
        let key = UUID().uuidString
        let first = try await client.createItem(
            headers: .init(idempotencyKey: key, xDataset: dataset), body: .json(.init(label: "Hello from Swift")))
        let created = try first.created
        let message = try created.body.json
        let retry = try await client.createItem(
            headers: .init(idempotencyKey: key, xDataset: dataset), body: .json(.init(label: "Hello from Swift")))
        guard try retry.created.body.json.id == message.id else { throw Failure("the retry made another item") }
        print("sent message \(message.id) (\(created.headers.location)); its retry was replayed")

        // 4. Edit it with If-Match; a second edit with the old ETag is refused 412.
        let tag = created.headers.eTag
        let edited = try await client.updateItem(
            path: .init(id: message.id), headers: .init(ifMatch: tag, xDataset: dataset),
            body: .applicationMergePatchJson(.init(label: "Hello from Swift (edited)")))
        guard try edited.ok.body.json.label == "Hello from Swift (edited)" else { throw Failure("the edit") }
        let stale = try await client.updateItem(
            path: .init(id: message.id), headers: .init(ifMatch: tag, xDataset: dataset),
            body: .applicationMergePatchJson(.init(label: "lost update")))
        guard case .preconditionFailed = stale else { throw Failure("a stale If-Match was not refused: \(stale)") }
        print("edited it with If-Match; the stale ETag got 412")

        // 5. The change feed: the create and the edit, in order.
        let feed = try await client.listChanges(query: .init(since: 0), headers: .init(xDataset: dataset))
        let changes = try feed.ok.body.json.changes
        let kinds = changes.map { change -> String in
            switch change {
            case .ItemChange(let item): item.kind.rawValue
            case .DeletedChange: "deleted"
            case .ResetChange: "reset"
            case .MessageChange(let message): message.kind.rawValue
            case .ReadChange: "read"
            case .ConversationChange: "conversation.updated"
            }
        }
        guard kinds == ["created", "updated"] else { throw Failure("the feed says \(kinds)") }
        print("the change feed has \(kinds.joined(separator: ", "))")

        try await chat(client)
        try await scenario(client)
    }

    /// 6. A chat screen: the newest messages, a reply sent with an Idempotency-Key (its retry replayed), the jump to
    /// the origin of the reply with one `around` request, an edit with If-Match, and the read marker.
    static func chat(_ client: Client) async throws {
        let newest = try await client.listMessages(
            path: .init(id: 0), query: .init(limit: 30, order: .desc), headers: .init(xDataset: dataset))
        let page = try newest.ok.body.json
        guard let last = page.items.first, page.items.count == 30 else { throw Failure("the newest messages") }
        let origin = last.id - 2000
        let key = "chat-\(UUID().uuidString)"
        func send() async throws -> Operations.SendMessage.Output {
            try await client.sendMessage(
                path: .init(id: 0), headers: .init(idempotencyKey: key, xDataset: dataset),
                body: .json(.init(text: "Back to this 👆", replyTo: origin)))
        }
        let sent = try await send().created
        let replay = try await send().created
        guard try sent.body.json.id == last.id + 1, try replay.body.json.id == last.id + 1,
            replay.headers.idempotentReplayed != nil, sent.headers.idempotentReplayed == nil
        else { throw Failure("the send and its retry") }
        let window = try await client.listMessages(
            path: .init(id: 0), query: .init(limit: 9, around: origin), headers: .init(xDataset: dataset))
        guard try window.ok.body.json.items.map(\.id).contains(origin) else { throw Failure("the jump to the origin") }
        let tag = try await client.getMessage(
            path: .init(id: 0, messageId: last.id + 1), headers: .init(xDataset: dataset)
        ).ok.headers.eTag
        let edited = try await client.editMessage(
            path: .init(id: 0, messageId: last.id + 1), headers: .init(ifMatch: tag, xDataset: dataset),
            body: .json(.init(text: "Back to this one 👆")))
        guard try edited.ok.body.json.editedAt != nil else { throw Failure("the edit") }
        let read = try await client.markRead(
            path: .init(id: 0), headers: .init(xDataset: dataset, xClientId: "list-client"),
            body: .json(.init(upTo: last.id + 1)))
        guard try read.ok.body.json.unread == 0 else { throw Failure("the read marker") }
        print("chat: sent a reply (its retry replayed), jumped 2,000 messages up in one request, edited, read")
    }

    /// 7. A scenario as a UI test sets it, without the app's knowing: the dataset wants a token, and its second
    /// page fails once with 503. The client sees the 401, signs in, and retries as a list screen would.
    static func scenario(_ client: Client) async throws {
        let profile = Components.Schemas.DatasetProfile(
            script: [
                .init(
                    match: .init(route: "/items", query: .init(additionalProperties: ["page": "2"])),
                    respond: .init(status: 503, retryAfterS: 1), times: 1)
            ],
            auth: .init(tokenTtlS: 60))
        let set = try await client.putDatasetProfile(path: .init(name: dataset), body: .json(profile))
        guard try set.ok.body.json.script.first?.left == 1 else { throw Failure("the profile: \(set)") }
        let refused = try await client.listItems(query: .init(page: 1, limit: 20), headers: .init(xDataset: dataset))
        guard case .unauthorized = refused else { throw Failure("no token, yet: \(refused)") }
        let issued = try await client.issueToken(headers: .init(xDataset: dataset))
        bearer.value = try issued.ok.body.json.accessToken
        _ = try await numberedPage(client, page: 1, limit: 20)
        let failed = try await client.listItems(query: .init(page: 2, limit: 20), headers: .init(xDataset: dataset))
        guard case .serviceUnavailable(let unavailable) = failed else { throw Failure("the scripted 503: \(failed)") }
        // As a list screen should (and the server's report card checks): not again before its Retry-After.
        try await Task.sleep(for: .seconds(unavailable.headers.retryAfter.flatMap { Int($0) } ?? 1))
        guard try await numberedPage(client, page: 2, limit: 20).items.first?.id == 20 else {
            throw Failure("page 2 after its retry")
        }
        let state = try await client.getDatasetProfile(path: .init(name: dataset)).ok.body.json
        guard state.script.first?.left == 0, state.auth?.tokenTtlS == 60 else { throw Failure("the profile: \(state)") }
        _ = try await client.deleteDatasetProfile(path: .init(name: dataset))
        print("under a profile: 401 until it signed in, page 2 failed once with 503 and loaded on its retry")
    }

    static func total(_ client: Client) async throws -> Int {
        try await numberedPage(client, page: 1, limit: 1).total
    }

    /// A page by number (the document's `ItemsPage`; cursor paging answers a `CursorPage`).
    static func numberedPage(_ client: Client, page: Int, limit: Int) async throws -> Components.Schemas.ItemsPage {
        let response = try await client.listItems(
            query: .init(page: page, limit: limit), headers: .init(xDataset: dataset))
        guard case .ItemsPage(let body) = try response.ok.body.json else {
            throw Failure("page \(page) came back as a cursor page")
        }
        return body
    }
}
