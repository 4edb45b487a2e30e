import Foundation
import Testing

@testable import ListServer

/// `/d/<name>/…` over real HTTP: what only the loops do with a base, the event streams' own framing.
@Suite("End to end: a dataset as a base URL")
struct EndToEndBasePathTests {
    @Test(
        "SSE under /d/x/: the dataset's events, their URLs under the base, live and replayed; a plain stream beside it keeps plain URLs"
    )
    func eventStreams() async throws {
        try await withServer { app in
            let underBase = try RawHTTPConnection(port: app.port)
            try underBase.request("GET", "/d/x/items/events")
            let plain = try RawHTTPConnection(port: app.port)
            try plain.request("GET", "/items/events", headers: ["X-Dataset: x"])
            let other = try RawHTTPConnection(port: app.port)
            try other.request("GET", "/d/y/items/events")
            for stream in [underBase, plain, other] {
                #expect(try await offPool { try stream.readStreamHead() }.status == 200)
            }
            let created = try await send(port: app.port, "POST", "/d/x/items", json: #"{"label":"one"}"#)
            #expect(created.status == 201)
            #expect(created.header("Location") == "/d/x/items/10000")
            _ = try await send(port: app.port, "POST", "/d/y/items", json: #"{"label":"in y"}"#)
            let live = try await offPool { try underBase.readEvents(1) }
            #expect(live.first?["data"]?.contains(#""image_url":"/d/x/items/10000/image""#) == true)
            let beside = try await offPool { try plain.readEvents(1) }
            #expect(beside.first?["data"]?.contains(#""image_url":"/items/10000/image""#) == true)
            let inY = try await offPool { try other.readEvents(1) }
            #expect(inY.first?["data"]?.contains(#""label":"in y","#) == true)
            #expect(inY.first?["data"]?.contains(#""image_url":"/d/y/items/10000/image""#) == true)
            let again = try RawHTTPConnection(port: app.port)
            try again.request("GET", "/d/x/items/events", headers: ["Last-Event-ID: 0"])
            _ = try await offPool { try again.readStreamHead() }
            let replayed = try await offPool { try again.readEvents(1) }
            #expect(replayed.first?["id"] == "1")
            #expect(replayed.first?["data"]?.contains(#""image_url":"/d/x/items/10000/image""#) == true)
        }
    }

    @Test("an upload under the base may be as large as one without it (the head scanner's upload limit)")
    func largeUpload() async throws {
        let file = try EndToEndUploadTests.noisePNG(width: 200, height: 200)  // about 120 kB: past the 64 KiB limit
        #expect(file.count > 65_536)
        try await withServer { app in
            let stored = try await EndToEndUploadTests.put(port: app.port, "/d/x/items/4/image", file)
            #expect(stored.status == 201, "\(stored.text)")
            #expect(stored.header("Location") == "/d/x/items/4/image")
            let served = try await fetch(port: app.port, "/items/4/image.png", headers: ["X-Dataset: x"])
            #expect(served.body == file)
        }
    }

    @Test("the app's page is served under the base, its own files relative to it; the bare base redirects to it")
    func appPage() async throws {
        try await withServer { app in
            let page = try await fetch(port: app.port, "/d/run-42/")
            #expect(page.status == 200)
            #expect(page.header("Content-Type")?.hasPrefix("text/html") == true)
            #expect(page.text.contains(#"src="app/app.js""#) && !page.text.contains(#"="/app/"#))
            #expect(try await fetch(port: app.port, "/d/run-42/app/app.js").status == 200)
            let bare = try await fetch(port: app.port, "/d/run-42")
            #expect(bare.status == 308)
            #expect(bare.header("Location") == "/d/run-42/")
        }
    }
}
