import ListDomain

/// The list store's tables on one PostgreSQL connection: committing here, reading in
/// `PostgresListTables+Reads.swift`.
///
/// One per ``PostgresPool`` thread, used only on it. The connection is made when a job first needs it and made
/// again after it broke (the server restarted, the network dropped): a job that finds no connection and cannot make
/// one fails `.unavailable` at once, and the next attempt waits out a backoff that doubles from 100 ms to 5 s, so
/// writes during an outage answer 503 quickly instead of each waiting for a connect timeout.
final class PostgresListTables {
    /// How the store was asked to connect and what it keeps.
    struct Options: Sendable {
        /// The database (``SettingKey/dataURL``).
        var url: PostgresURL
        /// The most changes kept per list (``SettingKey/changesKept``).
        var changesKept: Int
        /// How long idempotency records are kept before pruning may remove them.
        var idempotencyTTL: Duration
        /// A schema of its own, created when missing and put first on the search path: each test gets an empty
        /// store in one database. nil for the server (the database's own search path, usually `public`).
        var schema: String?
        /// Whether the database answered last: every connection of the store (and its listener) sets it.
        var reachability = PostgresReachability()
    }

    let options: Options
    private var connection: PostgresConnection?
    private var backoff: Duration = .zero
    private var nextAttempt: ContinuousClock.Instant?
    /// Commits since idempotency records were last pruned by this connection, and when that was.
    private var commitsSincePrune = 0
    private var lastPrune: Int64?
    /// Set by ``beginCommit(_:)`` until the commit or its abandonment: the transaction holding the lists' locks.
    var commitOpen = false
    /// `fail_first` attempts counted on this connection since it last pruned old counts.
    var attemptsSincePrune = 0
    /// The lists whose changes this connection has pruned once without a lower bound.
    private var prunedLists: Set<String> = []

    init(_ options: Options) {
        self.options = options
    }

    /// Set on every connection: a lock waited for more than 5 s (another replica's commit that hangs) fails the
    /// call; a transaction left idle for 10 s (a replica that stopped between its lock and its commit) is ended
    /// by PostgreSQL, and its locks with it.
    static let sessionSettings = "SET lock_timeout = '5s'; SET idle_in_transaction_session_timeout = '10s'"

    /// The connection, made now if there is none (or it broke); throws `.unavailable` during a backoff.
    func connected() throws(StoreFailure) -> PostgresConnection {
        if let connection, !connection.isBroken { return connection }
        connection = nil
        let clock = ContinuousClock()
        if let nextAttempt, clock.now < nextAttempt {
            throw StoreFailure(.unavailable, "PostgreSQL at \(options.url.redacted) is unreachable; retrying")
        }
        do throws(PostgresError) {
            let fresh = try PostgresConnection(url: options.url.value)
            if let schema = options.schema {
                let quoted = PostgresSchema.quoted(schema)
                do throws(PostgresError) {
                    try fresh.script("CREATE SCHEMA IF NOT EXISTS \(quoted)")
                } catch {
                    // IF NOT EXISTS does not hold against another connection creating it at the same moment.
                    guard error.sqlState == "23505" || error.sqlState == "42P06" else { throw error }
                }
                try fresh.script("SET search_path TO \(quoted)")
            }
            // No wait on another server's lock, and no transaction left open by a server that stopped answering,
            // may hold this one (or the others) for longer: its call fails, and the write answers 503.
            try fresh.script(Self.sessionSettings)
            connection = fresh
            options.reachability.set(true)
            backoff = .zero
            nextAttempt = nil
            return fresh
        } catch {
            options.reachability.set(false)
            backoff = min(max(backoff * 2, .milliseconds(100)), .seconds(5))
            nextAttempt = clock.now + backoff
            throw StoreFailure(.unavailable, "PostgreSQL at \(options.url.redacted): \(error.description)")
        }
    }

    /// Runs `body` on the connection; a PostgreSQL error becomes a ``StoreFailure`` (503, or 507 for a full disk),
    /// and an open transaction it left is rolled back so the connection serves the next job.
    ///
    /// - Parameter retrying: `body` may run twice (a read, or the start of a commit's transaction): when it finds
    ///   a connection made earlier gone (the database restarted since; libpq learns that only by using it), it
    ///   runs once more on a new one instead of failing the first job after every restart.
    func withConnection<T>(retrying: Bool = false, _ body: (PostgresConnection) throws(PostgresError) -> T)
        throws(StoreFailure) -> T
    {
        let reused = connection != nil
        let connection = try connected()
        do throws(PostgresError) {
            let result = try body(connection)
            options.reachability.set(true)
            return result
        } catch {
            if error.connectionLost {
                self.connection = nil
                if retrying && reused { return try withConnection(retrying: false, body) }
                options.reachability.set(false)
            } else if connection.inTransaction {
                try? connection.script("ROLLBACK")
            }
            throw error.storeFailure
        }
    }

