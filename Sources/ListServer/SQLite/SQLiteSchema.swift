/// The store's tables and how a file gets them: versioned by `PRAGMA user_version`, migrated in order from 0.
///
/// A new file has `user_version` 0; migration N takes it from N to N + 1, and the file's version is the number of
/// migrations applied. A migration, once released, never changes: a change of schema is a new one at the end.
/// A file with a version above ``version`` was written by a newer ListServer and is refused (its tables may mean
/// something this build does not know).
///
/// `UInt64` values (seeds, counts, ids, sequence numbers) are stored as the `Int64` with the same bits, so all of
/// them round-trip. SQLite compares and orders them as signed numbers, which is right below 2^63: ids stay below
/// 2^53 (`Catalog.maximumCount`) plus what a list grows by, and sequence numbers count changes, one at a time, so
/// neither gets near. Where order matters anyway (deleted ids come back ascending) the reader corrects for it.
///
/// NULL in an item's field means "the generated value"; a row with `deleted = 1` is a deletion (its fields and
/// revision NULL). An item's uploaded image is a row of `images` beside its `items` row; its digest is 16 bytes,
/// big-endian. Every keyed table is `WITHOUT ROWID`: the rows live in their primary key's b-tree, one lookup
/// and one write per row rather than two, and reads in key order need no sort.
enum SQLiteSchema {
    /// The migrations, in order: `migrations[n]` takes a file from version n to n + 1.
    static let migrations: [String] = [
        // 1: the lists, their written items and deletions, their change feeds, the idempotency records.
        """
        CREATE TABLE lists (
            name TEXT NOT NULL PRIMARY KEY,
            seed INTEGER NOT NULL,
            base_count INTEGER NOT NULL,
            version INTEGER NOT NULL,
            next_id INTEGER NOT NULL,
            last_sequence INTEGER NOT NULL
        ) WITHOUT ROWID;
        CREATE TABLE items (
            list TEXT NOT NULL,
            id INTEGER NOT NULL,
            label TEXT,
            author TEXT,
            width INTEGER,
            height INTEGER,
            color INTEGER,
            likes INTEGER,
            revision INTEGER,
            deleted INTEGER NOT NULL,
            PRIMARY KEY (list, id)
        ) WITHOUT ROWID;
        CREATE TABLE changes (
            list TEXT NOT NULL,
            sequence INTEGER NOT NULL,
            kind TEXT NOT NULL,
            item_id INTEGER,
            label TEXT,
            author TEXT,
            width INTEGER,
            height INTEGER,
            color TEXT,
            likes INTEGER,
            version INTEGER,
            seed INTEGER,
            count INTEGER,
            PRIMARY KEY (list, sequence)
        ) WITHOUT ROWID;
        CREATE TABLE idempotency (
            list TEXT NOT NULL,
            key TEXT NOT NULL,
            fingerprint BLOB NOT NULL,
            answer BLOB NOT NULL,
            created_at INTEGER NOT NULL,
            PRIMARY KEY (list, key)
        ) WITHOUT ROWID;
        CREATE INDEX idempotency_by_age ON idempotency (created_at);
        """,
        // 2: uploaded images (`PUT /items/<id>/image`). A rowid table, unlike the others: its rows hold files of up
        // to ``SettingKey/imageMaxUploadBytes``, which SQLite advises keeping out of `WITHOUT ROWID` b-trees; the file
        // comes last, so reading the other columns (at start) never reads its overflow pages.
        """
        CREATE TABLE images (
            list TEXT NOT NULL,
            id INTEGER NOT NULL,
            format TEXT NOT NULL,
            width INTEGER NOT NULL,
            height INTEGER NOT NULL,
            byte_count INTEGER NOT NULL,
            digest BLOB NOT NULL,
            revision INTEGER NOT NULL,
            bytes BLOB NOT NULL,
            UNIQUE (list, id)
        );
        """,
        // 3: when each list was last used (ms since 1970; 0: not recorded yet, which the next use record stamps
        // with its time), for idle datasets to expire (``SettingKey/datasetTTLSeconds``). Kept apart from the commit
        // path: a commit's header upsert leaves it alone (the writes benchmarks' C baselines run the same statements).
        """
        ALTER TABLE lists ADD COLUMN last_used INTEGER NOT NULL DEFAULT 0;
        CREATE INDEX lists_by_last_used ON lists (last_used);
        """,
        // 4: each dataset's profile (`PUT /admin/datasets/<name>/profile`): its body as set, and when (ms since
        // 1970), so that a restart sets it again with its outage at the same phase.
        """
        CREATE TABLE profiles (
            list TEXT NOT NULL PRIMARY KEY,
            body BLOB NOT NULL,
            set_at INTEGER NOT NULL
        ) WITHOUT ROWID;
        """,
        // 5: the key each dataset's tokens are signed with (16 bytes), so that a restart and every server keep
        // accepting them (`ProfileRegistry+Tokens.swift`); profiles stored before get a random one.
        """
        ALTER TABLE profiles ADD COLUMN token_key BLOB;
        UPDATE profiles SET token_key = randomblob(16);
        """,
        // 6: when a request last met each profile (ms since 1970; 0: not since it was set), as every server that
        // shares the store records it, so that an unused profile expires (``SettingKey/datasetTTLSeconds``).
        "ALTER TABLE profiles ADD COLUMN last_used INTEGER NOT NULL DEFAULT 0;",
        // 7: each upload's BlurHash (the item's `blur_hash` while it stands), computed as it was checked, and each
        // item change's (the item's as the change left it); NULL for those stored before, shown as null.
        """
        ALTER TABLE images ADD COLUMN blur_hash TEXT;
        ALTER TABLE changes ADD COLUMN blur_hash TEXT;
        """,
        // 8: the chat's writes (issue 36): messages sent, edited or deleted (a deletion keeps its row, with
        // `deleted = 1` and no text: a tombstone), each client's read marker, and the columns of the chat's changes
        // (`message.*`: the message, `item_id` its id; `read`: `conversation`, `client`, `item_id` the marker).
        """
        CREATE TABLE messages (
            list TEXT NOT NULL,
            conversation INTEGER NOT NULL,
            id INTEGER NOT NULL,
            author_id INTEGER NOT NULL,
            text TEXT NOT NULL,
            sent_at INTEGER NOT NULL,
            edited_at INTEGER,
            reply_to INTEGER,
            deleted INTEGER NOT NULL,
            revision INTEGER NOT NULL,
            PRIMARY KEY (list, conversation, id)
        ) WITHOUT ROWID;
        CREATE TABLE read_markers (
            list TEXT NOT NULL,
            conversation INTEGER NOT NULL,
            client TEXT NOT NULL,
            up_to INTEGER NOT NULL,
            revision INTEGER NOT NULL,
            PRIMARY KEY (list, conversation, client)
        ) WITHOUT ROWID;
        ALTER TABLE changes ADD COLUMN conversation INTEGER;
        ALTER TABLE changes ADD COLUMN author_id INTEGER;
        ALTER TABLE changes ADD COLUMN text TEXT;
        ALTER TABLE changes ADD COLUMN sent_at INTEGER;
        ALTER TABLE changes ADD COLUMN edited_at INTEGER;
        ALTER TABLE changes ADD COLUMN reply_to INTEGER;
        ALTER TABLE changes ADD COLUMN client TEXT;
        """,
    ]

