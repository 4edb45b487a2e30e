@testable import ListServer

/// The chat's writes (issue 36) as conformance cases: every status `POST …/messages`, `GET`/`PATCH`/`DELETE
/// …/messages/{messageId}` and `POST …/read` document, in order on one router (conversation 3's messages 0-3 and
/// those it sends).
extension OpenAPIConformanceTests {
    static let messagesTemplate = "/conversations/{id}/messages"
    static let messageTemplate = "/conversations/{id}/messages/{messageId}"
    static let readTemplate = "/conversations/{id}/read"

    static let chatWriteCases: [ConformanceCase] = {
        let json = "application/json"
        func send(
            _ body: String, target: String = "/conversations/3/messages", headers: HTTPHeaders = [:],
            contentType: String? = "application/json", status: Int
        ) -> ConformanceCase {
            ConformanceCase(
                template: messagesTemplate, target: target, methods: ["post"], headers: headers, body: body,
                contentType: contentType, status: status)
        }
        func message(
            _ id: String, _ methods: [String], body: String = "", headers: HTTPHeaders = [:],
            contentType: String? = nil, status: Int
        ) -> ConformanceCase {
            ConformanceCase(
                template: messageTemplate, target: "/conversations/3/messages/" + id, methods: methods,
                headers: headers, body: body, contentType: contentType, status: status)
        }
        func read(_ body: String, headers: HTTPHeaders = [:], contentType: String? = "application/json", status: Int)
            -> ConformanceCase
        {
            ConformanceCase(
                template: readTemplate, target: "/conversations/3/read", methods: ["post"],
                headers: headers.count == 0 ? ["X-Client-Id": "conformance"] : headers, body: body,
                contentType: contentType, status: status)
        }
        let key: HTTPHeaders = ["Idempotency-Key": "chat-once"]
        return [
            send(#"{"text":"On my way 🏃"}"#, status: 201),
            send(#"{"text":"Re: the plan","reply_to":0}"#, status: 201),
            send(#"{"text":"once"}"#, headers: key, status: 201),
            send(#"{"text":"once"}"#, headers: key, status: 201),  // the replay
            send(#"{"text":"twice"}"#, headers: key, status: 422),
            send(#"{"text":"x"}"#, contentType: nil, status: 415),
            send(#"{"text":""}"#, status: 400),
            send(#"{"text":"x","mood":1}"#, status: 400),
            send(#"{"text":"x","reply_to":99999999}"#, status: 400),
            send(#"{"text":"x",}"#, status: 400),
            send(#"{"text":"x"}"#, target: "/conversations/50/messages", status: 404),
            message("0", ["get", "head"], status: 200),
            message("0", ["get", "head"], headers: ["If-None-Match": "*"], status: 304),
            message("x", ["get", "head"], status: 400),
            message("99999999", ["get", "head"], status: 404),
            message("1", ["patch"], body: #"{"text":"edited"}"#, contentType: json, status: 200),
            message(
                "1", ["patch"], body: #"{"text":"edited"}"#, headers: ["If-Match": "\"nope\""], contentType: json,
                status: 412),
            message("99999999", ["patch"], body: #"{"text":"edited"}"#, contentType: json, status: 404),
            message("1", ["patch"], body: #"{"txt":"edited"}"#, contentType: json, status: 400),
            message("1", ["patch"], body: #"{"text":"edited"}"#, status: 415),
            message("1", ["patch"], body: #"{"text":"edited"}"#, headers: key, contentType: json, status: 422),
            message("2", ["delete"], status: 204),
            message("2", ["delete"], status: 404),
            message("3", ["delete"], headers: ["If-Match": "\"nope\""], status: 412),
            message("3", ["delete"], headers: key, status: 422),
            message("x", ["delete"], status: 400),
            read(#"{"up_to":1}"#, status: 200),
            read(#"{"up_to":99999999}"#, status: 404),
            read("{}", status: 400),
            read(#"{"up_to":1}"#, contentType: nil, status: 415),
            read(#"{"up_to":1}"#, headers: key, status: 422),
        ]
    }()

    /// The chat's writes on the stores that fail (503, 507), with a profile that wants a token (401), and with the
    /// injected faults (500, 503, 429; a malformed `fail` 400).
    static func chatWrites(router: ConformanceRouter, headers: HTTPHeaders = [:], query: String = "", status: Int)
        -> [ConformanceCase]
    {
        [
            ConformanceCase(
                template: messagesTemplate, target: "/conversations/3/messages" + query, methods: ["post"],
                headers: headers, body: #"{"text":"x"}"#, contentType: "application/json", router: router,
                status: status),
            ConformanceCase(
                template: messageTemplate, target: "/conversations/3/messages/1" + query, methods: ["patch"],
                headers: headers, body: #"{"text":"x"}"#, contentType: "application/json", router: router,
                status: status),
            ConformanceCase(
                template: messageTemplate, target: "/conversations/3/messages/1" + query, methods: ["delete"],
                headers: headers, router: router, status: status),
            ConformanceCase(
                template: readTemplate, target: "/conversations/3/read" + query, methods: ["post"], headers: headers,
                body: #"{"up_to":1}"#, contentType: "application/json", router: router, status: status),
        ]
    }
}