    /// Makes `batch` durable in one transaction, or applies none of it: the same rows, in the same order, as
    /// ``SQLiteListTables/commit(_:)`` writes, each item row marked with the sequence number it was written at,
    /// and a notification per list for the other servers (sent by PostgreSQL when the transaction commits).
    ///
    /// The transaction is the one ``beginCommit(_:)`` opened when there was one: if it is gone (the connection
    /// broke), the locks went with it and nothing is written.
    func commit(_ batch: CommitBatch) throws(StoreFailure) {
        let prunesIdempotency =
            commitsSincePrune + 1 >= 1000 || lastPrune.map { batch.now.milliseconds - $0 >= 60_000 } ?? true
        let begun = commitOpen
        commitOpen = false
        var statements: [PostgresConnection.Statement] = begun ? [] : [.init("BEGIN")]
        var prunedFully: Set<String> = []
        for (name, effects) in batch.lists {
            appendStatements(of: effects, to: name, into: &statements, prunedFully: &prunedFully)
            if let header = effects.header, !effects.changes.isEmpty {
                statements.append(
                    .init(SQL.notify, [.text(PostgresNotification.payload(list: name, sequence: header.lastSequence))]))
            } else if effects.removesList {
                statements.append(.init(SQL.notify, [.text(PostgresNotification.payload(list: name, sequence: nil))]))
            }
            if effects.drop {  // its profile went with it
                statements.append(.init(SQL.notify, [.text(PostgresNotification.profilePayload(list: name))]))
            }
        }
        for (key, record) in batch.idempotency {
            statements.append(
                .init(
                    SQL.upsertIdempotency,
                    [
                        .utf8(key.list), .text(key.key), .bytea(record.fingerprint), .bytea(record.answer),
                        .bigint(record.createdAt.milliseconds),
                    ]))
        }
        statements.append(.init("COMMIT"))
        try withConnection { connection throws(PostgresError) in
            if begun && !connection.inTransaction {
                throw PostgresError("the commit's transaction ended before the commit (its locks with it)")
            }
            // One round trip for the whole batch.
            try connection.pipeline(statements)
            // Expired records of every list, after the commit and in a transaction of its own: inside the
            // group's, it would lock rows of lists this server holds no lock on (and could deadlock with another
            // server reusing expired keys there); a prune that fails is tried again at the next one due.
            if prunesIdempotency {
                let cutoff = batch.now.milliseconds - Int64(options.idempotencyTTL.wholeMilliseconds)
                _ = try? connection.execute(SQL.pruneIdempotency, [.bigint(cutoff)])
            }
        }
        prunedLists.formUnion(prunedFully)
        if prunesIdempotency {
            commitsSincePrune = 0
            lastPrune = batch.now.milliseconds
        } else {
            commitsSincePrune += 1
        }
    }

