import Foundation
import Testing

@testable import ListServer

/// Every error of the API contract over real HTTP: problem+json, the right status, a useful detail.
@Suite("End to end: errors")
struct EndToEndErrorTests {
    @Test(
        "a bad page or limit is a 400 problem naming the parameter and its range",
        arguments: [
            ("page", "0"), ("page", "-1"), ("page", "abc"), ("page", "1.5"), ("page", ""), ("page", "1e3"),
            ("page", "99999999999999999999999"), ("page", "%zz"), ("page", "%00"), ("limit", "0"), ("limit", "101"),
            ("limit", "-5"), ("limit", "ten"), ("limit", "20%"),
        ])
    func badParameter(name: String, value: String) async throws {
        try await withServer { app in
            let response = try await fetch(port: app.port, "/items?\(name)=\(value)")
            #expect(response.status == 400)
            #expect(response.header("Content-Type") == "application/problem+json")
            let problem = try response.jsonObject()
            #expect(problem["status"] as? Int == 400)
            #expect(problem["type"] is String)
            #expect(problem["title"] is String)
            let detail = try #require(problem["detail"] as? String)
            #expect(detail.contains(name))
            #expect(detail.contains(name == "page" ? "9007199254740992" : "100"), "range in: \(detail)")
        }
    }

    @Test("an unknown path is a 404 problem")
    func unknownPath() async throws {
        try await withServer { app in
            for target in ["/nope", "/app/nope.js", "/items/", "/items/1/", "/items/1/detail/x", "/itemsx"] {
                let response = try await fetch(port: app.port, target)
                #expect(response.status == 404, "\(target)")
                #expect(response.header("Content-Type") == "application/problem+json", "\(target)")
                #expect(try response.jsonObject()["status"] as? Int == 404, "\(target)")
            }
        }
    }

    /// Known paths and their `Allow` values.
    static let allowed = [
        "/items": "GET, HEAD, POST, OPTIONS", "/items/3": "GET, HEAD, PATCH, DELETE, OPTIONS",
        "/items/3/detail": "GET, HEAD, OPTIONS",
    ]

    @Test("a method a known path does not answer is a 405 problem with Allow, not evhttp's 501")
    func methodNotAllowed() async throws {
        // POST, PATCH and DELETE are routes on some of these paths (Router: writes); here each is sent where it is
        // not, and PUT, which no path answers, everywhere.
        let refused = [
            ("PUT", "/items"), ("PUT", "/items/3"), ("PUT", "/items/3/detail"), ("POST", "/items/3"),
            ("POST", "/items/3/detail"), ("PATCH", "/items"), ("PATCH", "/items/3/detail"), ("DELETE", "/items"),
            ("DELETE", "/items/3/detail"),
        ]
        try await withServer { app in
            for (method, target) in refused {
                let response = try await offPool {
                    let connection = try RawHTTPConnection(port: app.port)
                    try connection.request(method, target, headers: ["Content-Length: 0"])
                    return try connection.readResponse()
                }
                #expect(response.status == 405, "\(method) \(target)")
                #expect(response.header("Allow") == Self.allowed[target], "\(method) \(target)")
                #expect(response.header("Content-Type") == "application/problem+json", "\(method) \(target)")
            }
        }
    }

    @Test("OPTIONS on a known path is a 204 with Allow and no body, and the connection stays usable")
    func options() async throws {
        try await withServer { app in
            for (target, allow) in Self.allowed.sorted(by: { $0.key < $1.key }) {
                let (options, next) = try await offPool {
                    let connection = try RawHTTPConnection(port: app.port)
                    try connection.request("OPTIONS", target)
                    let options = try connection.readResponse()
                    try connection.request("GET", target)
                    return (options, try connection.readResponse())
                }
                #expect(options.status == 204, "\(target)")
                #expect(options.header("Allow") == allow, "\(target)")
                #expect(options.body.isEmpty, "\(target)")
                #expect(next.status == 200, "\(target)")
            }
        }
    }
}
