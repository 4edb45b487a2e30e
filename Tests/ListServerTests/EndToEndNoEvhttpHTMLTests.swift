import Foundation
import Testing

@testable import ListServer

/// evhttp answers some requests on its own, in HTML (`<HTML><HEAD><TITLE>400 Bad Request`), before the server's
/// callback sees them: a target whose authority it cannot parse, an empty line before the request line, an `Expect`
/// it does not meet. Each is sent raw to a real server, which must answer problem+json, never HTML.
@Suite("End to end: no evhttp HTML ever reaches a client")
struct EndToEndNoEvhttpHTMLTests {
    static let host = "Host: 127.0.0.1\r\n"

    /// Sends `raw` and reads every answer until the server closes the connection (or `count` answers came).
    static func answers(port: Int, _ raw: String, count: Int) async throws -> [RawHTTPConnection.Response] {
        try await offPool {
            let connection = try RawHTTPConnection(port: port, timeout: 5)
            try connection.write(raw)
            var answers: [RawHTTPConnection.Response] = []
            while answers.count < count, let response = try? connection.readResponse() { answers.append(response) }
            return answers
        }
    }

    @Test(
        "a target whose authority evhttp cannot parse is a 400 problem, absolute-form or a path starting with //",
        arguments: [
            "http://[x/items", "http://[/items", "http://[]/items", "http://]/items", "http://a[b]/items",
            "http://[V1.x]/items", "http://[fe80::1%25eth0]/items", "http://user@host:99999/items",
            "http://host:65536/items", "http://host:port/items", "http://a:b:80/items", "http://a%zz/items",
            "http://h%/items", "http://a\"b/items", "http://a{b/items", "http://u@v@host/items", "http://u%4@h/items",
            "//[x/items", "//a%zz/items", "//h:99999/items", "//u@v@h/items", "https://[::1/",
        ])
    func badAuthority(target: String) async throws {
        try await withServer { app in
            let answers = try await Self.answers(
                port: app.port, "GET \(target) HTTP/1.1\r\n\(Self.host)Connection: close\r\n\r\n", count: 1)
            let response = try #require(answers.first, "\(target): no answer")
            #expect(response.status == 400, "\(target)")
            #expect(response.header("Content-Type") == "application/problem+json", "\(target): \(response.text)")
            #expect(try response.jsonObject()["type"] as? String == "urn:listserver:problem:malformed-request")
        }
    }

    @Test(
        "authorities evhttp parses still reach the router",
        arguments: [
            ("http:///items?limit=1", 200), ("HTTP://host/items?limit=1", 200), ("http://host:/items?limit=1", 200),
            ("http://[::1]:8080/items?limit=1", 200), ("http://[v1.x]/items?limit=1", 200),
            ("http://u:p@%41b:0080/items?limit=1", 200), ("//host/items", 404), ("//items", 404),
        ])
    func goodAuthority(target: String, status: Int) async throws {
        try await withServer { app in
            let answers = try await Self.answers(
                port: app.port, "GET \(target) HTTP/1.1\r\n\(Self.host)Connection: close\r\n\r\n", count: 1)
            let response = try #require(answers.first, "\(target): no answer")
            #expect(response.status == status, "\(target)")
            #expect(response.header("Content-Type")?.hasPrefix("application/") == true, "\(target)")
        }
    }

    @Test("empty lines before a request line are skipped, also the CRLF an old client sends after a body")
    func leadingEmptyLines() async throws {
        try await withServer { app in
            let plain = try await Self.answers(
                port: app.port, "\r\n\nGET /items/1 HTTP/1.1\r\n\(Self.host)Connection: close\r\n\r\n", count: 1)
            #expect(plain.map(\.status) == [200])
            let afterBody = try await Self.answers(
                port: app.port,
                "POST /nowhere HTTP/1.1\r\n\(Self.host)Content-Length: 2\r\n\r\n{}\r\n"
                    + "GET /items/2 HTTP/1.1\r\n\(Self.host)Connection: close\r\n\r\n",
                count: 2)
            #expect(afterBody.map(\.status) == [404, 200])
            #expect(afterBody.allSatisfy { $0.header("Content-Type")?.hasPrefix("application/") == true })
        }
    }

    @Test(
        "an Expect other than 100-continue is a 417 problem; 100-continue itself still works",
        arguments: [
            "Expect: foo\r\n", "Expect:\r\n", "Expect: 100-continue, foo\r\n", "Expect:\t100-continue\r\n",
            "Expect: foo\r\nExpect: 100-continue\r\n",
        ])
    func expectation(field: String) async throws {
        try await withServer { app in
            let answers = try await Self.answers(
                port: app.port, "POST /items HTTP/1.1\r\n\(Self.host)\(field)Content-Length: 2\r\n\r\n{}", count: 1)
            let response = try #require(answers.first, "\(field.debugDescription): no answer")
            #expect(response.status == 417, "\(field.debugDescription)")
            #expect(response.header("Content-Type") == "application/problem+json")
            #expect(try response.jsonObject()["type"] as? String == "urn:listserver:problem:expectation-failed")
            let continued = try await offPool { () -> (Int, Int) in
                let connection = try RawHTTPConnection(port: app.port)
                try connection.write(
                    "POST /items HTTP/1.1\r\n\(Self.host)Expect: 100-Continue\r\nContent-Type: application/json\r\n"
                        + "Content-Length: 13\r\n\r\n")
                let interim = try connection.readStreamHead().status
                try connection.write("{\"label\":\"x\"}")
                return (interim, try connection.readResponse().status)
            }
            #expect(continued == (100, 201))
        }
    }
}
