import ListDomain

/// What a dataset's life needs beyond its writes: when it was last used, which datasets are idle, and what each
/// holds (`GET /admin/datasets`).
extension SQLiteListTables {
    /// Keeps these last uses (a later one only; a list without a row gets none) and stamps every list whose last
    /// use is not recorded (0) with `now`, in one transaction.
    func recordUse(_ uses: [String: WallTime], now: WallTime) throws(StoreFailure) {
        try recordTimes(uses, with: SQL.recordUse) { () throws(SQLiteError) in
            try run(SQL.stampUnrecorded) { statement throws(SQLiteError) in try statement.bind(now.milliseconds, at: 1)
            }
        }
    }

    /// Runs `statement` (`?1` a name, `?2` its time in ms) for each of `times`, then `finish`, in one transaction.
    func recordTimes(
        _ times: [String: WallTime], with statement: StaticString,
        finish: () throws(SQLiteError) -> Void = { () throws(SQLiteError) in }
    ) throws(StoreFailure) {
        do throws(SQLiteError) {
            if !connection.isAutocommit { try run(SQL.rollback) }
            try run(SQL.begin)
            for (name, time) in times {
                try run(statement) { statement throws(SQLiteError) in
                    try statement.bind(name, at: 1)
                    try statement.bind(time.milliseconds, at: 2)
                }
            }
            try finish()
            try run(SQL.commit)
        } catch {
            if !connection.isAutocommit { try? run(SQL.rollback) }
            throw error.storeFailure
        }
    }

    /// The datasets last used at or before `cutoff`, least recently used first, at most `limit`.
    func idleLists(before cutoff: WallTime, limit: Int) throws(StoreFailure) -> [String] {
        try names(SQL.idleLists, cutoff: cutoff, limit: limit)
    }

    /// The names `statement` (`?1` a time in ms, `?2` a limit) gives.
    func names(_ statement: StaticString, cutoff: WallTime, limit: Int) throws(StoreFailure) -> [String] {
        do throws(SQLiteError) {
            return try connection.withStatement(statement) { statement throws(SQLiteError) in
                try statement.bind(cutoff.milliseconds, at: 1)
                try statement.bind(Int64(max(limit, 0)), at: 2)
                var names: [String] = []
                while try statement.step() { names.append(statement.text(at: 0) ?? "") }
                return names
            }
        } catch {
            throw error.storeFailure
        }
    }

    /// How many datasets hold writes.
    func datasetsHoldingWrites() throws(StoreFailure) -> Int {
        do throws(SQLiteError) {
            return try connection.withStatement(SQL.datasetsHoldingWrites) { statement throws(SQLiteError) in
                try statement.step() ? Int(statement.int64(at: 0)) : 0
            }
        } catch {
            throw error.storeFailure
        }
    }

    /// What each dataset after `after` holds, in name order, at most `limit`.
    func datasetSummaries(after: String?, limit: Int) throws(StoreFailure) -> [DatasetSummary] {
        do throws(SQLiteError) {
            return try connection.withStatement(SQL.datasetSummaries) { statement throws(SQLiteError) in
                try statement.bind(after ?? "", at: 1)
                try statement.bind(Int64(max(limit, 0)), at: 2)
                var summaries: [DatasetSummary] = []
                while try statement.step() {
                    let lastUsed = statement.int64(at: 2)
                    summaries.append(
                        DatasetSummary(
                            name: statement.text(at: 0) ?? "",
                            liveCount: statement.uint64(at: 1) &- statement.uint64(at: 3),
                            writtenCount: statement.uint64(at: 4), bytes: statement.uint64(at: 5),
                            lastUsed: lastUsed > 0 ? WallTime(milliseconds: lastUsed) : nil))
                }
                return summaries
            }
        } catch {
            throw error.storeFailure
        }
    }
}

extension SQLiteListTables.SQL {
    static let datasetsHoldingWrites: StaticString = """
        SELECT count(*) FROM lists l WHERE l.name <> ''
            AND (l.next_id <> l.base_count OR EXISTS (SELECT 1 FROM items i WHERE i.list = l.name)
                OR EXISTS (SELECT 1 FROM messages m WHERE m.list = l.name)
                OR EXISTS (SELECT 1 FROM read_markers r WHERE r.list = l.name))
        """
    static let recordUse: StaticString = "UPDATE lists SET last_used = max(last_used, ?2) WHERE name = ?1"
    static let stampUnrecorded: StaticString = "UPDATE lists SET last_used = ?1 WHERE last_used = 0"
    static let idleLists: StaticString = """
        SELECT name FROM lists WHERE last_used > 0 AND last_used <= ?1 AND name <> '' ORDER BY last_used LIMIT ?2
        """
    /// Each dataset's live items (next id less deletions), written items, and bytes: 48 a row and its text, its
    /// uploads' files, 64 a message and its text, 64 a read marker, 100 a kept change. Each subquery is a range of a primary key (or the images' unique index).
    static let datasetSummaries: StaticString = """
        SELECT l.name, l.next_id, l.last_used,
            (SELECT count(*) FROM items i WHERE i.list = l.name AND i.deleted = 1),
            (SELECT count(*) FROM items i WHERE i.list = l.name AND i.deleted = 0),
            (SELECT coalesce(sum(48 + coalesce(length(CAST(i.label AS BLOB)), 0)
                + coalesce(length(CAST(i.author AS BLOB)), 0)), 0) FROM items i WHERE i.list = l.name)
            + (SELECT coalesce(sum(g.byte_count), 0) FROM images g WHERE g.list = l.name)
            + (SELECT coalesce(sum(64 + length(CAST(m.text AS BLOB))), 0) FROM messages m WHERE m.list = l.name)
            + 64 * (SELECT count(*) FROM read_markers r WHERE r.list = l.name)
            + 100 * (SELECT count(*) FROM changes c WHERE c.list = l.name)
        FROM lists l WHERE l.name > ?1 ORDER BY l.name LIMIT ?2
        """
}
