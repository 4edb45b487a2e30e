import ListDomain

/// The commit path: one batch, one transaction.
///
/// Benchmarks/sqlite/inserts.c runs the same statements for a batch of POSTs (an item row and a change row per
/// write, one header upsert and one prune per list), and Benchmarks/sqlite/writes-server.c runs them behind a C
/// evhttp server: they are the C baselines the server's durable writes are measured against, so a change to these
/// statements belongs in all three files.
extension SQLiteListTables {
    /// Makes `batch` durable in one `BEGIN IMMEDIATE` … `COMMIT`, or applies none of it.
    ///
    /// For each list, in this order: drop (every row of the list in every table) or wipe (its items, images and
    /// chat writes), the written items, the deletions, the images stored and removed, the messages and read
    /// markers, the new changes, the header, and the pruning of changes beyond ``Options/changesKept``;
    /// then the batch's idempotency records, and every 1,000 commits or once a minute the pruning of records older
    /// than ``Options/idempotencyTTL``. On any failure the transaction is rolled back, and the error is `.full`
    /// for a full disk and `.unavailable` otherwise; the connection stays usable for the next batch.
    func commit(_ batch: CommitBatch) throws(StoreFailure) {
        let prunesIdempotency =
            commitsSincePrune + 1 >= 1000 || lastPrune.map { batch.now.milliseconds - $0 >= 60_000 } ?? true
        do throws(SQLiteError) {
            // A transaction a failed ROLLBACK left open would fail every BEGIN from now on.
            if !connection.isAutocommit { try run(SQL.rollback) }
            try run(SQL.begin)
            for (name, effects) in batch.lists {
                try apply(effects, to: name)
            }
            for (key, record) in batch.idempotency {
                try run(SQL.insertIdempotency) { statement throws(SQLiteError) in
                    try statement.bind(key.list, at: 1)
                    try statement.bind(key.key, at: 2)
                    try statement.bind(record.fingerprint, at: 3)
                    try statement.bind(record.answer, at: 4)
                    try statement.bind(record.createdAt.milliseconds, at: 5)
                }
            }
            if prunesIdempotency {
                let cutoff = batch.now.milliseconds - Int64(options.idempotencyTTL.wholeMilliseconds)
                try run(SQL.pruneIdempotency) { statement throws(SQLiteError) in try statement.bind(cutoff, at: 1) }
            }
            try run(SQL.commit)
        } catch {
            if !connection.isAutocommit { try? run(SQL.rollback) }
            throw error.storeFailure
        }
        if prunesIdempotency {
            commitsSincePrune = 0
            lastPrune = batch.now.milliseconds
        } else {
            commitsSincePrune += 1
        }
        for (name, effects) in batch.lists where effects.removesList { forgetName(name) }
    }

