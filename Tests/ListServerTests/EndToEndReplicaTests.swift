import Foundation
import ListDomain
import Testing

@testable import ListServer

/// Two servers on one PostgreSQL database, as replicas behind a load balancer: what one is sent the other serves,
/// ids are never handed out twice, a key claimed on one is replayed by the other, a reset through one resets
/// both, and the change feed of each carries every change once, in one order. Needs the database
/// `scripts/test.sh` starts (see ``PostgresStoreTests``).
@Suite(
    "End to end: replicas sharing PostgreSQL",
    .enabled(
        if: PostgresTestDatabase.url != nil,
        "needs LISTSERVER_TEST_POSTGRES_URL; scripts/test.sh starts a PostgreSQL and sets it"))
struct EndToEndReplicaTests {
    /// Runs `body` with two servers on one fresh schema.
    func withReplicas(
        configure: @escaping (inout Settings) -> Void = { _ in },
        _ body: (Application, Application) async throws -> Void
    ) async throws {
        let url = try EndToEndPostgresTests.freshURL()
        let setUp: (inout Settings) -> Void = { settings in
            settings.dataURL = url
            configure(&settings)
        }
        try await withServer(configure: setUp) { first in
            try await withServer(configure: setUp) { second in
                try await body(first, second)
            }
        }
    }

