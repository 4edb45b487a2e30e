import Foundation
import ListDomain
import Testing

@testable import ListServer

/// The PostgreSQL store against a real server: the store-agnostic checklist the SQLite store passes, unchanged,
/// then what only this store has (migrations shared by replicas, a schema from the future, a password that never
/// shows, an unreachable server).
///
/// `scripts/test.sh` (the README's test command, and CI's) starts a throwaway PostgreSQL from Debian's
/// `postgresql` package and sets `LISTSERVER_TEST_POSTGRES_URL`; run alone, `swift test` skips this suite and
/// says why. Each test works in a schema of its own, so they run in parallel on one database.
@Suite(
    "Storage: PostgreSQL store",
    .enabled(
        if: PostgresTestDatabase.url != nil,
        "needs LISTSERVER_TEST_POSTGRES_URL; scripts/test.sh starts a PostgreSQL and sets it"))
struct PostgresStoreTests {
    typealias Conformance = ListStoreConformance

    /// This test's schema: empty at first, the same contents when opened again.
    let schema = "test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")

    func open(idempotencyTTL: Duration = .seconds(3600), poolSize: Int = 2) async throws -> PostgresStore {
        try await PostgresStore.open(
            url: try #require(PostgresTestDatabase.url), poolSize: poolSize, changesKept: Conformance.changesKept,
            idempotencyTTL: idempotencyTTL, schema: schema)
    }

    @Test("the profile notification the expiry writes in SQL is the one a server writes, and reads back")
    func profilePayloadInSQL() throws {
        let connection = try PostgresConnection(url: try #require(PostgresTestDatabase.url).value)
        let expression = PostgresNotification.profilePayloadSQL(column: "convert_to($1, 'UTF8')")
        for name in ["run-1", "é 🎉 \"x\" ' %", "Z"] {
            let payload = try connection.execute("SELECT " + expression, [.text(name)]).text(0, 0)
            #expect(payload == PostgresNotification.profilePayload(list: name), "\(name)")
            let read = try #require(PostgresNotification(payload: payload ?? ""))
            #expect(read.list == name && read.profile && read.sequence == nil)
        }
    }

    @Test("conformance", arguments: Conformance.Check.allCases)
    func conformance(check: Conformance.Check) async throws {
        try await Conformance(open: { try await open() }).run(check)
    }

    @Test("a batch that fails half-way leaves nothing behind, and the next one commits")
    func failedBatchLeavesNothing() async throws {
        let store = try await open()
        let first = Change(sequence: 1, event: .created(Conformance.item(1)))
        try await store.commit(
            Conformance.batch(
                "a",
                Conformance.effects(
                    header: Conformance.header(lastSequence: 1), written: [1: Conformance.labelOnly],
                    changes: [first])))
        let before = try await store.load()

        // Change 1 collides with the stored one after the written item, the deletion and the other list went in.
        var failing = Conformance.batch(
            "a",
            Conformance.effects(
                header: Conformance.header(version: 2, lastSequence: 2), written: [2: Conformance.everyField],
                deleted: [1], changes: [Change(sequence: 2, event: .deleted(1)), first]))
        failing.lists["b"] = Conformance.effects(header: Conformance.header(), written: [9: Conformance.labelOnly])
        let key = IdempotencyKey(list: "a", key: "k")
        failing.idempotency[key] = IdempotencyRecord(fingerprint: [1], answer: [2], createdAt: Conformance.now)
        let failure = await #expect(throws: StoreFailure.self) { try await store.commit(failing) }
        #expect(failure?.kind == .unavailable)
        #expect(failure?.message.contains("23505") == true)  // unique_violation

        #expect(try await store.load() == before)
        #expect(try await store.changes(of: "a", after: 0, limit: 10).changes == [first])
        #expect(try await store.idempotencyRecords([key], now: Conformance.now, maxAge: .seconds(60)).isEmpty)
        failing.lists["a"]?.changes.removeLast()
        try await store.commit(failing)
        #expect(try await store.load()["b"]?.written == [9: Conformance.labelOnly])
        await store.close()
    }

    @Test("replicas starting together migrate the schema once, and all of them serve it")
    func concurrentMigrations() async throws {
        let stores = try await withThrowingTaskGroup(of: PostgresStore.self) { group in
            for _ in 0..<4 { group.addTask { try await open(poolSize: 2) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        try await stores[0].commit(Conformance.batch("a", Conformance.effects(header: Conformance.header())))
        for store in stores {
            #expect(try await store.load()["a"]?.header == Conformance.header())
            await store.close()
        }
        let version = try PostgresTestDatabase.scalar("SELECT max(version) FROM \(schema).listserver_schema")
        #expect(version == String(PostgresStore.schemaVersion))
    }

    @Test("a database migrated by a newer ListServer is refused at start, naming both versions")
    func newerSchemaRefused() async throws {
        await (try open()).close()
        _ = try PostgresTestDatabase.scalar("UPDATE \(schema).listserver_schema SET version = 99")
        let error = await #expect(throws: PostgresStoreError.self) { try await open() }
        #expect(error?.problem.contains("schema version is 99") == true)
        #expect(error?.problem.contains("(\(PostgresStore.schemaVersion))") == true)
    }

    @Test("an unreachable server or a wrong password fails the start with a clear line, the password never in it")
    func unreachableServer() async throws {
        let url = try #require(PostgresURL("postgres://lists:s3cret-pw@127.0.0.1:1/lists?connect_timeout=2"))
        let error = await #expect(throws: PostgresStoreError.self) {
            try await PostgresStore.open(url: url, poolSize: 2, changesKept: 5, idempotencyTTL: .seconds(60))
        }
        let line = try #require(error?.description)
        #expect(line.hasPrefix("data.url postgres://lists:<set>@127.0.0.1:1/lists?connect_timeout=2: "))
        #expect(line.contains("Connection refused") || line.contains("connection"))
        #expect(!line.contains("s3cret"))

        let real = try #require(PostgresTestDatabase.url)
        let wrong = try #require(PostgresURL(real.value.replacingOccurrences(of: "://", with: "://nobody-here:pw99@")))
        let refused = await #expect(throws: PostgresStoreError.self) {
            try await PostgresStore.open(url: wrong, poolSize: 2, changesKept: 5, idempotencyTTL: .seconds(60))
        }
        #expect(refused?.description.contains("nobody-here") == true)
        #expect(refused?.description.contains("pw99") == false)
    }

    @Test("data.url shows without its password, in the user part and in the query")
    func redaction() throws {
        let cases: [(String, String)] = [
            ("postgres://app:pa@ss@db:5432/lists", "postgres://app:<set>@db:5432/lists"),
            ("postgresql://app@db/lists?sslmode=require", "postgresql://app@db/lists?sslmode=require"),
            (
                "postgres://db/lists?user=a&password=x&sslmode=disable",
                "postgres://db/lists?user=a&password=<set>&sslmode=disable"
            ),
            ("postgres://u:p@h", "postgres://u:<set>@h"),
        ]
        for (url, shown) in cases {
            #expect(try #require(PostgresURL(url)).redacted == shown)
        }
        #expect(PostgresURL("mysql://a@b/c") == nil)
        #expect(PostgresURL("postgres://") == nil)
        #expect(PostgresURL("/var/lib/lists.sqlite") == nil)
    }

    @Test("a schema name is quoted as one identifier, quotes doubled even when a combining mark follows them")
    func identifierQuoting() {
        #expect(PostgresSchema.quoted("lists") == "\"lists\"")
        #expect(PostgresSchema.quoted("a\"b") == "\"a\"\"b\"")
        #expect(PostgresSchema.quoted("x\"\u{301}; drop") == "\"x\"\"\u{301}; drop\"")
        let scalars = PostgresSchema.quoted("\"\u{301}").unicodeScalars.map(\.value)
        #expect(scalars == [0x22, 0x22, 0x22, 0x301, 0x22])
    }
}

/// The database `scripts/test.sh` started, and a way to run one statement in it with `psql`.
enum PostgresTestDatabase {
    static let url: PostgresURL? = ProcessInfo.processInfo.environment["LISTSERVER_TEST_POSTGRES_URL"].flatMap {
        PostgresURL($0)
    }

    /// Runs `sql` with `psql` and returns the first column of its first row (trimmed), or "" for none.
    static func scalar(_ sql: String) throws -> String {
        let url = try #require(url)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["psql", "-X", "-q", "-t", "-A", "-v", "ON_ERROR_STOP=1", "-d", url.value, "-c", sql]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "psql failed on: \(sql)")
        return String(decoding: data, as: UTF8.self).split(separator: "\n").first.map(String.init) ?? ""
    }
}
