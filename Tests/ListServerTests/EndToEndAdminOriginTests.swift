import Foundation
import Testing

@testable import ListServer

/// A page on another site, opened in the developer's browser, sends the admin requests a form or `fetch` can send
/// without a preflight: they must change nothing.
@Suite("End to end: admin endpoints refuse cross-site requests")
struct EndToEndAdminOriginTests {
    @Test("a text/plain POST /admin/reset and a DELETE from another origin are 403; the same from curl work")
    func crossSite() async throws {
        try await withServer { app in
            let port = app.port
            let created = try await send(
                port: port, "POST", "/items", json: #"{"label":"keep me"}"#, headers: ["X-Dataset: run-1"])
            #expect(created.status == 201)
            let evil = ["Origin: https://evil.example"]
            let reset = try await send(
                port: port, "POST", "/admin/reset", json: "{}", contentType: "text/plain", headers: evil)
            #expect(reset.status == 403)
            #expect(reset.header("Content-Type") == "application/problem+json")
            let navigation = try await send(
                port: port, "POST", "/admin/reset", json: "", contentType: "application/x-www-form-urlencoded",
                headers: ["Sec-Fetch-Site: cross-site"])
            #expect(navigation.status == 403)
            let drop = try await send(
                port: port, "DELETE", "/admin/datasets/run-1", contentType: nil, headers: evil)
            #expect(drop.status == 403)
            // Nothing changed: the dataset still has its item, the default list its version.
            let page = try await fetch(port: port, "/items?after=9999", headers: ["X-Dataset: run-1"]).jsonObject()
            #expect((page["items"] as? [Any])?.count == 1)
            #expect(try await fetch(port: port, "/items?limit=1").jsonObject()["version"] as? Int == 1)
            // The server's own page (its origin is what `Host` names: the helper sends `Host: 127.0.0.1`), and
            // clients that send no Origin, still get in.
            let own = try await send(
                port: port, "POST", "/admin/reset", json: "{}", headers: ["Origin: http://127.0.0.1"])
            #expect(own.status == 200)
            let curl = try await send(port: port, "DELETE", "/admin/datasets/run-1", contentType: nil)
            #expect(curl.status == 204)
        }
    }
}
