import Foundation
import ListDomain
import ListServer
import Testing

/// Start-up: every file the store cannot use stops it with one line that names the path and what is wrong.
extension SQLiteStoreTests {
    /// The error opening `path` throws, or nil (and a failed expectation) when it opens.
    func openError(
        _ path: String, readOnly: Bool = false, sourceLocation: SourceLocation = #_sourceLocation
    ) async -> SQLiteStoreError? {
        do throws(SQLiteStoreError) {
            let store = try await SQLiteStore.open(
                path: path, synchronous: .full, changesKept: 5, idempotencyTTL: .seconds(60), busyTimeout: .zero,
                readOnlyForTesting: readOnly)
            Issue.record("opened \(path)", sourceLocation: sourceLocation)
            await store.close()
            return nil
        } catch {
            #expect(
                error.description.hasPrefix("cannot open the SQLite store at \(path): "), sourceLocation: sourceLocation
            )
            return error
        }
    }

    /// Creates a store at `path` with one list in it and closes it.
    func makeStore(at path: String) async throws {
        let store = try await open(path)
        try await store.commit(Conformance.batch("a", Conformance.effects(header: Conformance.header())))
        await store.close()
    }

    @Test("a schema version newer than this build is refused, naming the path and both versions")
    func newerSchema() async throws {
        try await makeStore(at: path)
        let raw = try SQLiteRawConnection(path: path)
        try raw.execute("PRAGMA user_version = 99")
        raw.close()
        let error = try #require(await openError(path))
        #expect(error.problem.contains("schema version is 99"))
        #expect(error.problem.contains("knows (\(SQLiteStore.schemaVersion))"))
    }

    @Test("a file that is not a database is refused")
    func notADatabase() async throws {
        try FileManager.default.createDirectory(atPath: temporary.url.path, withIntermediateDirectories: true)
        let garbage = temporary.url.appendingPathComponent("garbage.sqlite").path
        try Data(String(repeating: "not a database, just text\n", count: 200).utf8).write(
            to: URL(fileURLWithPath: garbage))
        let error = try #require(await openError(garbage))
        #expect(error.problem.contains("not an SQLite database"))
        #expect(error.problem.contains("SQLITE_NOTADB"))
    }

    @Test("a damaged file is refused at start (PRAGMA quick_check or SQLITE_CORRUPT)")
    func damagedFile() async throws {
        let store = try await open()
        var written: [UInt64: WrittenItem] = [:]
        for id in UInt64(0)..<2_000 { written[id] = Conformance.everyField }
        try await store.commit(
            Conformance.batch("a", Conformance.effects(header: Conformance.header(), written: written)))
        await store.close()
        // Overwrite the middle of the file (pages of the items table), keeping its header intact.
        let file = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try file.seek(toOffset: 8 * 4096)
        try file.write(contentsOf: Data(repeating: 0x55, count: 4 * 4096))
        try file.close()
        let error = try #require(await openError(path))
        #expect(error.problem.contains("quick_check") || error.problem.contains("corrupt"), "\(error)")
    }

    @Test("a folder where the file should be is refused")
    func pathIsAFolder() async throws {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        let error = try #require(await openError(path))
        #expect(error.problem.contains("the path is a folder"))
    }

    @Test("a file where the folder should be is refused")
    func folderIsAFile() async throws {
        try FileManager.default.createDirectory(atPath: temporary.url.path, withIntermediateDirectories: true)
        let file = temporary.url.appendingPathComponent("plain-file")
        try Data("x".utf8).write(to: file)
        let path = file.appendingPathComponent("lists.sqlite").path
        let error = try #require(await openError(path))
        #expect(error.problem.contains("cannot create its folder \(file.path)"))
    }

    @Test(
        "an unreadable file is refused at start (not as root, whom permissions do not stop)",
        .enabled(if: geteuid() != 0))
    func unreadableFile() async throws {
        try await makeStore(at: path)
        #expect(chmod(path, 0) == 0)
        defer { chmod(path, 0o644) }
        let error = try #require(await openError(path))
        #expect(error.problem.contains("cannot open the file (can it be read and written"))
    }

    @Test("a read-only folder is refused at start, before any write")
    func readOnlyFolder() async throws {
        let folder = temporary.url.appendingPathComponent("locked").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        guard let protection = ReadOnlyProtection(folder) else { return }
        defer { protection.remove() }
        let error = try #require(await openError(folder + "/lists.sqlite"))
        #expect(error.problem.contains("cannot create the file (is its folder writable?)"))
    }

    @Test("an existing store in a folder that became read-only is refused at start")
    func existingStoreInReadOnlyFolder() async throws {
        try await makeStore(at: path)
        guard let protection = ReadOnlyProtection(URL(fileURLWithPath: path).deletingLastPathComponent().path)
        else { return }
        defer { protection.remove() }
        let error = try #require(await openError(path))
        #expect(error.problem.contains("can its folder take the -wal and -shm files?"), "\(error)")
    }

    @Test("a read-only file is refused at start, before any write")
    func readOnlyFile() async throws {
        try await makeStore(at: path)
        guard let protection = ReadOnlyProtection(path) else { return }
        defer { protection.remove() }
        let error = try #require(await openError(path))
        #expect(error.problem.contains("read-only"))
    }

    @Test("a file SQLite can only read is refused at start (the test hook: works as root without chattr too)")
    func readOnlyHook() async throws {
        try await makeStore(at: path)
        let error = try #require(await openError(path, readOnly: true))
        #expect(error.problem.contains("the file is read-only"))
    }
}

/// A file or folder made read-only for one test: `chmod` for an ordinary user; for root, whom permissions do not
/// stop, the immutable attribute (`chattr +i`, ext4 and most Linux file systems). Nil when neither is possible
/// (root without `chattr`, or a file system without the attribute); the test hook
/// (`SQLiteStore.open(…readOnlyForTesting: true)`) covers the read-only check then.
struct ReadOnlyProtection {
    let path: String
    let usesChattr: Bool

    init?(_ path: String) {
        self.path = path
        usesChattr = geteuid() == 0
        if usesChattr {
            guard Self.chattr("+i", path) else { return nil }
        } else {
            var isFolder: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: path, isDirectory: &isFolder)
            guard chmod(path, isFolder.boolValue ? 0o555 : 0o444) == 0 else { return nil }
        }
    }

    /// Makes the path writable again (so the temporary folder can be removed).
    func remove() {
        if usesChattr { _ = Self.chattr("-i", path) } else { _ = chmod(path, 0o755) }
    }

    private static func chattr(_ flag: String, _ path: String) -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/chattr")
        process.arguments = [flag, path]
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }
}
