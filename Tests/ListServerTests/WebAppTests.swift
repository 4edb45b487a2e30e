import Foundation
import ListDomain
import Testing

@testable import ListServer

/// The browser app at `/`: the compiled-in copy is `Web/` exactly, each file is served with its type, tag and
/// policy, nothing outside the table is reachable, and every file the page loads exists. The app itself is tested in
/// a real browser by scripts/browser-test.sh.
@Suite("Web app: the files and how they are served")
struct WebAppTests {
    let router = RouterFixture.router()

    /// `Web/` in the repository.
    static let webFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Web")

    @Test("the compiled-in files are Web/ byte for byte (else run scripts/openapi-embed.sh)")
    func embeddedCopyIsCurrent() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.webFolder.path)
            .filter { name in [".html", ".css", ".js"].contains { name.hasSuffix($0) } }
        #expect(Set(names) == Set(WebAssets.files.keys))
        for name in names {
            let text = try String(contentsOf: Self.webFolder.appendingPathComponent(name), encoding: .utf8)
            #expect(WebAssets.files[name]?.text == text, "\(name)")
        }
    }

    @Test("/ is the page; /app/<file> each file, with its type, a strong ETag, nosniff and the policy; 304 on a match")
    func served() throws {
        let page = router.respond("/")
        #expect(page.status == 200)
        #expect(page.headers["Content-Type"] == "text/html; charset=utf-8")
        #expect(page.headers["Content-Security-Policy"] == Router.contentSecurityPolicy)
        #expect(page.headers["X-Content-Type-Options"] == "nosniff")
        #expect(page.text.contains("<script type=\"module\" src=\"app/app.js\"></script>"))
        let types = ["app.js": "text/javascript; charset=utf-8", "app.css": "text/css; charset=utf-8"]
        for (name, type) in types {
            let file = router.respond("/app/" + name)
            #expect(file.status == 200)
            #expect(file.headers["Content-Type"] == type)
            #expect(file.body == Array(try #require(WebAssets.files[name]).text.utf8))
            let tag = try #require(file.headers["ETag"])
            #expect(tag.hasPrefix("\"w-") && tag.count == 20)
            let again = router.respond("/app/" + name, headers: ["If-None-Match": "W/" + tag])
            #expect(again.status == 304 && again.body.isEmpty && again.headers["Content-Type"] == nil)
            #expect(again.headers["ETag"] == tag)
            #expect(router.respond("/app/" + name, headers: ["If-None-Match": "\"w-0000000000000000\""]).status == 200)
        }
        #expect(router.respond("/app/index.html").text == page.text)
    }

    @Test(
        "nothing but the table's files: traversal, encoded slashes and NUL, empty and nested names are 404 or 400",
        arguments: [
            ("/app/..%2fPackage.swift", 404), ("/app/%2e%2e%2fopenapi.yaml", 404), ("/app/..", 404),
            ("/app/", 404), ("/app/a/b", 404), ("/app/%2Fetc%2Fpasswd", 404), ("/app/app.js%00.css", 400),
            ("/app/APP.JS", 404), ("//etc/passwd", 404), ("/app/app.js/", 404), ("/index.html", 404),
            ("/app/%zz", 400),
        ])
    func onlyTheTable(target: String, status: Int) {
        let response = router.respond(target)
        #expect(response.status == status, "\(target)")
        #expect(response.headers["Content-Type"] == "application/problem+json", "\(target)")
    }

    @Test("every file the page and the modules load is served")
    func referencesResolve() throws {
        var referenced: Set<String> = []
        let page = try #require(WebAssets.files["index.html"]).text
        for match in page.matches(of: /(?:src|href)="app\/([^"]+)"/) { referenced.insert(String(match.output.1)) }
        for (name, asset) in WebAssets.files where name.hasSuffix(".js") {
            for match in asset.text.matches(of: /from "\.\/([^"]+)"/) { referenced.insert(String(match.output.1)) }
        }
        #expect(referenced.isSuperset(of: ["app.js", "app.css", "api.js", "list.js"]))
        for name in referenced {
            #expect(router.respond("/app/" + name).status == 200, "\(name)")
        }
    }

    @Test("?dataset= on /items/events names the dataset for EventSource; malformed or contradicting it is 400")
    func eventStreamDataset() {
        guard case .stream(let stream) = router.route(HTTPRequest(method: .get, target: "/items/events?dataset=ui-7"))
        else {
            Issue.record("no stream")
            return
        }
        #expect(stream.list == "ui-7")
        let bad = router.respond("/items/events?dataset=no%20spaces")
        #expect(bad.status == 400 && bad.jsonObject?["parameter"] as? String == "dataset")
        let both = router.respond("/items/events?dataset=a", headers: ["X-Dataset": "b"])
        #expect(both.status == 400)
        guard
            case .stream(let same) = router.route(
                HTTPRequest(method: .get, target: "/items/events?dataset=a", headers: ["X-Dataset": "a"]))
        else {
            Issue.record("no stream for an agreeing header and parameter")
            return
        }
        #expect(same.list == "a")
    }
}
