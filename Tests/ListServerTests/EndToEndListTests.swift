import Foundation
import Testing

@testable import ListServer

/// The list endpoints over real HTTP, against a real server on 127.0.0.1:0.
@Suite("End to end: pages, one item, HEAD and keep-alive")
struct EndToEndListTests {
    @Test("GET /items answers the first page with paging headers")
    func firstPage() async throws {
        try await withServer { app in
            let response = try await fetch(port: app.port, "/items")
            #expect(response.status == 200)
            #expect(response.header("Content-Type") == "application/json; charset=utf-8")
            #expect(response.header("X-Total-Count") == "10000")
            let link = try #require(response.header("Link"))
            #expect(link.contains("</items?page=2&limit=20>; rel=\"next\""))
            #expect(link.contains("</items?page=500&limit=20>; rel=\"last\""))
            #expect(!link.contains("rel=\"prev\""))
            let body = try response.jsonObject()
            let items = try #require(body["items"] as? [[String: Any]])
            #expect(items.count == 20)
            #expect(items.first?["id"] as? Int == 0)
            #expect(items.first?["label"] as? String == "Line 0")
            #expect(items.last?["id"] as? Int == 19)
            #expect(body["page"] as? Int == 1)
            #expect(body["limit"] as? Int == 20)
            #expect(body["total"] as? Int == 10000)
            #expect(body["total_pages"] as? Int == 500)
            #expect(body["next_page"] as? Int == 2)
        }
    }

