import ListDomain

/// What servers sharing the database need beyond the SQLite store's paths: the commit's locks, and what other
/// servers wrote since a server's copy of a list.
extension PostgresListTables {
    /// Opens the next commit's transaction, takes the lists' write locks (transaction-scoped advisory locks, in
    /// one order for every server, so two servers locking the same lists cannot deadlock; a lock also covers a
    /// list that has no row yet, which a row lock could not), and reads what brings each list level.
    func beginCommit(_ positions: [String: ListPosition]) throws(StoreFailure) -> [String: ListCatchUp] {
        commitOpen = false
        return try withConnection(retrying: true) { connection throws(PostgresError) in
            if connection.inTransaction { try connection.script("ROLLBACK") }
            // One round trip: the transaction, the locks, and for each list as of holding its lock its header, the
            // item rows written since the copy's position and the changes since (both empty when the copy is
            // level, as it is whenever this server alone writes: two index lookups that find nothing are cheaper
            // than a second round trip, held under the lock, whenever it is not).
            let names = Array(positions.keys)
            var statements: [PostgresConnection.Statement] = [.init("BEGIN")]
            for key in Set(names.map(Self.lockKey)).sorted() { statements.append(.init(SQL.lock, [.bigint(key)])) }
            let firstRead = statements.count
            for name in names {
                let list = PostgresValue.utf8(name)
                let since = PostgresValue.unsigned(positions[name]!.lastSequence)
                statements.append(.init(SQL.header, [list]))
                statements.append(.init(SQL.changedItems, [list, since]))
                statements.append(.init(SQL.changesAndDrops, [list, since]))
                statements.append(.init(SQL.changedMessages, [list, since]))
                statements.append(.init(SQL.changedReadMarkers, [list, since]))
            }
            let results = try connection.pipeline(statements)
            var catchUps: [String: ListCatchUp] = [:]
            for (index, name) in names.enumerated() {
                let rows = firstRead + 5 * index
                if let catchUp = try Self.catchUp(
                    name, from: positions[name]!, header: results[rows], changedItems: results[rows + 1],
                    changes: results[rows + 2], changedMessages: results[rows + 3],
                    changedReadMarkers: results[rows + 4], on: connection)
                {
                    catchUps[name] = catchUp
                }
            }
            commitOpen = true
            return catchUps
        }
    }

    /// Ends the transaction ``beginCommit(_:)`` opened, writing nothing.
    func abandonCommit() {
        guard commitOpen else { return }
        commitOpen = false
        _ = try? withConnection { connection throws(PostgresError) in
            if connection.inTransaction { try connection.script("ROLLBACK") }
        }
    }

    /// What brings a copy of list `name` at `position` level with the database, given its header row (`headers`,
    /// none when the list has no row), the rows of ``SQL/changedItems`` and of ``SQL/changesAndDrops`` after
    /// `position`; nil when it already is level (or nobody wrote to the list).
    ///
    /// The same version: the item rows written after the copy's last change (`changed_at`), with their images,
    /// the chat's messages and read markers written since, and the header. Another version (a reset or a drop since) or a copy ahead of the database (restored from
    /// a backup): the whole list. Either way the changes after the position, for the server's feed. No header row
    /// for a copy that was written to (another server expired the list): ``ListCatchUp/removed``.
    static func catchUp(
        _ name: String, from position: ListPosition, header headers: PostgresRows, changedItems: PostgresRows,
        changes rows: PostgresRows, changedMessages: PostgresRows? = nil, changedReadMarkers: PostgresRows? = nil,
        on connection: PostgresConnection
    ) throws(PostgresError) -> ListCatchUp? {
        guard headers.count == 1 else {
            let neverWritten = position == ListPosition(version: 1, lastSequence: 0)
            return neverWritten ? nil : ListCatchUp(removed: true)
        }
        let header = header(in: headers, at: 0)
        guard ListPosition(header) != position else { return nil }
        var catchUp = ListCatchUp()
        if header.version != position.version || header.lastSequence < position.lastSequence {
            catchUp.stored = try lists(only: name, on: connection)[name]
        } else {
            catchUp.effects = changedRows(changedItems)
            for row in 0..<(changedMessages?.count ?? 0) {
                let (key, message) = writtenMessage(in: changedMessages!, at: row, from: 1)
                catchUp.effects.messages[key] = message
            }
            for row in 0..<(changedReadMarkers?.count ?? 0) {
                let (key, marker) = readMarker(in: changedReadMarkers!, at: row, from: 1)
                catchUp.effects.readMarkers[key] = marker
            }
            catchUp.effects.header = header
        }
        for row in 0..<rows.count {
            let change = try change(in: rows, at: row, chat: 14)
            catchUp.changes.append(change)
            if rows.int64(row, 13) != 0 { catchUp.droppedAt.insert(change.sequence) }
        }
        return catchUp
    }

