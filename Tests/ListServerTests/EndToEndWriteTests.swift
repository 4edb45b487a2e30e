import Foundation
import ListDomain
import Testing

@testable import ListServer

/// Send, edit and delete over real HTTP, with the writes in an in-memory SQLite store.
@Suite("End to end: writes")
struct EndToEndWriteTests {
    @Test("POST /items: 201 with Location, ETag and the item, at the next id; the list grows by one")
    func create() async throws {
        try await withServer { app in
            let created = try await send(
                port: app.port, "POST", "/items", json: ##"{"label":"Hello","author":"Ana","color":"#A1B2C3"}"##,
                headers: ["Origin: https://app.example"])
            #expect(created.status == 201)
            #expect(created.header("Location") == "/items/10000")
            // The fields every answer gets, added to a write's answer on its way back to the loop.
            #expect(created.header("Cache-Control") == "no-cache")
            #expect(created.header("Access-Control-Allow-Origin") == "*")
            #expect(created.header("X-Request-Id") != nil)
            let tag = try #require(created.header("ETag"))
            let item = try created.jsonObject()
            #expect(item["id"] as? Int == 10000)
            #expect(item["label"] as? String == "Hello")
            #expect(item["author"] as? String == "Ana")
            #expect(item["color"] as? String == "#a1b2c3")
            // The fields not given are the generated ones of id 10000.
            let generated = try #require(Catalog(seed: 42, count: 10_001).item(10_000))
            #expect(item["likes"] as? Int == generated.likes)
            let read = try await fetch(port: app.port, "/items/10000")
            #expect(read.status == 200)
            #expect(read.body == created.body)
            #expect(read.header("ETag") == tag)
            let page = try await fetch(port: app.port, "/items?page=1&limit=1")
            #expect(page.header("X-Total-Count") == "10001")
            let detail = try await fetch(port: app.port, "/items/10000/detail")
            #expect(detail.status == 200)
        }
    }