    /// One list's part of the transaction.
    private func apply(_ effects: ListEffects, to listName: String) throws(SQLiteError) {
        let name = keptName(listName)  // bound to every row below, in place
        let byName: (SQLiteStatement) throws(SQLiteError) -> Void = { statement throws(SQLiteError) in
            try statement.bind(kept: name, at: 1)
        }
        if effects.drop {
            for sql in SQL.drop { try run(sql, byName) }
        } else if effects.wipe {
            for sql in SQL.wipe { try run(sql, byName) }
        }
        for (id, item) in effects.written {
            try run(SQL.upsertItem) { statement throws(SQLiteError) in
                let fields = item.overrides
                try statement.bind(kept: name, at: 1)
                try statement.bind(id, at: 2)
                try statement.bind(fields.label, at: 3)
                try statement.bind(fields.author, at: 4)
                try statement.bind(fields.width, at: 5)
                try statement.bind(fields.height, at: 6)
                try statement.bind(fields.color.map { Int($0) }, at: 7)
                try statement.bind(fields.likes, at: 8)
                try statement.bind(item.revision, at: 9)
            }
        }
        for id in effects.deleted {
            try run(SQL.upsertDeletion) { statement throws(SQLiteError) in
                try statement.bind(kept: name, at: 1)
                try statement.bind(id, at: 2)
            }
        }
        for (id, effect) in effects.images {
            switch effect {
            case .put(let image, let bytes):
                try run(SQL.upsertImage) { statement throws(SQLiteError) in
                    try statement.bind(kept: name, at: 1)
                    try statement.bind(id, at: 2)
                    try statement.bind(image.format.rawValue, at: 3)
                    try statement.bind(image.width, at: 4)
                    try statement.bind(image.height, at: 5)
                    try statement.bind(image.byteCount, at: 6)
                    try statement.bind(image.digest.bigEndianBytes, at: 7)
                    try statement.bind(image.revision, at: 8)
                    try statement.bind(bytes, at: 9)
                    try statement.bind(image.blurHash, at: 10)
                }
                // The binding holds SQLite's copy of the file until the statement is next bound: let it go now.
                try connection.withStatement(SQL.upsertImage) { statement throws(SQLiteError) in
                    try statement.bindNull(at: 9)
                }
            case .remove:
                try run(SQL.deleteImage) { statement throws(SQLiteError) in
                    try statement.bind(kept: name, at: 1)
                    try statement.bind(id, at: 2)
                }
            }
        }
        for (key, message) in effects.messages {
            try run(SQL.upsertMessage) { statement throws(SQLiteError) in
                try statement.bind(kept: name, at: 1)
                try statement.bind(key.conversation, at: 2)
                try statement.bind(key.id, at: 3)
                try Self.bindMessage(
                    message.authorIndex, message.text, message.sentAt, message.editedAt, message.replyTo,
                    to: statement, from: 4)
                try statement.bind(message.deleted ? 1 : 0, at: 9)
                try statement.bind(message.revision, at: 10)
            }
        }
        for (key, marker) in effects.readMarkers {
            try run(SQL.upsertReadMarker) { statement throws(SQLiteError) in
                try statement.bind(kept: name, at: 1)
                try statement.bind(key.conversation, at: 2)
                try statement.bind(key.client, at: 3)
                try statement.bind(marker.upTo, at: 4)
                try statement.bind(marker.revision, at: 5)
            }
        }
        for change in effects.changes {
            switch change.event {
            case .message, .read, .conversation:
                try run(SQL.insertChatChange) { statement throws(SQLiteError) in
                    try statement.bind(kept: name, at: 1)
                    try bindChat(change, to: statement)
                }
            default:
                try run(SQL.insertChange) { statement throws(SQLiteError) in
                    try statement.bind(kept: name, at: 1)
                    try bind(change, to: statement)
                }
            }
        }
        guard let header = effects.header else { return }
        try run(SQL.upsertHeader) { statement throws(SQLiteError) in
            try statement.bind(kept: name, at: 1)
            try statement.bind(header.seed, at: 2)
            try statement.bind(header.baseCount, at: 3)
            try statement.bind(header.version, at: 4)
            try statement.bind(header.nextID, at: 5)
            try statement.bind(header.lastSequence, at: 6)
        }
        // Sequence numbers grow by one per change, so the newest `changesKept` are those above this.
        let kept = UInt64(max(options.changesKept, 0))
        if !effects.changes.isEmpty && header.lastSequence > kept {
            try run(SQL.pruneChanges) { statement throws(SQLiteError) in
                try statement.bind(kept: name, at: 1)
                try statement.bind(header.lastSequence - kept, at: 2)
            }
        }
    }

    /// Binds parameters 2… of ``SQL/insertChange``: the sequence, the kind, the kind's columns, and NULL for the
    /// columns of the other kinds (bindings outlast a use of the statement).
    private func bind(_ change: Change, to statement: SQLiteStatement) throws(SQLiteError) {
        try statement.bind(change.sequence, at: 2)
        try statement.bind(literal: change.event.kindName, at: 3)
        let itemColumns: ClosedRange<Int32> = 4...10
        let resetColumns: ClosedRange<Int32> = 11...13
        let blurHashColumn: Int32 = 14
        switch change.event {
        case .created(let item), .updated(let item):
            try statement.bind(item.id, at: 4)
            try statement.bind(item.label, at: 5)
            try statement.bind(item.author, at: 6)
            try statement.bind(item.width, at: 7)
            try statement.bind(item.height, at: 8)
            try statement.bind(item.color, at: 9)
            try statement.bind(item.likes, at: 10)
            for column in resetColumns { try statement.bindNull(at: column) }
            try statement.bind(item.blurHash, at: blurHashColumn)
        case .deleted(let id):
            try statement.bind(id, at: 4)
            for column in itemColumns.dropFirst() { try statement.bindNull(at: column) }
            for column in resetColumns { try statement.bindNull(at: column) }
            try statement.bindNull(at: blurHashColumn)
        case .reset(let reset):
            for column in itemColumns { try statement.bindNull(at: column) }
            try statement.bind(reset.version, at: 11)
            try statement.bind(reset.seed, at: 12)
            try statement.bind(reset.count, at: 13)
            try statement.bindNull(at: blurHashColumn)
        case .message, .read, .conversation:
            preconditionFailure("a chat change goes by insertChatChange")
        }
    }

    /// Binds a message's author, text, sending and editing times and reply target to parameters `first` ... `first`
    /// + 4, as a message row and a message change both hold them.
    private static func bindMessage(
        _ author: Int, _ text: String, _ sentAt: Int64, _ editedAt: Int64?, _ replyTo: UInt64?,
        to statement: SQLiteStatement, from first: Int32
    ) throws(SQLiteError) {
        try statement.bind(author, at: first)
        try statement.bind(text, at: first + 1)
        try statement.bind(sentAt, at: first + 2)
        try statement.bind(editedAt.map { Int($0) }, at: first + 3)
        try statement.bind(replyTo.map { Int(bitPattern: UInt($0)) }, at: first + 4)
    }