    /// One list's part of the transaction, in the order the SQLite store writes it.
    private func appendStatements(
        of effects: ListEffects, to name: String, into statements: inout [PostgresConnection.Statement],
        prunedFully: inout Set<String>
    ) {
        let list = PostgresValue.utf8(name)
        if effects.drop {
            for sql in SQL.drop { statements.append(.init(sql, [list])) }
        } else if effects.wipe {
            for sql in SQL.wipe { statements.append(.init(sql, [list])) }
        }
        let changedAt = PostgresValue.unsigned(effects.header?.lastSequence ?? 0)
        for (id, item) in effects.written {
            let fields = item.overrides
            statements.append(
                .init(
                    SQL.upsertItem,
                    [
                        list, .unsigned(id), .utf8(fields.label), .utf8(fields.author), .int(fields.width),
                        .int(fields.height), .int(fields.color.map { Int($0) }), .int(fields.likes),
                        .unsigned(item.revision), changedAt,
                    ]))
        }
        for id in effects.deleted {
            statements.append(.init(SQL.upsertDeletion, [list, .unsigned(id), changedAt]))
        }
        for (id, effect) in effects.images {
            switch effect {
            case .put(let image, let bytes):
                statements.append(
                    .init(
                        SQL.upsertImage,
                        [
                            list, .unsigned(id), .text(image.format.rawValue), .int(image.width),
                            .int(image.height), .int(image.byteCount), .bytea(image.digest.bigEndianBytes),
                            .unsigned(image.revision), .bytea(bytes), image.blurHash.map { .text($0) } ?? .null,
                        ]))
            case .remove:
                statements.append(.init(SQL.deleteImage, [list, .unsigned(id)]))
            }
        }
        for (key, message) in effects.messages {
            statements.append(
                .init(
                    SQL.upsertMessage,
                    [
                        list, .unsigned(key.conversation), .unsigned(key.id), .int(message.authorIndex),
                        .utf8(message.text), .bigint(message.sentAt), message.editedAt.map { .bigint($0) } ?? .null,
                        message.replyTo.map { .unsigned($0) } ?? .null, .int(message.deleted ? 1 : 0),
                        .unsigned(message.revision), changedAt,
                    ]))
        }
        for (key, marker) in effects.readMarkers {
            statements.append(
                .init(
                    SQL.upsertReadMarker,
                    [
                        list, .unsigned(key.conversation), .utf8(key.client), .unsigned(marker.upTo),
                        .unsigned(marker.revision), changedAt,
                    ]))
        }
        for change in effects.changes {
            if let chat = Self.chatColumns(of: change) {
                statements.append(.init(SQL.insertChatChange, [list] + chat))
                continue
            }
            let dropped: Bool
            if case .reset = change.event { dropped = effects.drop } else { dropped = false }
            statements.append(
                .init(
                    SQL.insertChange,
                    [list] + Self.columns(of: change) + [.int(dropped ? 1 : 0), Self.blurHash(of: change)]))
        }
        guard let header = effects.header else { return }
        statements.append(
            .init(
                SQL.upsertHeader,
                [
                    list, .unsigned(header.seed), .unsigned(header.baseCount), .unsigned(header.version),
                    .unsigned(header.nextID), .unsigned(header.lastSequence),
                ]))
        // Sequence numbers grow by one per change, so the newest `changesKept` are those above this. Each commit
        // removes the changes its own pushed out, a bounded range: `sequence <= cut` alone would have every
        // commit walk the index over all the rows earlier commits deleted and VACUUM has not yet removed (a list
        // past changes_kept got 5x slower to write within a minute, Benchmarks/postgres/run.sh). The first
        // commit of each list on this connection also takes whatever an earlier run (perhaps with a larger
        // changes_kept) left. The ranges meet only while every server keeps the same number: servers with
        // different data.changes_kept on one database leave some rows until one of them restarts.
        let kept = UInt64(max(options.changesKept, 0))
        if !effects.changes.isEmpty && header.lastSequence > kept {
            let cut = header.lastSequence - kept
            let pushedOut = UInt64(effects.changes.count)
            let from = prunedLists.contains(name) ? cut - min(cut, pushedOut) : 0
            prunedFully.insert(name)
            statements.append(.init(SQL.pruneChanges, [list, .unsigned(from), .unsigned(cut)]))
        }
    }

    /// Parameters 2… of ``SQL/insertChange``: the sequence, the kind, and the kind's columns (NULL for the other
    /// kinds').
    private static func columns(of change: Change) -> [PostgresValue] {
        let head: [PostgresValue] = [.unsigned(change.sequence), .text(change.event.kind)]
        let noItem = [PostgresValue](repeating: .null, count: 7)
        let noReset = [PostgresValue](repeating: .null, count: 3)
        switch change.event {
        case .created(let item), .updated(let item):
            let itemColumns: [PostgresValue] = [
                .unsigned(item.id), .utf8(item.label), .utf8(item.author), .int(item.width), .int(item.height),
                .utf8(item.color), .int(item.likes),
            ]
            return head + itemColumns + noReset
        case .deleted(let id):
            return head + [.unsigned(id)] + noItem.dropFirst() + noReset
        case .reset(let reset):
            return head + noItem + [.unsigned(reset.version), .unsigned(reset.seed), .unsigned(reset.count)]
        case .message, .read, .conversation:
            preconditionFailure("a chat change goes by insertChatChange")
        }
    }

    /// Parameters 2… of ``SQL/insertChatChange`` for a chat change; nil for another change.
    private static func chatColumns(of change: Change) -> [PostgresValue]? {
        let head: [PostgresValue] = [.unsigned(change.sequence), .text(change.event.kind)]
        switch change.event {
        case .message(let change):
            let message = change.message
            return head + [
                .unsigned(message.id), .unsigned(message.conversation), .int(message.authorIndex),
                .utf8(message.text), .bigint(message.sentAt), message.editedAt.map { .bigint($0) } ?? .null,
                message.replyTo.map { .unsigned($0) } ?? .null, .null,
            ]
        case .read(let read):
            return head + [
                .unsigned(read.upTo), .unsigned(read.key.conversation), .null, .null, .null, .null, .null,
                .utf8(read.key.client),
            ]
        case .conversation(let moved):  // item_id: its message count, sent_at: its last activity
            return head + [
                .unsigned(moved.messageCount), .unsigned(moved.id), .null, .null, .bigint(moved.updatedAt), .null,
                .null, .null,
            ]
        default:
            return nil
        }
    }

    /// The last parameter of ``SQL/insertChange``: the item's BlurHash, NULL for a change without an item.
    private static func blurHash(of change: Change) -> PostgresValue {
        switch change.event {
        case .created(let item), .updated(let item): item.blurHash.map { .text($0) } ?? .null
        default: .null
        }
    }

