/// The store's tables in PostgreSQL and how a database gets them: versioned by the one row of
/// `listserver_schema`, migrated in order from 0, by one replica at a time.
///
/// Two columns more than SQLite's, for servers that share the database: `items.changed_at`, the sequence number
/// of the commit that last wrote the row (a deletion too), so a server that is behind reads only the rows written
/// since its copy; and `changes.dropped`, which marks the `reset` change of a drop. And one table more:
/// `fault_attempts`, the `?fail_first` counts that servers share (SQLite's server counts in memory).
///
/// The same tables as the SQLite store (``SQLiteSchema``), in PostgreSQL's types: every integer `bigint` (`UInt64`
/// values stored as the `Int64` with the same bits), files and digests `bytea`, and so are list names, labels,
/// authors and colours, as their UTF-8 bytes: `text` cannot hold U+0000, which JSON can (`"\u0000"` is a valid
/// label) and SQLite stores, and the two stores keep the same things. A migration, once released, never
/// changes: a change of schema is a new one at the end. A database with a version above ``version`` was migrated
/// by a newer ListServer and is refused.
enum PostgresSchema {
    /// The migrations, in order: `migrations[n]` takes a database from version n to n + 1.
    static let migrations: [String] = [
        // 1: the lists, their written items and deletions, their change feeds, the idempotency records, and the
        // uploaded images (the file last: PostgreSQL keeps large values out of line, TOAST, so reading the other
        // columns at start never reads a file).
        """
        CREATE TABLE lists (
            name bytea NOT NULL PRIMARY KEY,
            seed bigint NOT NULL,
            base_count bigint NOT NULL,
            version bigint NOT NULL,
            next_id bigint NOT NULL,
            last_sequence bigint NOT NULL
        );
        CREATE TABLE items (
            list bytea NOT NULL,
            id bigint NOT NULL,
            label bytea,
            author bytea,
            width bigint,
            height bigint,
            color bigint,
            likes bigint,
            revision bigint,
            deleted boolean NOT NULL,
            changed_at bigint NOT NULL,
            PRIMARY KEY (list, id)
        );
        CREATE INDEX items_by_change ON items (list, changed_at);
        CREATE TABLE changes (
            list bytea NOT NULL,
            sequence bigint NOT NULL,
            kind text NOT NULL,
            item_id bigint,
            label bytea,
            author bytea,
            width bigint,
            height bigint,
            color bytea,
            likes bigint,
            version bigint,
            seed bigint,
            count bigint,
            dropped boolean NOT NULL DEFAULT false,
            PRIMARY KEY (list, sequence)
        );
        CREATE TABLE idempotency (
            list bytea NOT NULL,
            key text NOT NULL,
            fingerprint bytea NOT NULL,
            answer bytea NOT NULL,
            created_at bigint NOT NULL,
            PRIMARY KEY (list, key)
        );
        CREATE INDEX idempotency_by_age ON idempotency (created_at);
        CREATE TABLE fault_attempts (
            list bytea NOT NULL,
            client bytea NOT NULL,
            resource bytea NOT NULL,
            attempts bigint NOT NULL,
            touched_at bigint NOT NULL,
            PRIMARY KEY (list, client, resource)
        );
        CREATE INDEX fault_attempts_by_age ON fault_attempts (touched_at);
        CREATE TABLE images (
            list bytea NOT NULL,
            id bigint NOT NULL,
            format text NOT NULL,
            width bigint NOT NULL,
            height bigint NOT NULL,
            byte_count bigint NOT NULL,
            digest bytea NOT NULL,
            revision bigint NOT NULL,
            bytes bytea NOT NULL,
            PRIMARY KEY (list, id)
        );
        """,
        // 2: when each list was last used (ms since 1970; 0: not recorded yet), as in the SQLite store's
        // migration 3, for idle datasets to expire.
        """
        ALTER TABLE lists ADD COLUMN last_used bigint NOT NULL DEFAULT 0;
        CREATE INDEX lists_by_last_used ON lists (last_used);
        """,
        // 3: each dataset's profile, as in the SQLite store's migration 4.
        """
        CREATE TABLE profiles (
            list bytea NOT NULL PRIMARY KEY,
            body bytea NOT NULL,
            set_at bigint NOT NULL
        );
        """,
        // 4: the key of each dataset's tokens, as in the SQLite store's migration 5 (md5 of a random text: 16
        // random bytes without the pgcrypto extension).
        """
        ALTER TABLE profiles ADD COLUMN token_key bytea;
        UPDATE profiles SET token_key = decode(md5(random()::text || clock_timestamp()::text), 'hex');
        """,
        // 5: when a request last met each profile, as in the SQLite store's migration 6.
        "ALTER TABLE profiles ADD COLUMN last_used bigint NOT NULL DEFAULT 0;",
        // 6: each upload's and each item change's BlurHash, as in the SQLite store's migration 7.
        """
        ALTER TABLE images ADD COLUMN blur_hash text;
        ALTER TABLE changes ADD COLUMN blur_hash text;
        """,
        // 7: the chat's writes and their changes, as in the SQLite store's migration 8; each message and marker
        // with `changed_at`, as items have it, for servers that are behind.
        """
        CREATE TABLE messages (
            list bytea NOT NULL,
            conversation bigint NOT NULL,
            id bigint NOT NULL,
            author_id bigint NOT NULL,
            text bytea NOT NULL,
            sent_at bigint NOT NULL,
            edited_at bigint,
            reply_to bigint,
            deleted boolean NOT NULL,
            revision bigint NOT NULL,
            changed_at bigint NOT NULL,
            PRIMARY KEY (list, conversation, id)
        );
        CREATE INDEX messages_by_change ON messages (list, changed_at);
        CREATE TABLE read_markers (
            list bytea NOT NULL,
            conversation bigint NOT NULL,
            client bytea NOT NULL,
            up_to bigint NOT NULL,
            revision bigint NOT NULL,
            changed_at bigint NOT NULL,
            PRIMARY KEY (list, conversation, client)
        );
        CREATE INDEX read_markers_by_change ON read_markers (list, changed_at);
        ALTER TABLE changes ADD COLUMN conversation bigint;
        ALTER TABLE changes ADD COLUMN author_id bigint;
        ALTER TABLE changes ADD COLUMN text bytea;
        ALTER TABLE changes ADD COLUMN sent_at bigint;
        ALTER TABLE changes ADD COLUMN edited_at bigint;
        ALTER TABLE changes ADD COLUMN reply_to bigint;
        ALTER TABLE changes ADD COLUMN client bytea;
        """,
    ]

