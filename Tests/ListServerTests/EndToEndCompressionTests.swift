import Foundation
import Testing

@testable import ListServer

/// Compressed JSON over real connections (issue 35): which answers are compressed and how they are tagged. That the
/// bytes decode to the identity body is checked by tools that are not ListServer's (curl, Python's gzip and
/// zstandard) in scripts/bytes-test.sh.
@Suite("End to end: compressed JSON")
struct EndToEndCompressionTests {
    static let gzipMagic: [UInt8] = [0x1F, 0x8B]
    static let zstdMagic: [UInt8] = [0x28, 0xB5, 0x2F, 0xFD]

    @Test("a page is gzip or zstd as asked, tagged per coding, with Vary; without Accept-Encoding it is as it was")
    func pages() async throws {
        try await withServer { app in
            let plain = try await fetch(port: app.port, "/items?limit=20")
            #expect(plain.status == 200 && plain.header("Content-Encoding") == nil)
            #expect(plain.header("Vary") == "Accept-Encoding, Origin")
            let tag = try #require(plain.header("ETag"))
            let gzip = try await fetch(port: app.port, "/items?limit=20", headers: ["Accept-Encoding: gzip, deflate"])
            #expect(gzip.header("Content-Encoding") == "gzip" && gzip.header("Vary") == "Accept-Encoding, Origin")
            #expect(Array(gzip.body.prefix(2)) == Self.gzipMagic)
            #expect(gzip.body.count < plain.body.count / 2, "\(gzip.body.count) of \(plain.body.count) bytes")
            #expect(gzip.header("ETag") == String(tag.dropLast()) + "-gzip\"")
            #expect(gzip.header("Content-Length") == String(gzip.body.count))
            let zstd = try await fetch(port: app.port, "/items?limit=20", headers: ["Accept-Encoding: gzip, zstd"])
            #expect(zstd.header("Content-Encoding") == "zstd" && Array(zstd.body.prefix(4)) == Self.zstdMagic)
            #expect(zstd.header("ETag") == String(tag.dropLast()) + "-zstd\"")
            let head = try await fetch(
                port: app.port, "/items?limit=20", method: "HEAD", headers: ["Accept-Encoding: gzip"])
            #expect(head.header("Content-Length") == String(gzip.body.count) && head.body.isEmpty)
            let refused = try await fetch(
                port: app.port, "/items?limit=20", headers: ["Accept-Encoding: gzip;q=0, zstd;q=0"])
            #expect(refused.header("Content-Encoding") == nil && refused.body == plain.body)
        }
    }

    @Test("revalidating the gzip representation with its tag is 304 with that tag; If-Match takes a coding's tag")
    func conditions() async throws {
        try await withServer { app in
            let gzip = try await fetch(port: app.port, "/items?limit=20", headers: ["Accept-Encoding: gzip"])
            let tag = try #require(gzip.header("ETag"))
            let again = try await fetch(
                port: app.port, "/items?limit=20", headers: ["Accept-Encoding: gzip", "If-None-Match: \(tag)"])
            #expect(again.status == 304 && again.header("ETag") == tag && again.body.isEmpty)
            #expect(again.header("Vary") == "Accept-Encoding, Origin")
            let other = try await fetch(
                port: app.port, "/items?limit=21", headers: ["Accept-Encoding: gzip", "If-None-Match: \(tag)"])
            #expect(other.status == 200, "another page's tag does not match")
            // The gzip tag names the gzip representation only: a client that now takes zstd, or nothing, holds
            // another one, so it gets the page.
            let zstdTag = String(tag.dropLast(6)) + "-zstd\""
            let asZstd = try await fetch(
                port: app.port, "/items?limit=20", headers: ["Accept-Encoding: zstd", "If-None-Match: \(tag)"])
            #expect(asZstd.status == 200 && asZstd.header("ETag") == zstdTag)
            let asIdentity = try await fetch(port: app.port, "/items?limit=20", headers: ["If-None-Match: \(tag)"])
            #expect(asIdentity.status == 200 && asIdentity.header("Content-Encoding") == nil)
            // Both tags sent, with gzip accepted: the gzip one matches, and the 304 names it.
            let both = try await fetch(
                port: app.port, "/items?limit=20",
                headers: ["Accept-Encoding: gzip", "If-None-Match: \(zstdTag), \(tag)"])
            #expect(both.status == 304 && both.header("ETag") == tag)
            #expect(both.header("Vary") == "Accept-Encoding, Origin")
            // The identity representation revalidated: its own tag, and the Vary its 200 had (RFC 9110 §15.4.5).
            let identityTag = String(tag.dropLast(6)) + "\""
            let plain = try await fetch(port: app.port, "/items?limit=20", headers: ["If-None-Match: \(identityTag)"])
            #expect(plain.status == 304 && plain.header("ETag") == identityTag)
            #expect(plain.header("Vary") == "Accept-Encoding, Origin")
            // An item is small, so never compressed; a client that holds a coding's tag of it (and accepts the coding)
            // still gets its write.
            // It varies by Accept-Encoding as every JSON answer does, so its 304 says so too.
            let item = try await fetch(port: app.port, "/items/3", headers: ["Accept-Encoding: gzip"])
            #expect(item.header("Content-Encoding") == nil && item.header("Vary") == "Accept-Encoding, Origin")
            let itemAgain = try await fetch(
                port: app.port, "/items/3", headers: ["If-None-Match: \(try #require(item.header("ETag")))"])
            #expect(itemAgain.status == 304 && itemAgain.header("Vary") == "Accept-Encoding, Origin")
            let itemTag = try #require(item.header("ETag"))
            let patched = try await send(
                port: app.port, "PATCH", "/items/3", json: #"{"label":"edited"}"#,
                contentType: "application/merge-patch+json",
                headers: ["Accept-Encoding: gzip", "If-Match: \(String(itemTag.dropLast()))-gzip\""])
            #expect(patched.status == 200, "\(patched.text)")
            let stale = try await send(
                port: app.port, "PATCH", "/items/3", json: #"{"label":"again"}"#,
                contentType: "application/merge-patch+json",
                headers: ["Accept-Encoding: gzip", "If-Match: \(String(itemTag.dropLast()))-gzip\""])
            #expect(stale.status == 412, "the tag is stale after the edit, in any coding")
        }
    }