    /// Closes the connection (the pool's thread is ending).
    func close() {
        connection = nil
    }

    /// The commit path's SQL.
    enum SQL {
        static let drop = [
            "DELETE FROM items WHERE list = $1", "DELETE FROM changes WHERE list = $1",
            "DELETE FROM idempotency WHERE list = $1", "DELETE FROM images WHERE list = $1",
            "DELETE FROM fault_attempts WHERE list = $1", "DELETE FROM profiles WHERE list = $1",
            "DELETE FROM messages WHERE list = $1", "DELETE FROM read_markers WHERE list = $1",
            "DELETE FROM lists WHERE name = $1",
        ]
        static let wipe = [
            "DELETE FROM items WHERE list = $1", "DELETE FROM idempotency WHERE list = $1",
            "DELETE FROM images WHERE list = $1", "DELETE FROM fault_attempts WHERE list = $1",
            "DELETE FROM messages WHERE list = $1", "DELETE FROM read_markers WHERE list = $1",
        ]
        static let upsertMessage = """
            INSERT INTO messages (list, conversation, id, author_id, text, sent_at, edited_at, reply_to, deleted,
                revision, changed_at)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9 <> 0, $10, $11)
            ON CONFLICT (list, conversation, id) DO UPDATE SET author_id = excluded.author_id, text = excluded.text,
                sent_at = excluded.sent_at, edited_at = excluded.edited_at, reply_to = excluded.reply_to,
                deleted = excluded.deleted, revision = excluded.revision, changed_at = excluded.changed_at
            """
        static let upsertReadMarker = """
            INSERT INTO read_markers (list, conversation, client, up_to, revision, changed_at)
            VALUES ($1, $2, $3, $4, $5, $6)
            ON CONFLICT (list, conversation, client) DO UPDATE SET up_to = excluded.up_to,
                revision = excluded.revision, changed_at = excluded.changed_at
            """
        static let insertChatChange = """
            INSERT INTO changes (list, sequence, kind, item_id, conversation, author_id, text, sent_at, edited_at,
                reply_to, client)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
            """
        static let upsertImage = """
            INSERT INTO images (list, id, format, width, height, byte_count, digest, revision, bytes, blur_hash)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
            ON CONFLICT (list, id) DO UPDATE SET format = excluded.format, width = excluded.width,
                height = excluded.height, byte_count = excluded.byte_count, digest = excluded.digest,
                revision = excluded.revision, bytes = excluded.bytes, blur_hash = excluded.blur_hash
            """
        static let deleteImage = "DELETE FROM images WHERE list = $1 AND id = $2"
        static let upsertItem = """
            INSERT INTO items (list, id, label, author, width, height, color, likes, revision, deleted, changed_at)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, false, $10)
            ON CONFLICT (list, id) DO UPDATE SET label = excluded.label, author = excluded.author,
                width = excluded.width, height = excluded.height, color = excluded.color, likes = excluded.likes,
                revision = excluded.revision, deleted = false, changed_at = excluded.changed_at
            """
        static let upsertDeletion = """
            INSERT INTO items (list, id, label, author, width, height, color, likes, revision, deleted, changed_at)
            VALUES ($1, $2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, true, $3)
            ON CONFLICT (list, id) DO UPDATE SET label = NULL, author = NULL, width = NULL, height = NULL,
                color = NULL, likes = NULL, revision = NULL, deleted = true, changed_at = excluded.changed_at
            """
        static let insertChange = """
            INSERT INTO changes (list, sequence, kind, item_id, label, author, width, height, color, likes,
                version, seed, count, dropped, blur_hash)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14 <> 0, $15)
            """
        static let notify = "SELECT pg_notify(\(PostgresNotification.channel), $1)"
        static let upsertHeader = """
            INSERT INTO lists (name, seed, base_count, version, next_id, last_sequence)
            VALUES ($1, $2, $3, $4, $5, $6)
            ON CONFLICT (name) DO UPDATE SET seed = excluded.seed, base_count = excluded.base_count,
                version = excluded.version, next_id = excluded.next_id, last_sequence = excluded.last_sequence
            """
        static let pruneChanges = "DELETE FROM changes WHERE list = $1 AND sequence > $2 AND sequence <= $3"
        // A key whose record has expired but is not pruned yet may be used again.
        static let upsertIdempotency = """
            INSERT INTO idempotency (list, key, fingerprint, answer, created_at) VALUES ($1, $2, $3, $4, $5)
            ON CONFLICT (list, key) DO UPDATE SET fingerprint = excluded.fingerprint, answer = excluded.answer,
                created_at = excluded.created_at
            """
        static let pruneIdempotency = "DELETE FROM idempotency WHERE created_at <= $1"
    }
}
