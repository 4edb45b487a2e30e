import ListDomain

/// What a dataset's life needs beyond its writes, as in the SQLite store (`SQLiteListTables+Lifecycle.swift`):
/// last uses, idle datasets, and what each holds.
extension PostgresListTables {
    /// Keeps these last uses (a later one only; never makes a row) and stamps unrecorded ones (0) with `now`.
    ///
    /// Each in a statement of its own, outside any transaction: a row another server's commit holds is waited for
    /// on its own (at most `lock_timeout`), never in an order that could deadlock with a commit's row locks.
    func recordUse(_ uses: [String: WallTime], now: WallTime) throws(StoreFailure) {
        try withConnection(retrying: true) { connection throws(PostgresError) in
            for (name, time) in uses {
                try connection.execute(SQL.recordUse, [.utf8(name), .bigint(time.milliseconds)])
            }
            try connection.execute(SQL.stampUnrecorded, [.bigint(now.milliseconds)])
        }
    }

    /// The datasets last used at or before `cutoff`, least recently used first, at most `limit`.
    func idleLists(before cutoff: WallTime, limit: Int) throws(StoreFailure) -> [String] {
        try withConnection(retrying: true) { connection throws(PostgresError) in
            let rows = try connection.execute(SQL.idleLists, [.bigint(cutoff.milliseconds), .int(max(limit, 0))])
            return (0..<rows.count).map { rows.text($0, 0) ?? "" }
        }
    }

    /// How many datasets hold writes.
    func datasetsHoldingWrites() throws(StoreFailure) -> Int {
        try withConnection(retrying: true) { connection throws(PostgresError) in
            Int(try connection.execute(SQL.datasetsHoldingWrites).int64(0, 0))
        }
    }

    /// What each dataset after `after` holds, in name order, at most `limit`.
    func datasetSummaries(after: String?, limit: Int) throws(StoreFailure) -> [DatasetSummary] {
        try withConnection(retrying: true) { connection throws(PostgresError) in
            let rows = try connection.execute(SQL.datasetSummaries, [.utf8(after ?? ""), .int(max(limit, 0))])
            return (0..<rows.count).map { row in
                let lastUsed = rows.int64(row, 2)
                return DatasetSummary(
                    name: rows.text(row, 0) ?? "", liveCount: rows.uint64(row, 1) &- rows.uint64(row, 3),
                    writtenCount: rows.uint64(row, 4), bytes: rows.uint64(row, 5),
                    lastUsed: lastUsed > 0 ? WallTime(milliseconds: lastUsed) : nil)
            }
        }
    }
}

extension PostgresListTables.SQL {
    static let datasetsHoldingWrites = """
        SELECT count(*) FROM lists l WHERE l.name <> ''::bytea
            AND (l.next_id <> l.base_count OR EXISTS (SELECT 1 FROM items i WHERE i.list = l.name)
                OR EXISTS (SELECT 1 FROM messages m WHERE m.list = l.name)
                OR EXISTS (SELECT 1 FROM read_markers r WHERE r.list = l.name))
        """
    static let recordUse = "UPDATE lists SET last_used = GREATEST(last_used, $2) WHERE name = $1"
    static let stampUnrecorded = "UPDATE lists SET last_used = $1 WHERE last_used = 0"
    static let idleLists = """
        SELECT name FROM lists WHERE last_used > 0 AND last_used <= $1 AND name <> ''::bytea
        ORDER BY last_used LIMIT $2
        """
    static let datasetSummaries = """
        SELECT l.name, l.next_id, l.last_used,
            (SELECT count(*) FROM items i WHERE i.list = l.name AND i.deleted),
            (SELECT count(*) FROM items i WHERE i.list = l.name AND NOT i.deleted),
            ((SELECT coalesce(sum(48 + coalesce(length(i.label), 0) + coalesce(length(i.author), 0)), 0)
                FROM items i WHERE i.list = l.name)
            + (SELECT coalesce(sum(g.byte_count), 0) FROM images g WHERE g.list = l.name)
            + (SELECT coalesce(sum(64 + length(m.text)), 0) FROM messages m WHERE m.list = l.name)
            + 64 * (SELECT count(*) FROM read_markers r WHERE r.list = l.name)
            + 100 * (SELECT count(*) FROM changes c WHERE c.list = l.name))::bigint
        FROM lists l WHERE l.name > $1 ORDER BY l.name LIMIT $2
        """
}
