import Foundation
import ListDomain
import Testing

@testable import ListServer

/// A server whose store is PostgreSQL (`data.url`), end to end: writes last across a restart, as on SQLite; the
/// URL's password never shows. Needs the database `scripts/test.sh` starts (see ``PostgresStoreTests``); each test
/// keeps its tables in a schema of its own, named in the URL's `options` as any user could.
@Suite(
    "End to end: PostgreSQL store",
    .enabled(
        if: PostgresTestDatabase.url != nil,
        "needs LISTSERVER_TEST_POSTGRES_URL; scripts/test.sh starts a PostgreSQL and sets it"))
struct EndToEndPostgresTests {
    /// The test database with `search_path` set to a new, empty schema of this test.
    static func freshURL() throws -> PostgresURL {
        let base = try #require(PostgresTestDatabase.url)
        let schema = "e2e_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        _ = try PostgresTestDatabase.scalar("CREATE SCHEMA \(schema)")
        let separator = base.value.contains("?") ? "&" : "?"
        return try #require(PostgresURL(base.value + separator + "options=-csearch_path%3D\(schema)"))
    }

    @Test("writes last: a server restarted on the same database has every acknowledged write, and its keys")
    func durableAcrossRestart() async throws {
        let url = try Self.freshURL()
        try await withServer(configure: { $0.dataURL = url }) { app throws in
            let created = try await send(
                port: app.port, "POST", "/items", json: #"{"label":"kept ✓ ünïcode"}"#,
                headers: ["Idempotency-Key: restart-1"])
            #expect(created.status == 201)
            #expect(try await send(port: app.port, "DELETE", "/items/0", contentType: nil).status == 204)
            #expect(try await send(port: app.port, "PATCH", "/items/2", json: #"{"label":"two"}"#).status == 200)
            let dataset = try await send(
                port: app.port, "POST", "/items", json: #"{"label":"mine"}"#, headers: ["X-Dataset: ui-1"])
            #expect(dataset.status == 201)
        }
        try await withServer(configure: { $0.dataURL = url }) { app in
            let kept = try await fetch(port: app.port, "/items/10000").jsonObject()
            #expect(kept["label"] as? String == "kept ✓ ünïcode")
            #expect(try await fetch(port: app.port, "/items/0").status == 404)
            #expect(try await fetch(port: app.port, "/items/2").jsonObject()["label"] as? String == "two")
            let mine = try await fetch(port: app.port, "/items/10000", headers: ["X-Dataset: ui-1"]).jsonObject()
            #expect(mine["label"] as? String == "mine")
            let retry = try await send(
                port: app.port, "POST", "/items", json: #"{"label":"kept ✓ ünïcode"}"#,
                headers: ["Idempotency-Key: restart-1"])
            #expect(retry.header("Idempotent-Replayed") == "true")
            let next = try await send(port: app.port, "POST", "/items", json: #"{"label":"next"}"#)
            #expect(next.header("Location") == "/items/10001")  // no id handed out twice
            let feed = try await fetch(port: app.port, "/items/changes?after=0").jsonObject()
            #expect((feed["changes"] as? [Any])?.count == 4)
        }
    }

    @Test("a database that cannot be reached fails the start with one line that names it without its password")
    func unreachableAtStart() async throws {
        let (status, output) = try await ListServerProcess.run(
            ["--port", "0", "--data-url", "postgres://app:hunter2@127.0.0.1:1/lists"], collecting: .standardError)
        #expect(status != 0)
        #expect(output.contains("data.url postgres://app:<set>@127.0.0.1:1/lists: "))
        #expect(!output.contains("hunter2"))
    }
}
