import CSQLite
import ListDomain

/// The read paths: the names of the lists at start, a list on its first use, idempotency records by key, an
/// uploaded image, a window of a change feed.
extension SQLiteListTables {
    /// The name of every list with a header row.
    func listNames() throws(StoreFailure) -> [String] {
        do throws(SQLiteError) {
            return try connection.withStatement(SQL.names) { statement throws(SQLiteError) in
                var names: [String] = []
                while try statement.step() { names.append(statement.text(at: 0) ?? "") }
                return names
            }
        } catch {
            throw error.storeFailure
        }
    }

    /// List `name` with its written items (and their images) and its deletions (ascending); nil when it has no
    /// header row.
    ///
    /// Three queries, each a range of a primary key: the header, the list's item rows in id order (the order the
    /// `WITHOUT ROWID` table stores them in, so 100,000 deletions come back without a sort), its images.
    func loadList(_ listName: String) throws(StoreFailure) -> StoredList? {
        do throws(SQLiteError) {
            var lists: [String: StoredList] = [:]
            try connection.withStatement(SQL.header) { statement throws(SQLiteError) in
                try statement.bind(listName, at: 1)
                while try statement.step() {
                    let header = ListHeader(
                        seed: statement.uint64(at: 1), baseCount: statement.uint64(at: 2),
                        version: statement.uint64(at: 3), nextID: statement.uint64(at: 4),
                        lastSequence: statement.uint64(at: 5))
                    lists[statement.text(at: 0) ?? ""] = StoredList(header: header)
                }
            }
            guard lists[listName] != nil else { return nil }
            try connection.withStatement(SQL.itemsOfList) { statement throws(SQLiteError) in
                try statement.bind(listName, at: 1)
                var name = ""
                var current: StoredList?
                while try statement.step() {
                    let rowName = statement.text(at: 0) ?? ""
                    if rowName != name || current == nil {
                        if let finished = current { lists[name] = Self.sorted(finished) }
                        name = rowName
                        current = lists.removeValue(forKey: name)  // no second owner of its arrays
                    }
                    // Rows of a list without a header (none are written so) are left out.
                    guard current != nil else { continue }
                    let id = statement.uint64(at: 1)
                    if statement.int64(at: 2) != 0 {
                        current?.deleted.append(id)
                        continue
                    }
                    let overrides = ItemOverrides(
                        label: statement.text(at: 3), author: statement.text(at: 4),
                        width: statement.optionalInt(at: 5), height: statement.optionalInt(at: 6),
                        color: statement.optionalInt(at: 7).map { UInt32(truncatingIfNeeded: $0) },
                        likes: statement.optionalInt(at: 8))
                    current?.written[id] = WrittenItem(overrides: overrides, revision: statement.uint64(at: 9))
                }
                if let finished = current { lists[name] = Self.sorted(finished) }
            }
            try connection.withStatement(SQL.imageInfoOfList) { statement throws(SQLiteError) in
                try statement.bind(listName, at: 1)
                while try statement.step() {
                    let name = statement.text(at: 0) ?? ""
                    let id = statement.uint64(at: 1)
                    // An image always has its item's row (written in the same commit); one without is left out.
                    guard lists[name]?.written[id] != nil,
                        let format = statement.text(at: 2).flatMap(ImageFormat.init(rawValue:))
                    else { continue }
                    lists[name]?.written[id]?.image = StoredImage(
                        format: format, width: statement.optionalInt(at: 3) ?? 0,
                        height: statement.optionalInt(at: 4) ?? 0, byteCount: statement.optionalInt(at: 5) ?? 0,
                        digest: UInt128(bigEndianBytes: statement.blob(at: 6)) ?? 0, revision: statement.uint64(at: 7),
                        blurHash: statement.text(at: 8))
                }
            }
            guard var list = lists[listName] else { return nil }
            try loadChat(of: listName, into: &list)
            return list
        } catch {
            throw error.storeFailure
        }
    }