    @Test("every answer has one Date, the time now (within the second a loop keeps it for), HTTP/1.0 too")
    func dateField() async throws {
        try await withServer { app in
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "GMT")
            formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
            for path in ["/items", "/items/3", "/nowhere"] {
                let before = Date()
                let response = try await fetch(port: app.port, path)
                let after = Date()
                #expect(response.headers(named: "Date").count == 1, "\(path)")
                let date = try #require(response.header("Date").flatMap(formatter.date(from:)), "\(path)")
                #expect(date >= before.addingTimeInterval(-1.5) && date <= after, "\(path): \(date)")
            }
            // HTTP/1.0 too (RFC 9110 §6.6.1), a page and the event stream: evhttp adds one to HTTP/1.1 answers only.
            for path in ["/items", "/items/events"] {
                let connection = try RawHTTPConnection(port: app.port)
                try connection.write("GET \(path) HTTP/1.0\r\nHost: x\r\n\r\n")
                let head = try await offPool { try connection.readStreamHead() }
                #expect(head.headers(named: "Date").count == 1, "HTTP/1.0 \(path)")
                #expect(head.header("Date").flatMap(formatter.date(from:)) != nil, "HTTP/1.0 \(path)")
            }
        }
    }

    @Test("a later page holds ids (P-1)*L ..< P*L, and the same bytes every time")
    func laterPageIsDeterministic() async throws {
        try await withServer { app in
            let first = try await fetch(port: app.port, "/items?page=3&limit=7")
            let again = try await fetch(port: app.port, "/items?limit=7&page=3")
            #expect(first.body == again.body)
            let items = try #require(try first.jsonObject()["items"] as? [[String: Any]])
            #expect(items.map { $0["id"] as? Int } == Array(14..<21))
            let firstBody = try first.jsonObject()
            #expect(firstBody["next_page"] as? Int == 4)
            #expect(first.header("Link")?.contains("</items?page=2&limit=7>; rel=\"prev\"") == true)
        }
    }

    @Test("the same seed gives the same bytes across restarts; another seed differs")
    func sameSeedSameBytesAcrossRestarts() async throws {
        let one = try await withServer { app in try await fetch(port: app.port, "/items?page=9").body }
        let two = try await withServer { app in try await fetch(port: app.port, "/items?page=9").body }
        let other = try await withServer(configure: { $0.seed = 7 }) { app in
            try await fetch(port: app.port, "/items?page=9").body
        }
        #expect(one == two)
        #expect(one != other)
    }

    @Test("past the end: 200, no items, no next page")
    func pastTheEnd() async throws {
        try await withServer { app in
            let response = try await fetch(port: app.port, "/items?page=501")
            #expect(response.status == 200)
            let body = try response.jsonObject()
            #expect((body["items"] as? [Any])?.isEmpty == true)
            #expect(body["next_page"] is NSNull)
            #expect(response.header("Link")?.contains("rel=\"next\"") == false)
        }
    }

    @Test("the deepest page of a 2^53-item catalog")
    func deepestPageOfHugeCatalog() async throws {
        try await withServer(configure: { $0.itemCount = 1 << 53 }) { app in
            let last = ((UInt64(1) << 53) + 19) / 20  // 450359962737050
            let response = try await fetch(port: app.port, "/items?page=\(last)&limit=20")
            #expect(response.status == 200)
            let items = try #require(try response.jsonObject()["items"] as? [[String: Any]])
            #expect(items.count == 12)  // 2^53 = 20 * 450359962737049 + 12
            #expect(items.last?["id"] as? Int == (1 << 53) - 1)
            #expect(response.header("X-Total-Count") == "9007199254740992")
        }
    }

    @Test("GET /items/<id> answers one item; 404 past the end; 400 for a non-integer id")
    func singleItem() async throws {
        try await withServer { app in
            let item = try await fetch(port: app.port, "/items/42")
            #expect(item.status == 200)
            let itemBody = try item.jsonObject()
            #expect(itemBody["label"] as? String == "Line 42")
            let page = try await fetch(port: app.port, "/items?page=3&limit=20")
            let fromPage = try #require(try page.jsonObject()["items"] as? [[String: Any]])[2]
            #expect(NSDictionary(dictionary: fromPage).isEqual(to: try item.jsonObject()))

            let missing = try await fetch(port: app.port, "/items/10000")
            #expect(missing.status == 404)
            #expect(missing.header("Content-Type") == "application/problem+json")
            for bad in ["abc", "-1", "1.5", "99999999999999999999999", "%zz"] {
                let response = try await fetch(port: app.port, "/items/\(bad)")
                #expect(response.status == 400, "id \(bad)")
                #expect(response.header("Content-Type") == "application/problem+json", "id \(bad)")
            }
        }
    }

    @Test("HEAD answers like GET without a body, with the GET body's length")
    func headLikeGet() async throws {
        try await withServer { app in
            for target in ["/items?page=2", "/items/5", "/items/nope", "/nowhere"] {
                let get = try await fetch(port: app.port, target)
                let head = try await fetch(port: app.port, target, method: "HEAD")
                #expect(head.status == get.status, "\(target)")
                #expect(head.body.isEmpty, "\(target)")
                #expect(head.header("Content-Length") == String(get.body.count), "\(target)")
                #expect(head.header("Content-Type") == get.header("Content-Type"), "\(target)")
            }
        }
    }

    @Test("keep-alive and pipelining: several requests on one connection, answered in order")
    func keepAliveAndPipelining() async throws {
        try await withServer { app in
            let port = app.port
            let labels = try await offPool { () -> [String] in
                let connection = try RawHTTPConnection(port: port)
                var labels: [String] = []
                for id in [1, 2] {  // one after the other
                    try connection.request("GET", "/items/\(id)")
                    labels.append(try connection.readResponse().jsonObject()["label"] as? String ?? "?")
                }
                // Three at once in one write, then the three answers.
                try connection.write(
                    ["/items/3", "/items?page=1&limit=1", "/items/4"].map {
                        "GET \($0) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
                    }.joined())
                labels.append(try connection.readResponse().jsonObject()["label"] as? String ?? "?")
                let page = try connection.readResponse().jsonObject()
                labels.append("page \(page["page"] as? Int ?? -1)")
                labels.append(try connection.readResponse().jsonObject()["label"] as? String ?? "?")
                return labels
            }
            #expect(labels == ["Line 1", "Line 2", "Line 3", "page 1", "Line 4"])
        }
    }
}