    @Test("images, small answers and problems under a kilobyte are never compressed")
    func notCompressed() async throws {
        try await withServer { app in
            let image = try await fetch(
                port: app.port, "/items/4/image?w=60&h=40", headers: ["Accept-Encoding: gzip, zstd"])
            #expect(image.status == 200 && image.header("Content-Encoding") == nil)
            #expect(image.headers(named: "Vary") == ["Accept, Origin"])  // its format chosen by Accept
            let detail = try await fetch(port: app.port, "/items/4", headers: ["Accept-Encoding: gzip"])
            #expect(detail.body.count < 1_024 && detail.header("Content-Encoding") == nil)
            let problem = try await fetch(port: app.port, "/items?limit=0", headers: ["Accept-Encoding: gzip"])
            #expect(problem.status == 400 && problem.header("Content-Encoding") == nil)
        }
    }

    @Test("the journal's HAR gives a compressed answer's size as decoded, what went over the wire, and the saving")
    func harSizes() async throws {
        try await withServer { app in
            let plain = try await fetch(port: app.port, "/items?page=2&limit=20", headers: ["X-Client-Id: har"])
            let gzip = try await fetch(
                port: app.port, "/items?page=3&limit=20", headers: ["X-Client-Id: har", "Accept-Encoding: gzip"])
            #expect(plain.status == 200 && gzip.header("Content-Encoding") == "gzip")
            let identity = try await fetch(port: app.port, "/items?page=3&limit=20")
            let har = try await fetch(port: app.port, "/admin/journal.har?client=har").jsonObject()
            let entries = try #require((har["log"] as? [String: Any])?["entries"] as? [[String: Any]])
            let responses = entries.compactMap { $0["response"] as? [String: Any] }
            try #require(responses.count == 2)
            let (first, second) = (responses[0], responses[1])
            let plainContent = try #require(first["content"] as? [String: Any])
            #expect(plainContent["size"] as? Int == plain.body.count && first["bodySize"] as? Int == plain.body.count)
            #expect(plainContent["compression"] == nil)
            let content = try #require(second["content"] as? [String: Any])
            #expect(content["size"] as? Int == identity.body.count)
            #expect(second["bodySize"] as? Int == gzip.body.count && gzip.body.count < identity.body.count)
            #expect(content["compression"] as? Int == identity.body.count - gzip.body.count)
        }
    }

    @Test("an event stream asked for gzip is a gzip stream: its head says so, and its bytes start a gzip member")
    func eventStream() async throws {
        try await withServer { app in
            let (head, bytes) = try await offPool {
                let connection = try RawHTTPConnection(port: app.port)
                try connection.request("GET", "/items/events", headers: ["Accept-Encoding: gzip"])
                return (try connection.readStreamHead(), try connection.readRawChunk())
            }
            #expect(head.header("Content-Encoding") == "gzip" && head.header("Vary") == "Accept-Encoding, Origin")
            #expect(Array(bytes.prefix(2)) == Self.gzipMagic)
            let plain = try await offPool {
                let connection = try RawHTTPConnection(port: app.port)
                try connection.request("GET", "/items/events")
                return (try connection.readStreamHead(), try connection.readRawChunk())
            }
            #expect(plain.0.header("Content-Encoding") == nil && plain.1 == Array("retry: 2000\n\n".utf8))
        }
    }
}