    /// Reads list `name`'s chat writes (messages and read markers) into `list`.
    private func loadChat(of name: String, into list: inout StoredList) throws(SQLiteError) {
        try connection.withStatement(SQL.messagesOfList) { statement throws(SQLiteError) in
            try statement.bind(name, at: 1)
            while try statement.step() {
                let key = MessageKey(conversation: statement.uint64(at: 0), id: statement.uint64(at: 1))
                list.messages[key] = WrittenMessage(
                    authorIndex: statement.optionalInt(at: 2) ?? 0, text: statement.text(at: 3) ?? "",
                    sentAt: statement.int64(at: 4), editedAt: statement.isNull(at: 5) ? nil : statement.int64(at: 5),
                    replyTo: statement.isNull(at: 6) ? nil : statement.uint64(at: 6),
                    deleted: statement.int64(at: 7) != 0, revision: statement.uint64(at: 8))
            }
        }
        try connection.withStatement(SQL.readMarkersOfList) { statement throws(SQLiteError) in
            try statement.bind(name, at: 1)
            while try statement.step() {
                let key = ReadMarkerKey(conversation: statement.uint64(at: 0), client: statement.text(at: 1) ?? "")
                list.readMarkers[key] = ReadMarker(upTo: statement.uint64(at: 2), revision: statement.uint64(at: 3))
            }
        }
    }

    /// The records with these keys created after `now - maxAge`.
    func idempotencyRecords(_ keys: [IdempotencyKey], now: WallTime, maxAge: Duration) throws(StoreFailure)
        -> [IdempotencyKey: IdempotencyRecord]
    {
        let oldest = now.milliseconds - Int64(maxAge.wholeMilliseconds)
        var records: [IdempotencyKey: IdempotencyRecord] = [:]
        do throws(SQLiteError) {
            for key in keys {
                try connection.withStatement(SQL.idempotencyRecord) { statement throws(SQLiteError) in
                    try statement.bind(key.list, at: 1)
                    try statement.bind(key.key, at: 2)
                    try statement.bind(oldest, at: 3)
                    guard try statement.step() else { return }
                    records[key] = IdempotencyRecord(
                        fingerprint: statement.blob(at: 0), answer: statement.blob(at: 1),
                        createdAt: WallTime(milliseconds: statement.int64(at: 2)))
                }
            }
        } catch {
            throw error.storeFailure
        }
        return records
    }

    /// The bytes of item `id`'s uploaded image in `list`, if its digest is `digest`.
    func image(of list: String, id: UInt64, digest: UInt128) throws(StoreFailure) -> [UInt8]? {
        do throws(SQLiteError) {
            return try connection.withStatement(SQL.imageBytes) { statement throws(SQLiteError) in
                try statement.bind(list, at: 1)
                try statement.bind(id, at: 2)
                try statement.bind(digest.bigEndianBytes, at: 3)
                return try statement.step() ? statement.blob(at: 0) : nil
            }
        } catch {
            throw error.storeFailure
        }
    }

    /// At most `limit` changes of `list` after `sequence`, oldest first, and the oldest sequence number kept.
    func changes(of list: String, after sequence: UInt64, limit: Int) throws(StoreFailure) -> ChangeWindow {
        do throws(SQLiteError) {
            var window = ChangeWindow(changes: [], oldestKept: nil)
            try connection.withStatement(SQL.oldestChange) { statement throws(SQLiteError) in
                try statement.bind(list, at: 1)
                if try statement.step(), !statement.isNull(at: 0) { window.oldestKept = statement.uint64(at: 0) }
            }
            // LIMIT -1 would mean no limit at all.
            guard limit > 0 else { return window }
            try connection.withStatement(SQL.changes) { statement throws(SQLiteError) in
                try statement.bind(list, at: 1)
                try statement.bind(sequence, at: 2)
                try statement.bind(Int64(limit), at: 3)
                while try statement.step() { window.changes.append(try Self.change(in: statement)) }
            }
            return window
        } catch {
            throw error.storeFailure
        }
    }