    /// Binds parameters 2… of ``SQL/insertChatChange``: a message change's message, or a read marker.
    private func bindChat(_ change: Change, to statement: SQLiteStatement) throws(SQLiteError) {
        try statement.bind(change.sequence, at: 2)
        try statement.bind(literal: change.event.kindName, at: 3)
        switch change.event {
        case .message(let message):
            let message = message.message
            try statement.bind(message.id, at: 4)
            try statement.bind(message.conversation, at: 5)
            try Self.bindMessage(
                message.authorIndex, message.text, message.sentAt, message.editedAt, message.replyTo, to: statement,
                from: 6)
            try statement.bindNull(at: 11)
        case .read(let read):
            try statement.bind(read.upTo, at: 4)
            try statement.bind(read.key.conversation, at: 5)
            for column: Int32 in 6...10 { try statement.bindNull(at: column) }
            try statement.bind(read.key.client, at: 11)
        case .conversation(let moved):  // item_id: its message count, sent_at: its last activity
            try statement.bind(moved.messageCount, at: 4)
            try statement.bind(moved.id, at: 5)
            for column: Int32 in [6, 7, 9, 10, 11] { try statement.bindNull(at: column) }
            try statement.bind(moved.updatedAt, at: 8)
        default:
            preconditionFailure("not a chat change")
        }
    }

    /// Runs the cached statement `sql` to its end after `bind` has bound every one of its parameters (bindings
    /// outlast a use: ``SQLiteConnection/withStatement(_:_:)`` does not clear them).
    func run(
        _ sql: StaticString, _ bind: (SQLiteStatement) throws(SQLiteError) -> Void = { _ in }
    ) throws(SQLiteError) {
        try connection.withStatement(sql) { statement throws(SQLiteError) in
            try bind(statement)
            try statement.step()
        }
    }

    /// The commit path's SQL, each statement prepared once (``SQLiteConnection/cached(_:)``).
    enum SQL {
        static let begin: StaticString = "BEGIN IMMEDIATE"
        static let commit: StaticString = "COMMIT"
        static let rollback: StaticString = "ROLLBACK"
        static let drop: [StaticString] = [
            "DELETE FROM items WHERE list = ?1", "DELETE FROM changes WHERE list = ?1",
            "DELETE FROM idempotency WHERE list = ?1", "DELETE FROM images WHERE list = ?1",
            "DELETE FROM profiles WHERE list = ?1", "DELETE FROM messages WHERE list = ?1",
            "DELETE FROM read_markers WHERE list = ?1", "DELETE FROM lists WHERE name = ?1",
        ]
        static let wipe: [StaticString] = [
            "DELETE FROM items WHERE list = ?1", "DELETE FROM idempotency WHERE list = ?1",
            "DELETE FROM images WHERE list = ?1", "DELETE FROM messages WHERE list = ?1",
            "DELETE FROM read_markers WHERE list = ?1",
        ]
        static let upsertMessage: StaticString = """
            INSERT OR REPLACE INTO messages
                (list, conversation, id, author_id, text, sent_at, edited_at, reply_to, deleted, revision)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)
            """
        static let upsertReadMarker: StaticString = """
            INSERT OR REPLACE INTO read_markers (list, conversation, client, up_to, revision)
            VALUES (?1, ?2, ?3, ?4, ?5)
            """
        static let insertChatChange: StaticString = """
            INSERT INTO changes (list, sequence, kind, item_id, conversation, author_id, text, sent_at, edited_at,
                reply_to, client)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)
            """
        static let upsertImage: StaticString = """
            INSERT OR REPLACE INTO images
                (list, id, format, width, height, byte_count, digest, revision, bytes, blur_hash)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)
            """
        static let deleteImage: StaticString = "DELETE FROM images WHERE list = ?1 AND id = ?2"
        static let upsertItem: StaticString = """
            INSERT OR REPLACE INTO items (list, id, label, author, width, height, color, likes, revision, deleted)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, 0)
            """
        static let upsertDeletion: StaticString = """
            INSERT OR REPLACE INTO items (list, id, label, author, width, height, color, likes, revision, deleted)
            VALUES (?1, ?2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 1)
            """
        static let insertChange: StaticString = """
            INSERT INTO changes (list, sequence, kind, item_id, label, author, width, height, color, likes,
                version, seed, count, blur_hash)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)
            """
        static let upsertHeader: StaticString = """
            INSERT INTO lists (name, seed, base_count, version, next_id, last_sequence)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6)
            ON CONFLICT (name) DO UPDATE SET seed = excluded.seed, base_count = excluded.base_count,
                version = excluded.version, next_id = excluded.next_id, last_sequence = excluded.last_sequence
            """
        static let pruneChanges: StaticString = "DELETE FROM changes WHERE list = ?1 AND sequence <= ?2"
        // INSERT OR REPLACE: a key whose record has expired but is not pruned yet may be used again.
        static let insertIdempotency: StaticString = """
            INSERT OR REPLACE INTO idempotency (list, key, fingerprint, answer, created_at)
            VALUES (?1, ?2, ?3, ?4, ?5)
            """
        static let pruneIdempotency: StaticString = "DELETE FROM idempotency WHERE created_at <= ?1"
    }
}