    @Test("a message sent, edited and read through one replica is served by the other; message ids are never shared")
    func chatWritesReachTheOtherReplica() async throws {
        try await withReplicas { a, b in
            let sent = try await send(port: a.port, "POST", "/conversations/5/messages", json: #"{"text":"from a"}"#)
            #expect(sent.status == 201)
            let id = try #require(sent.jsonObject()["id"] as? Int)
            let seen = try await waitUntil("replica B to serve message \(id)", timeout: .seconds(5)) {
                try await fetch(port: b.port, "/conversations/5/messages/\(id)").status
            } isDone: {
                $0 == 200
            }
            #expect(seen == 200)
            // B's next message follows A's: B caught up before it wrote.
            let fromB = try await send(port: b.port, "POST", "/conversations/5/messages", json: #"{"text":"from b"}"#)
            #expect(try fromB.jsonObject()["id"] as? Int == id + 1)
            let edited = try await send(
                port: b.port, "PATCH", "/conversations/5/messages/\(id)", json: #"{"text":"edited on b"}"#)
            #expect(edited.status == 200)
            let read = try await send(
                port: b.port, "POST", "/conversations/5/read", json: #"{"up_to":\#(id - 40)}"#,
                headers: ["X-Client-Id: c"])
            #expect(read.status == 200)
            let onA = try await waitUntil("replica A to serve the edit", timeout: .seconds(5)) {
                try await fetch(port: a.port, "/conversations/5/messages/\(id)").jsonObject()["text"] as? String
            } isDone: {
                $0 == "edited on b"
            }
            #expect(onA == "edited on b")
            let unread = try await waitUntil("replica A to know the read marker", timeout: .seconds(5)) {
                try await fetch(port: a.port, "/conversations/5", headers: ["X-Client-Id: c"]).jsonObject()["unread"]
                    as? Int
            } isDone: {
                $0 == 39
            }
            #expect(unread == 39, "the generated messages after the marker (no more than 30 unread without one)")
        }
    }

    @Test("a write through one replica is served by the other within moments, and ids are never shared")
    func writesReachTheOtherReplica() async throws {
        try await withReplicas { a, b in
            let created = try await send(port: a.port, "POST", "/items", json: #"{"label":"from a"}"#)
            #expect(created.header("Location") == "/items/10000")
            let seen = try await waitUntil("replica B to serve item 10000", timeout: .seconds(5)) {
                try await fetch(port: b.port, "/items/10000").status
            } isDone: {
                $0 == 200
            }
            #expect(seen == 200)
            #expect(try await fetch(port: b.port, "/items/10000").jsonObject()["label"] as? String == "from a")

            // Both replicas take writes at once: every id is new, and both end up with the same list.
            let locations = try await withThrowingTaskGroup(of: String?.self) { group in
                for index in 0..<24 {
                    let port = index.isMultiple(of: 2) ? a.port : b.port
                    group.addTask {
                        try await send(port: port, "POST", "/items", json: #"{"label":"n\#(index)"}"#)
                            .header("Location")
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(Set(locations.compactMap { $0 }).count == 24)
            #expect(!locations.contains("/items/10000"))
            for port in [a.port, b.port] {
                try await waitUntil("replica on \(port) to count 10025 items", timeout: .seconds(5)) {
                    try await fetch(port: port, "/items?limit=1").header("X-Total-Count")
                } isDone: {
                    $0 == "10025"
                }
            }
            let patched = try await send(port: b.port, "PATCH", "/items/10000", json: #"{"label":"edited on b"}"#)
            #expect(patched.status == 200)
            try await waitUntil("replica A to see B's edit", timeout: .seconds(5)) {
                try await fetch(port: a.port, "/items/10000").jsonObject()["label"] as? String
            } isDone: {
                $0 == "edited on b"
            }
            #expect(try await send(port: a.port, "DELETE", "/items/3", contentType: nil).status == 204)
            try await waitUntil("replica B to lose item 3", timeout: .seconds(5)) {
                try await fetch(port: b.port, "/items/3").status
            } isDone: {
                $0 == 404
            }
        }
    }

    @Test("an Idempotency-Key used on one replica is replayed by the other; at once on both, one item is made")
    func keysAreShared() async throws {
        try await withReplicas { a, b in
            let first = try await send(
                port: a.port, "POST", "/items", json: #"{"label":"once"}"#, headers: ["Idempotency-Key: k-1"])
            #expect(first.status == 201)
            let retry = try await send(
                port: b.port, "POST", "/items", json: #"{"label":"once"}"#, headers: ["Idempotency-Key: k-1"])
            #expect(retry.status == 201)
            #expect(retry.header("Idempotent-Replayed") == "true")
            #expect(retry.header("Location") == first.header("Location"))

            let racing = try await withThrowingTaskGroup(of: RawHTTPConnection.Response.self) { group in
                for port in [a.port, b.port, a.port, b.port] {
                    group.addTask {
                        try await send(
                            port: port, "POST", "/items", json: #"{"label":"race"}"#, headers: ["Idempotency-Key: k-2"])
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(racing.allSatisfy { $0.status == 201 })
            #expect(Set(racing.compactMap { $0.header("Location") }).count == 1)
            #expect(racing.filter { $0.header("Idempotent-Replayed") == "true" }.count == 3)
            let total = try await fetch(port: b.port, "/items?limit=1").header("X-Total-Count")
            #expect(total == "10002")
        }
    }

    @Test("a reset through one replica resets the other; each replica's feed has every change once, in order")
    func resetAndFeedsAgree() async throws {
        try await withReplicas { a, b in
            _ = try await send(port: a.port, "POST", "/items", json: #"{"label":"one"}"#)
            _ = try await send(port: b.port, "POST", "/items", json: #"{"label":"two"}"#)
            _ = try await send(port: a.port, "DELETE", "/items/5", contentType: nil)
            let reset = try await send(port: b.port, "POST", "/admin/reset", contentType: nil)
            #expect(reset.status == 200)
            _ = try await send(port: a.port, "POST", "/items", json: #"{"label":"after"}"#)
            for port in [a.port, b.port] {
                let page = try await waitUntil("replica on \(port) to see the reset and the write after it") {
                    try await fetch(port: port, "/items?limit=1").jsonObject()
                } isDone: {
                    ($0["version"] as? Int) == 2 && ($0["total"] as? Int) == 10001
                }
                #expect(page["version"] as? Int == 2)
            }
            var feeds: [[String]] = []
            for port in [a.port, b.port] {
                let feed = try await fetch(port: port, "/items/changes?after=0&limit=100").jsonObject()
                let changes = feed["changes"] as? [[String: Any]] ?? []
                feeds.append(changes.map { "\($0["sequence"] ?? "?") \($0["kind"] ?? "?")" })
            }
            #expect(feeds[0] == ["1 created", "2 created", "3 deleted", "4 reset", "5 created"])
            #expect(feeds[0] == feeds[1])
            #expect(try await fetch(port: b.port, "/items/10000").jsonObject()["label"] as? String == "after")
        }
    }

    @Test("a profile set through one replica applies on the other within moments; cleared there, gone here")
    func profilesShared() async throws {
        try await withReplicas { a, b in
            let body = #"{"outage":{"for_ms":60000}}"#
            #expect(try await send(port: a.port, "PUT", "/admin/datasets/shared/profile", json: body).status == 200)
            let outage = try await waitUntil("replica b to set the profile a stored") {
                try await fetch(port: b.port, "/d/shared/items?limit=1").status
            } isDone: {
                $0 == 503
            }
            #expect(outage == 503)
            let state = try await fetch(port: b.port, "/admin/datasets/shared/profile").jsonObject()
            #expect((state["outage"] as? [String: Any])?["active"] as? Bool == true)
            #expect(
                try await send(port: a.port, "DELETE", "/admin/datasets/shared/profile", contentType: nil).status == 204
            )
            _ = try await waitUntil("replica b to clear it") {
                try await fetch(port: b.port, "/d/shared/items?limit=1").status
            } isDone: {
                $0 == 200
            }
            // Set again through b, then the dataset dropped through a: gone on both.
            #expect(try await send(port: b.port, "PUT", "/admin/datasets/shared/profile", json: body).status == 200)
            #expect(try await send(port: a.port, "DELETE", "/admin/datasets/shared", contentType: nil).status == 204)
            for port in [a.port, b.port] {
                _ = try await waitUntil("replica on \(port) to drop the profile with the dataset") {
                    try await fetch(port: port, "/d/shared/items?limit=1").status
                } isDone: {
                    $0 == 200
                }
            }
        }
    }

    @Test("an unused profile expires on both replicas; one met only through the other replica stays on both")
    func idleProfilesExpireAcrossReplicas() async throws {
        // data.dataset_ttl_s 3: a sweep every second, a profile goes after 4 s unmet.
        try await withReplicas(configure: { $0.datasetTTLSeconds = 3 }) { a, b in
            let body = #"{"latency":{"list":{"fixed_ms":1}}}"#
            for name in ["idle", "busy"] {
                #expect(try await EndToEndProfileTests.putProfile(port: a.port, name, body).status == 200)
            }
            func hasProfile(_ port: Int, _ name: String) async throws -> Bool {
                try await fetch(port: port, "/admin/datasets/\(name)/profile").jsonObject()["latency"] != nil
            }
            // Only b's clients meet "busy"; a sees none of them, and must not expire it.
            _ = try await waitUntil("idle to go on both", timeout: .seconds(12), every: .milliseconds(200)) {
                _ = try await fetch(port: b.port, "/d/busy/items?limit=1")
                return [try await hasProfile(a.port, "idle"), try await hasProfile(b.port, "idle")]
            } isDone: {
                $0 == [false, false]
            }
            let start = ContinuousClock.now
            while ContinuousClock.now - start < .seconds(5) {  // more than the 4 s a profile may sit unmet
                _ = try await fetch(port: b.port, "/d/busy/items?limit=1")
                try await Task.sleep(for: .milliseconds(200))
            }
            #expect(try await hasProfile(a.port, "busy"), "replica a expired a profile b's clients use")
            #expect(try await hasProfile(b.port, "busy"))
        }
    }

    @Test("a token one replica issued lets a client in on the other; a revoke through the other refuses it on both")
    func tokensShared() async throws {
        try await withReplicas { a, b in
            let body = #"{"auth":{"token_ttl_s":600}}"#
            #expect(try await send(port: a.port, "PUT", "/admin/datasets/signed/profile", json: body).status == 200)
            _ = try await waitUntil("replica b to set the profile a stored") {
                try await fetch(port: b.port, "/d/signed/items?limit=1").status
            } isDone: {
                $0 == 401
            }
            let issued = try await send(port: a.port, "POST", "/d/signed/auth/token", json: "{}").jsonObject()
            let token = try #require(issued["access_token"] as? String)
            let bearer = ["Authorization: Bearer \(token)"]
            // Nothing about the token went through the store: b checks a's signature with the key they share.
            #expect(try await fetch(port: b.port, "/d/signed/items?limit=1", headers: bearer).status == 200)
            #expect(try await fetch(port: a.port, "/d/signed/items?limit=1", headers: bearer).status == 200)
            #expect(try await send(port: b.port, "POST", "/d/signed/auth/revoke", contentType: nil).status == 204)
            #expect(try await fetch(port: b.port, "/d/signed/items?limit=1", headers: bearer).status == 401)
            let refused = try await waitUntil("replica a to hear of the revoke") {
                try await fetch(port: a.port, "/d/signed/items?limit=1", headers: bearer)
            } isDone: {
                $0.status == 401
            }
            #expect(refused.header("WWW-Authenticate")?.contains("invalid_token") == true)
            // A token issued after the revoke works on both again.
            let again = try await send(port: a.port, "POST", "/d/signed/auth/token", json: "{}").jsonObject()
            let fresh = try #require(again["access_token"] as? String)
            for port in [a.port, b.port] {
                #expect(
                    try await fetch(port: port, "/d/signed/items?limit=1", headers: ["Authorization: Bearer \(fresh)"])
                        .status == 200)
            }
        }
    }

    @Test("an image uploaded through one replica is served by the other, byte for byte; deleted there, gone here")
    func uploadsAreShared() async throws {
        try await withReplicas { a, b in
            let file = try EndToEndUploadTests.noisePNG(width: 40, height: 30)
            let stored = try await EndToEndUploadTests.put(port: a.port, "/items/5/image", file)
            #expect(stored.status == 201)
            let served = try await waitUntil("replica B to serve the upload", timeout: .seconds(5)) {
                // At the upload's own size, which serves its stored bytes; the generated image B serves before it
                // sees the upload is small too (a photo at item 5's own size takes seconds in a debug build).
                try await fetch(port: b.port, "/items/5/image.png?w=40&h=30")
            } isDone: {
                Array($0.body) == file
            }
            #expect(served.header("ETag") == stored.header("ETag"))
            #expect(try await fetch(port: b.port, "/items/5").jsonObject()["width"] as? Int == 40)
            #expect(try await send(port: b.port, "DELETE", "/items/5/image", contentType: nil).status == 204)
            try await waitUntil("replica A to serve the generated image again", timeout: .seconds(5)) {
                try await fetch(port: a.port, "/items/5").jsonObject()["width"] as? Int
            } isDone: {
                $0 != 40
            }
            #expect(Array(try await fetch(port: a.port, "/items/5/image.png?w=40&h=30").body) != file)
        }
    }

    @Test("fail_first counts a client's attempts across replicas; a failed write is not written; a reset clears")
    func failFirstIsShared() async throws {
        try await withReplicas { a, b in
            let client = ["X-Client-Id: retrying-app"]
            var statuses: [Int] = []
            for port in [a.port, b.port, a.port, b.port, a.port] {
                statuses.append(try await fetch(port: port, "/items/1?fail_first=3", headers: client).status)
            }
            #expect(statuses == [503, 503, 503, 200, 200])
            // Another client has its own count.
            #expect(
                try await fetch(port: b.port, "/items/1?fail_first=3", headers: ["X-Client-Id: other"]).status == 503)

            let refused = try await send(
                port: a.port, "POST", "/items?fail_first=1", json: #"{"label":"x"}"#, headers: client)
            #expect(refused.status == 503)
            let written = try await send(
                port: b.port, "POST", "/items?fail_first=1", json: #"{"label":"x"}"#, headers: client)
            #expect(written.status == 201)
            #expect(written.header("Location") == "/items/10000")  // the refused attempt wrote nothing

            #expect(try await send(port: b.port, "POST", "/admin/reset", contentType: nil).status == 200)
            #expect(try await fetch(port: a.port, "/items/1?fail_first=3", headers: client).status == 503)
        }
    }

    /// Waits until the default list of the server on `port` has grown past its 10,000 generated items.
    static func waitToGrow(_ port: Int, _ condition: String) async throws {
        try await waitUntil(condition) {
            try await fetch(port: port, "/items?limit=1").header("X-Total-Count")
        } isDone: {
            (Int($0 ?? "") ?? 0) > 10_000
        }
    }

    @Test("servers of two schemas in one database each grow their own list (the growth lock is per schema)")
    func growthLockPerSchema() async throws {
        // A server of another schema holds its growth lock throughout; this one's list must grow all the same.
        let other = try EndToEndPostgresTests.freshURL()
        try await withServer(configure: {
            $0.dataURL = other; $0.growEveryMs = 100
        }) { holder in
            try await Self.waitToGrow(holder.port, "the other schema's list to grow")
            let url = try EndToEndPostgresTests.freshURL()
            try await withServer(configure: {
                $0.dataURL = url; $0.growEveryMs = 100
            }) { server in
                try await Self.waitToGrow(server.port, "this schema's list to grow beside it")
            }
        }
    }

    @Test("with items.grow_every_ms, one replica grows the list, not each of them")
    func oneReplicaGrows() async throws {
        let started = ContinuousClock.now
        try await withReplicas(configure: { $0.growEveryMs = 100 }) { a, b in
            // Once one replica holds the growth lock (its listener takes it after connecting), then a while more.
            try await Self.waitToGrow(a.port, "the list to grow")
            try await Task.sleep(for: .milliseconds(1500))
            let count = try await waitUntil("both replicas to agree on the count") {
                (
                    try await fetch(port: a.port, "/items?limit=1").header("X-Total-Count"),
                    try await fetch(port: b.port, "/items?limit=1").header("X-Total-Count")
                )
            } isDone: {
                $0.0 == $0.1
            }
            let grown = (Int(count.0 ?? "") ?? 0) - 10_000
            let ticks = Int((ContinuousClock.now - started) / .milliseconds(100))
            // Both growing would add about twice the ticks since the start.
            #expect(grown <= ticks + 1, "\(grown) items grown in \(ticks) ticks")
        }
    }

    @Test("a long-poll on one replica is answered by a write through the other")
    func longPollHearsTheOtherReplica() async throws {
        try await withReplicas { a, b in
            async let waiting = fetch(port: b.port, "/items/changes?after=0&wait_ms=5000")
            try await Task.sleep(for: .milliseconds(200))
            let started = ContinuousClock.now
            _ = try await send(port: a.port, "POST", "/items", json: #"{"label":"live"}"#)
            let answer = try await waiting.jsonObject()
            let changes = answer["changes"] as? [[String: Any]] ?? []
            #expect(changes.count == 1)
            #expect((changes.first?["item"] as? [String: Any])?["label"] as? String == "live")
            #expect(ContinuousClock.now - started < .seconds(2))
        }
    }
}