    /// The schema version this build writes: the number of migrations.
    static var version: Int64 { Int64(migrations.count) }

    /// Why a file cannot be used as it is.
    enum Problem: Error {
        /// The file's `user_version` is above ``version``.
        case newer(found: Int64)
        /// SQLite failed.
        case sqlite(SQLiteError)
    }

    /// Brings the file to ``version``, in one `BEGIN IMMEDIATE` transaction: the version is read under the write
    /// lock, so two processes opening one new file cannot both migrate it. With nothing to migrate the empty
    /// transaction still runs, and that is what makes a read-only file fail here, at start, rather than at the
    /// first write (`BEGIN IMMEDIATE` takes the write lock).
    static func migrate(_ connection: SQLiteConnection) throws(Problem) {
        let found: Int64
        do throws(SQLiteError) {
            try connection.execute("BEGIN IMMEDIATE")
            found = try connection.integer("PRAGMA user_version") ?? 0
            if found < version {
                for index in Int(max(found, 0))..<migrations.count {
                    try connection.execute(migrations[index])
                }
                try connection.execute("PRAGMA user_version = \(version)")
            }
            try connection.execute(found <= version ? "COMMIT" : "ROLLBACK")
        } catch {
            if !connection.isAutocommit { try? connection.execute("ROLLBACK") }
            throw .sqlite(error)
        }
        if found > version { throw .newer(found: found) }
    }
}