    /// The change in the current row of ``SQL/changes``.
    private static func change(in row: SQLiteStatement) throws(SQLiteError) -> Change {
        let sequence = row.uint64(at: 0)
        let event: ChangeEvent
        switch row.text(at: 1) {
        case "created", "updated":
            let item = Item(
                id: row.uint64(at: 2), label: row.text(at: 3) ?? "", author: row.text(at: 4) ?? "",
                width: row.optionalInt(at: 5) ?? 0, height: row.optionalInt(at: 6) ?? 0,
                color: row.text(at: 7) ?? "", blurHash: row.text(at: 12), likes: row.optionalInt(at: 8) ?? 0)
            event = row.text(at: 1) == "created" ? .created(item) : .updated(item)
        case "deleted":
            event = .deleted(row.uint64(at: 2))
        case "reset":
            event = .reset(ListReset(version: row.uint64(at: 9), seed: row.uint64(at: 10), count: row.uint64(at: 11)))
        case "message.created", "message.updated", "message.deleted":
            let kind: MessageChange.Kind =
                switch row.text(at: 1) {
                case "message.created": .created
                case "message.updated": .updated
                default: .deleted
                }
            let message = Message(
                id: row.uint64(at: 2), conversation: row.uint64(at: 13), authorIndex: row.optionalInt(at: 14) ?? 0,
                text: row.text(at: 15) ?? "", sentAt: row.int64(at: 16),
                editedAt: row.isNull(at: 17) ? nil : row.int64(at: 17),
                replyTo: row.isNull(at: 18) ? nil : row.uint64(at: 18), deleted: kind == .deleted)
            event = .message(MessageChange(kind: kind, message: message))
        case "read":
            let key = ReadMarkerKey(conversation: row.uint64(at: 13), client: row.text(at: 19) ?? "")
            event = .read(ReadChange(key: key, upTo: row.uint64(at: 2)))
        case "conversation.updated":
            event = .conversation(
                ConversationChange(
                    id: row.uint64(at: 13), updatedAt: row.int64(at: 16), messageCount: row.uint64(at: 2)))
        case let kind:
            throw SQLiteError(
                code: SQLITE_CORRUPT, message: "change \(sequence) has an unknown kind \(kind ?? "NULL")",
                context: row.sql)
        }
        return Change(sequence: sequence, event: event)
    }

    /// `list` with its deleted ids in ascending `UInt64` order: SQLite ordered them as signed numbers, which puts
    /// ids from 2^63 up (negative as `Int64`) first. They never get that large (see ``SQLiteSchema``); this keeps
    /// the order right if they ever do.
    private static func sorted(_ list: StoredList) -> StoredList {
        guard let first = list.deleted.first, first >= 1 << 63,
            let small = list.deleted.firstIndex(where: { $0 < 1 << 63 })
        else { return list }
        var sorted = list
        sorted.deleted = Array(list.deleted[small...] + list.deleted[..<small])
        return sorted
    }
}

extension SQLiteListTables.SQL {
    static let names: StaticString = "SELECT name FROM lists"
    static let header: StaticString = """
        SELECT name, seed, base_count, version, next_id, last_sequence FROM lists WHERE name = ?1
        """
    static let itemsOfList: StaticString = """
        SELECT list, id, deleted, label, author, width, height, color, likes, revision
        FROM items WHERE list = ?1 ORDER BY id
        """
    static let idempotencyRecord: StaticString = """
        SELECT fingerprint, answer, created_at FROM idempotency WHERE list = ?1 AND key = ?2 AND created_at > ?3
        """
    static let imageInfoOfList: StaticString = """
        SELECT list, id, format, width, height, byte_count, digest, revision, blur_hash FROM images WHERE list = ?1
        """
    static let imageBytes: StaticString = "SELECT bytes FROM images WHERE list = ?1 AND id = ?2 AND digest = ?3"
    static let oldestChange: StaticString = "SELECT min(sequence) FROM changes WHERE list = ?1"
    static let changes: StaticString = """
        SELECT sequence, kind, item_id, label, author, width, height, color, likes, version, seed, count, blur_hash,
            conversation, author_id, text, sent_at, edited_at, reply_to, client
        FROM changes WHERE list = ?1 AND sequence > ?2 ORDER BY sequence LIMIT ?3
        """
    static let messagesOfList: StaticString = """
        SELECT conversation, id, author_id, text, sent_at, edited_at, reply_to, deleted, revision
        FROM messages WHERE list = ?1
        """
    static let readMarkersOfList: StaticString = """
        SELECT conversation, client, up_to, revision FROM read_markers WHERE list = ?1
        """
}
