import Foundation
import ListDomain
import Testing

@testable import ListServer

/// Item images over real HTTP: the photo list's second level.
@Suite("End to end: images")
struct EndToEndImageTests {
    @Test("the first fetch is a slow MISS, the next a HIT with the same bytes; HEAD has the same head")
    func missThenHit() async throws {
        try await withServer { app in
            let codecs = try ImageCodecs()
            let miss = try await fetch(port: app.port, "/items/42/image?w=60&h=40")
            #expect(miss.status == 200)
            #expect(miss.header("Content-Type") == "image/jpeg")
            #expect(miss.header("X-Cache") == "MISS")
            let timing = try #require(miss.header("Server-Timing"))
            let store = try #require(
                Double(timing.split(separator: ",")[0].replacingOccurrences(of: "store;dur=", with: "")))
            #expect(store >= 300, "the store waited its configured 300 ms: \(timing)")
            let decoded = try codecs.decode(miss.body, as: .jpeg)
            #expect(decoded.width == 60 && decoded.height == 40)

            let hit = try await fetch(port: app.port, "/items/42/image?w=60&h=40")
            #expect(hit.header("X-Cache") == "HIT" && hit.body == miss.body)
            let head = try await fetch(port: app.port, "/items/42/image?w=60&h=40", method: "HEAD")
            #expect(head.status == 200 && head.body.isEmpty)
            #expect(head.header("Content-Length") == String(miss.body.count))
            #expect(head.header("ETag") == hit.header("ETag"))
            #expect(app.images.statistics.encodes == 1)
        }
    }

    @Test("a page's image_url fetched for every row, as the photo list does: each decodes at its size")
    func photoList() async throws {
        try await withServer(configure: {
            $0.imageLatencyMinMs = 0; $0.imageLatencyMaxMs = 0
        }) { app in
            let page = try await fetch(port: app.port, "/items?limit=6").jsonObject()
            let items = try #require(page["items"] as? [[String: Any]])
            let codecs = try ImageCodecs()
            for item in items {
                let url = try #require(item["image_url"] as? String)
                let response = try await fetch(port: app.port, url + ".png?w=80")
                #expect(response.status == 200, "\(url)")
                let width = try #require(item["width"] as? Int)
                let height = try #require(item["height"] as? Int)
                let decoded = try codecs.decode(response.body, as: .png)
                #expect(decoded.width == 80 && decoded.height == ImageSpec.proportional(80, side: width, other: height))
            }
        }
    }

    @Test("?progressive over HTTP: a progressive JPEG decoding to the baseline's pixels; image.progressive by default")
    func progressiveOverHTTP() async throws {
        let codecs = try ImageCodecs()
        try await withServer(configure: {
            $0.imageLatencyMinMs = 0; $0.imageLatencyMaxMs = 0
        }) { app in
            let baseline = try await fetch(port: app.port, "/items/42/image?w=200&h=120")
            let progressive = try await fetch(port: app.port, "/items/42/image?w=200&h=120&progressive")
            #expect(RouterImageTests.isProgressive(baseline.body) == false)
            #expect(RouterImageTests.isProgressive(progressive.body) == true)
            #expect(progressive.header("ETag") != baseline.header("ETag"))
            #expect(try codecs.decode(progressive.body, as: .jpeg) == (try codecs.decode(baseline.body, as: .jpeg)))
        }
        try await withServer(configure: {
            $0.imageLatencyMinMs = 0; $0.imageLatencyMaxMs = 0; $0.imageProgressive = true
        }) { app in
            let progressive = try await fetch(port: app.port, "/items/42/image?w=200&h=120")
            #expect(RouterImageTests.isProgressive(progressive.body) == true)
        }
    }

    @Test("concurrent first fetches of one image share a single encode")
    func coalescing() async throws {
        try await withServer(configure: {
            $0.imageLatencyMinMs = 400; $0.imageLatencyMaxMs = 400
        }) { app in
            let port = app.port
            let bodies = try await withThrowingTaskGroup(of: RawHTTPConnection.Response.self) { group in
                for _ in 0..<8 { group.addTask { try await fetch(port: port, "/items/77/image.webp?w=200") } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(bodies.allSatisfy { $0.status == 200 && $0.header("X-Cache") == "MISS" })
            #expect(Set(bodies.map(\.body)).count == 1)
            let statistics = app.images.statistics
            #expect(statistics.encodes == 1)
            #expect(statistics.coalescedWaits == 7)
        }
    }

    @Test("/metrics counts image hits, misses and encodes, and the bytes the cache holds")
    func metrics() async throws {
        try await withServer(configure: {
            $0.imageLatencyMinMs = 0; $0.imageLatencyMaxMs = 0
        }) { app in
            let miss = try await fetch(port: app.port, "/items/8/image.png?w=50")
            _ = try await fetch(port: app.port, "/items/8/image.png?w=50")
            let text = try PrometheusText(try await fetch(port: app.port, "/metrics").text)
            #expect(text["listserver_image_cache_hits_total"] == 1)
            #expect(text["listserver_image_cache_misses_total"] == 1)
            #expect(text["listserver_image_encodes_total"] == 1)
            #expect(text["listserver_image_cache_entries"] == 1)
            #expect(text["listserver_image_cache_bytes"] == Double(miss.body.count))
            #expect(text["listserver_image_cache_capacity_bytes"] == Double(64 << 20))
            #expect(text.requests("/items/{id}/image.{format}", 200) == 2)
        }
    }

    @Test("faults and delays apply to images as to details")
    func controls() async throws {
        try await withServer(configure: {
            $0.imageLatencyMinMs = 0; $0.imageLatencyMaxMs = 0
        }) { app in
            let failed = try await fetch(port: app.port, "/items/3/image?fail=503")
            #expect(failed.status == 503 && failed.header("Retry-After") != nil)
            let start = ContinuousClock.now
            let delayed = try await fetch(port: app.port, "/items/3/image?w=10&delay_ms=300")
            #expect(delayed.status == 200)
            #expect(ContinuousClock.now - start >= .milliseconds(300))
            #expect(app.images.statistics.encodes == 1, "the injected 503 encoded nothing")
        }
    }
}