    @Test("PATCH merges fields, null returns one to its generated value, the ETag changes")
    func patch() async throws {
        try await withServer { app in
            let before = try await fetch(port: app.port, "/items/5")
            let patched = try await send(
                port: app.port, "PATCH", "/items/5", json: #"{"label":"Edited","likes":7}"#,
                contentType: "application/merge-patch+json")
            #expect(patched.status == 200)
            #expect(try patched.jsonObject()["label"] as? String == "Edited")
            #expect(try patched.jsonObject()["likes"] as? Int == 7)
            #expect(patched.header("ETag") != before.header("ETag"))
            let back = try await send(port: app.port, "PATCH", "/items/5", json: #"{"label":null,"likes":null}"#)
            #expect(back.status == 200)
            #expect(back.body == before.body)
            #expect(back.header("ETag") != patched.header("ETag"))
        }
    }

    @Test("DELETE: 204, then 404 for the item and its detail, and pages skip it")
    func delete() async throws {
        try await withServer { app in
            let deleted = try await send(port: app.port, "DELETE", "/items/1", contentType: nil)
            #expect(deleted.status == 204)
            #expect(try await fetch(port: app.port, "/items/1").status == 404)
            #expect(try await fetch(port: app.port, "/items/1/detail").status == 404)
            let again = try await send(port: app.port, "DELETE", "/items/1", contentType: nil)
            #expect(again.status == 404)
            let page = try await fetch(port: app.port, "/items?page=1&limit=3")
            let ids = try #require(try page.jsonObject()["items"] as? [[String: Any]]).map { $0["id"] as? Int }
            #expect(ids == [0, 2, 3])
            #expect(page.header("X-Total-Count") == "9999")
            let cursor = try await fetch(port: app.port, "/items?after=0&limit=2")
            let cursorIDs = try #require(try cursor.jsonObject()["items"] as? [[String: Any]]).map { $0["id"] as? Int }
            #expect(cursorIDs == [2, 3])
        }
    }

    @Test("If-Match: 412 with the current ETag when it differs; the matching one goes through")
    func ifMatch() async throws {
        try await withServer { app in
            let current = try #require(try await fetch(port: app.port, "/items/3").header("ETag"))
            let stale = try await send(
                port: app.port, "PATCH", "/items/3", json: #"{"likes":1}"#,
                headers: [#"If-Match: "v1-0000000000000000""#])
            #expect(stale.status == 412)
            #expect(stale.header("ETag") == current)
            let fresh = try await send(
                port: app.port, "PATCH", "/items/3", json: #"{"likes":1}"#, headers: ["If-Match: \(current)"])
            #expect(fresh.status == 200)
            let old = try await send(
                port: app.port, "DELETE", "/items/3", contentType: nil, headers: ["If-Match: \(current)"])
            #expect(old.status == 412)
        }
    }

    @Test("Idempotency-Key: a retry after ?fail=truncated gets the first answer, and makes no second item")
    func idempotentRetry() async throws {
        try await withServer { app in
            let body = #"{"label":"once"}"#
            let cut = try? await send(
                port: app.port, "POST", "/items?fail=truncated", json: body, headers: ["Idempotency-Key: k-1"])
            #expect(cut == nil || cut?.body.count ?? 0 < 40)  // the client never heard the whole answer
            let retry = try await send(port: app.port, "POST", "/items", json: body, headers: ["Idempotency-Key: k-1"])
            #expect(retry.status == 201)
            #expect(retry.header("Idempotent-Replayed") == "true")
            #expect(retry.header("Location") == "/items/10000")
            let total = try await fetch(port: app.port, "/items?limit=1").header("X-Total-Count")
            #expect(total == "10001")
            let other = try await send(
                port: app.port, "POST", "/items", json: #"{"label":"twice"}"#, headers: ["Idempotency-Key: k-1"])
            #expect(other.status == 422)
            #expect(other.header("Content-Type") == "application/problem+json")
        }
    }

    @Test("bad bodies: 415, 400 with the byte offset, unknown fields named, nothing stored")
    func badBodies() async throws {
        try await withServer { app in
            let form = try await send(
                port: app.port, "POST", "/items", json: "label=x", contentType: "application/x-www-form-urlencoded")
            #expect(form.status == 415)
            let malformed = try await send(port: app.port, "POST", "/items", json: #"{"label":"x",}"#)
            #expect(malformed.status == 400)
            #expect(malformed.text.contains("at byte 13"))  // the "}" after the trailing comma
            let unknown = try await send(port: app.port, "POST", "/items", json: #"{"label":"x","mood":"happy"}"#)
            #expect(unknown.status == 400)
            #expect(unknown.text.contains("mood"))
            let duplicate = try await send(port: app.port, "POST", "/items", json: #"{"label":"x","label":"y"}"#)
            #expect(duplicate.status == 400)
            let withID = try await send(port: app.port, "POST", "/items", json: #"{"id":3,"label":"x"}"#)
            #expect(withID.status == 400)
            let total = try await fetch(port: app.port, "/items?limit=1").header("X-Total-Count")
            #expect(total == "10000")
        }
    }

    @Test("writes pipelined on one connection, behind and ahead of reads, are each answered, in order")
    func pipelinedWrites() async throws {
        try await withServer { app in
            let port = app.port
            let responses = try await offPool { () -> [RawHTTPConnection.Response] in
                let connection = try RawHTTPConnection(port: port)
                func write(_ method: String, _ target: String, _ body: String) -> String {
                    "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                        + "Content-Length: \(body.utf8.count)\r\n\r\n\(body)"
                }
                // The answers to writes come later than those to reads (after a commit): order must still hold.
                try connection.write(
                    write("POST", "/items", #"{"label":"one"}"#)
                        + "GET /items/10000 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
                        + write("PATCH", "/items/10000", #"{"label":"two"}"#) + write("POST", "/items", "{bad")
                        + "DELETE /items/3 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
                        + "GET /items/10000 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                return try (0..<6).map { _ in try connection.readResponse() }
            }
            #expect(responses.map(\.status) == [201, 200, 200, 400, 204, 200])
            #expect(try responses[1].jsonObject()["label"] as? String == "one")
            #expect(try responses[5].jsonObject()["label"] as? String == "two")
        }
    }

    @Test("a write whose body arrives in pieces, the first with the head, is read whole; the request behind it too")
    func bodyInPieces() async throws {
        try await withServer { app in
            let port = app.port
            let responses = try await offPool { () -> [RawHTTPConnection.Response] in
                let connection = try RawHTTPConnection(port: port)
                let body = #"{"label":"sent in three pieces"}"#
                let head =
                    "POST /items HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                    + "Content-Length: \(body.utf8.count)\r\n\r\n"
                // The connection guard passes a head on with the part of its body that came with it, and the rest
                // as it arrives: each piece must reach evhttp once, in order, and nothing of the next request.
                let bytes = Array(body.utf8)
                try connection.write(head + String(decoding: bytes[..<10], as: UTF8.self))
                Thread.sleep(forTimeInterval: 0.05)
                try connection.write(String(decoding: bytes[10..<20], as: UTF8.self))
                Thread.sleep(forTimeInterval: 0.05)
                let next = "GET /items/10000 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
                try connection.write(String(decoding: bytes[20...], as: UTF8.self) + next)
                return try (0..<2).map { _ in try connection.readResponse() }
            }
            #expect(responses.map(\.status) == [201, 200])
            #expect(try responses[0].jsonObject()["label"] as? String == "sent in three pieces")
            #expect(try responses[1].jsonObject()["label"] as? String == "sent in three pieces")
        }
    }

    @Test("datasets: writes to one are invisible in another and in the default; reset and drop are per dataset")
    func datasets() async throws {
        try await withServer { app in
            let created = try await send(
                port: app.port, "POST", "/items", json: #"{"label":"in a"}"#, headers: ["X-Dataset: a"])
            #expect(created.status == 201)
            #expect(try await fetch(port: app.port, "/items/10000", headers: ["X-Dataset: a"]).status == 200)
            #expect(try await fetch(port: app.port, "/items/10000", headers: ["X-Dataset: b"]).status == 404)
            #expect(try await fetch(port: app.port, "/items/10000").status == 404)
            let bad = try await fetch(port: app.port, "/items", headers: ["X-Dataset: no spaces"])
            #expect(bad.status == 400)
            let reset = try await send(
                port: app.port, "POST", "/admin/reset", contentType: nil, headers: ["X-Dataset: a"])
            #expect(reset.status == 200)
            #expect(try await fetch(port: app.port, "/items/10000", headers: ["X-Dataset: a"]).status == 404)
            _ = try await send(port: app.port, "POST", "/items", json: #"{"label":"again"}"#, headers: ["X-Dataset: a"])
            let dropped = try await send(port: app.port, "DELETE", "/admin/datasets/a", contentType: nil)
            #expect(dropped.status == 204)
            let page = try await fetch(port: app.port, "/items?limit=1", headers: ["X-Dataset: a"])
            #expect(page.header("X-Total-Count") == "10000")
            // Version 1, then a reset, then the drop: a tag of the old dataset never matches the new one.
            #expect(try page.jsonObject()["version"] as? Int == 3)
        }
    }

    @Test("writes last: a server restarted on the same file has every acknowledged write, and its keys")
    func durableAcrossRestart() async throws {
        try await withTemporaryFolder { folder in
            let path = folder + "/nested/listserver.sqlite"
            try await withServer(configure: { $0.dataPath = path }) { app throws in
                let created = try await send(
                    port: app.port, "POST", "/items", json: #"{"label":"kept"}"#,
                    headers: ["Idempotency-Key: restart-1"])
                #expect(created.status == 201)
                let deleted = try await send(port: app.port, "DELETE", "/items/0", contentType: nil)
                #expect(deleted.status == 204)
                let patched = try await send(port: app.port, "PATCH", "/items/2", json: #"{"label":"two"}"#)
                #expect(patched.status == 200)
            }
            try await withServer(configure: { $0.dataPath = path }) { app in
                #expect(try await fetch(port: app.port, "/items/10000").jsonObject()["label"] as? String == "kept")
                #expect(try await fetch(port: app.port, "/items/0").status == 404)
                #expect(try await fetch(port: app.port, "/items/2").jsonObject()["label"] as? String == "two")
                let retry = try await send(
                    port: app.port, "POST", "/items", json: #"{"label":"kept"}"#,
                    headers: ["Idempotency-Key: restart-1"])
                #expect(retry.header("Idempotent-Replayed") == "true")
                let next = try await send(port: app.port, "POST", "/items", json: #"{"label":"next"}"#)
                #expect(next.header("Location") == "/items/10001")  // no id handed out twice
            }
        }
    }
}

/// Writes in `/metrics`: by method and outcome, and the store's commits.
@Suite("End to end: write metrics")
struct EndToEndWriteMetricsTests {
    @Test("listserver_writes_total counts by method and outcome; commits are timed")
    func writeMetrics() async throws {
        try await withServer { app in
            _ = try await send(port: app.port, "POST", "/items", json: #"{"label":"a"}"#)
            _ = try await send(port: app.port, "DELETE", "/items/9999999", contentType: nil)
            let image = try EndToEndUploadTests.noisePNG(width: 4, height: 4)
            #expect(try await EndToEndUploadTests.put(port: app.port, "/items/3/image", image).status == 201)
            let text = try await fetch(port: app.port, "/metrics").text
            #expect(text.contains(#"listserver_writes_total{method="POST",outcome="created"} 1"#))
            #expect(text.contains(#"listserver_writes_total{method="DELETE",outcome="rejected"} 1"#))
            #expect(text.contains(#"listserver_writes_total{method="PUT",outcome="created"} 1"#), "an upload counts")
            #expect(text.contains("listserver_store_commit_duration_seconds_count 2"))
            #expect(text.contains("listserver_store_commit_writes_total 2"))
        }
    }
}