    /// The item rows of ``SQL/changedItems``: written items (with their images) and deletions.
    private static func changedRows(_ rows: PostgresRows) -> ListEffects {
        var effects = ListEffects()
        for row in 0..<rows.count {
            let id = rows.uint64(row, 0)
            if rows.int64(row, 1) != 0 {
                effects.deleted.append(id)
                continue
            }
            var item = writtenItem(in: rows, at: row, from: 2)
            item.image = storedImage(in: rows, at: row, from: 9)  // 7 columns, blur_hash last
            effects.written[id] = item
        }
        return effects
    }

    /// The advisory lock of list `name`: a 64-bit FNV-1a hash of its UTF-8 bytes (two names with one hash only
    /// share a lock, which costs a wait, never a wrong result).
    static func lockKey(_ name: String) -> Int64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in name.utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
        }
        return Int64(bitPattern: hash)
    }
}

extension PostgresListTables.SQL {
    static let lock = "SELECT pg_advisory_xact_lock($1)"
    static let changedItems = """
        SELECT i.id, i.deleted::int::bigint, i.label, i.author, i.width, i.height, i.color, i.likes, i.revision,
            g.format, g.width, g.height, g.byte_count, g.digest, g.revision, g.blur_hash
        FROM items i LEFT JOIN images g ON g.list = i.list AND g.id = i.id
        WHERE i.list = $1 AND i.changed_at > $2
        """
    static let changesAndDrops = """
        SELECT sequence, kind, item_id, label, author, width, height, color, likes, version, seed, count, blur_hash,
            dropped::int::bigint, conversation, author_id, text, sent_at, edited_at, reply_to, client
        FROM changes WHERE list = $1 AND sequence > $2 ORDER BY sequence
        """
}

extension PostgresListTables {
    /// One more `?fail_first` attempt of `client` at `resource` in `list`, counted in the database for every
    /// server; the count with it. Counts untouched for an hour are pruned now and then (as the servers' memory
    /// forgets the least recent of 100,000), and a reset or drop of the list removes its counts.
    func countAttempt(list: String, client: String, resource: String, now: WallTime) throws(StoreFailure) -> UInt64 {
        attemptsSincePrune += 1
        let prunes = attemptsSincePrune >= 1000
        if prunes { attemptsSincePrune = 0 }
        return try withConnection { connection throws(PostgresError) in
            if prunes {
                try connection.execute(SQL.pruneAttempts, [.bigint(now.milliseconds - 3_600_000)])
            }
            let rows = try connection.execute(
                SQL.countAttempt, [.utf8(list), .utf8(client), .utf8(resource), .bigint(now.milliseconds)])
            return rows.uint64(0, 0)
        }
    }
}

extension PostgresListTables.SQL {
    static let countAttempt = """
        INSERT INTO fault_attempts (list, client, resource, attempts, touched_at) VALUES ($1, $2, $3, 1, $4)
        ON CONFLICT (list, client, resource)
        DO UPDATE SET attempts = fault_attempts.attempts + 1, touched_at = excluded.touched_at
        RETURNING attempts
        """
    static let pruneAttempts = "DELETE FROM fault_attempts WHERE touched_at < $1"
}