    /// The schema version this build writes: the number of migrations.
    static var version: Int64 { Int64(migrations.count) }

    /// `name` as an SQL identifier, quoted (a schema name given for tests).
    static func quoted(_ name: String) -> String {
        // By Unicode scalar, not by Character: a quote followed by a combining mark is one Character, and would
        // otherwise be left single and end the identifier early.
        var quoted = String.UnicodeScalarView()
        quoted.append("\"")
        for scalar in name.unicodeScalars {
            if scalar == "\"" { quoted.append("\"") }
            quoted.append(scalar)
        }
        quoted.append("\"")
        return String(quoted)
    }

    /// The advisory lock replicas take around a migration ("List" in ASCII): the second replica to start waits
    /// until the first has migrated, then finds nothing to do.
    static let migrationLock: Int64 = 0x4C69_7374

    /// Why a database cannot be used as it is.
    enum Problem: Error {
        /// `listserver_schema` says a version above ``version``.
        case newer(found: Int64)
        case postgres(PostgresError)
    }

    /// Brings the database to ``version`` in one transaction holding ``migrationLock``: replicas starting together
    /// migrate once, and a migration that fails leaves the database as it was (PostgreSQL's DDL is
    /// transactional).
    static func migrate(_ connection: PostgresConnection) throws(Problem) {
        let found: Int64
        do throws(PostgresError) {
            try connection.script("BEGIN")
            try connection.script("SELECT pg_advisory_xact_lock(\(migrationLock))")
            try connection.script("CREATE TABLE IF NOT EXISTS listserver_schema (version bigint NOT NULL)")
            let rows = try connection.execute("SELECT max(version) FROM listserver_schema")
            found = rows.count > 0 ? rows.int64(0, 0) : 0
            if found < version {
                for index in Int(max(found, 0))..<migrations.count {
                    try connection.script(migrations[index])
                }
                try connection.script("DELETE FROM listserver_schema")
                try connection.script("INSERT INTO listserver_schema (version) VALUES (\(version))")
            }
            try connection.script(found <= version ? "COMMIT" : "ROLLBACK")
        } catch {
            if !error.connectionLost && connection.inTransaction { try? connection.script("ROLLBACK") }
            throw .postgres(error)
        }
        if found > version { throw .newer(found: found) }
    }
}
