import ListDomain

/// The read paths, as in the SQLite store: the whole state at start, idempotency records by key, an uploaded
/// image, a window of a change feed.
extension PostgresListTables {
    /// The name of every list with a header row.
    func listNames() throws(StoreFailure) -> [String] {
        try withConnection(retrying: true) { connection throws(PostgresError) in
            let rows = try connection.execute(SQL.names)
            return (0..<rows.count).map { rows.text($0, 0) ?? "" }
        }
    }

    /// List `name` with its written items, their images and its deletions (ascending), nil when it has no header
    /// row: its three queries in one snapshot (another server may commit meanwhile).
    func loadList(_ name: String) throws(StoreFailure) -> StoredList? {
        try withConnection(retrying: true) { connection throws(PostgresError) in
            try connection.script(SQL.beginSnapshot)
            let lists = try Self.lists(only: name, on: connection)
            try connection.script("COMMIT")
            return lists[name]
        }
    }

    /// The lists with a header row, or only `name` (then at most one), with their written items, images and
    /// deletions (ascending).
    static func lists(only name: String?, on connection: PostgresConnection) throws(PostgresError)
        -> [String: StoredList]
    {
        let filter: [PostgresValue] = name.map { [.utf8($0)] } ?? []
        var lists: [String: StoredList] = [:]
        let headers = try connection.execute(name == nil ? SQL.headers : SQL.header, filter)
        for row in 0..<headers.count {
            lists[headers.text(row, 0) ?? ""] = StoredList(header: header(in: headers, at: row))
        }
        // Ordered by the unsigned id (the bigint's bits flipped at the top), so deletions come back ascending.
        let items = try connection.execute(name == nil ? SQL.items : SQL.itemsOfList, filter)
        for row in 0..<items.count {
            let name = items.text(row, 0) ?? ""
            // Rows of a list without a header (none are written so) are left out.
            guard lists[name] != nil else { continue }
            let id = items.uint64(row, 1)
            if items.int64(row, 2) != 0 {
                lists[name]?.deleted.append(id)
                continue
            }
            lists[name]?.written[id] = writtenItem(in: items, at: row, from: 3)
        }
        let images = try connection.execute(name == nil ? SQL.imageInfo : SQL.imageInfoOfList, filter)
        for row in 0..<images.count {
            let name = images.text(row, 0) ?? ""
            let id = images.uint64(row, 1)
            // An image always has its item's row (written in the same commit); one without is left out.
            guard lists[name]?.written[id] != nil, let image = storedImage(in: images, at: row, from: 2) else {
                continue
            }
            lists[name]?.written[id]?.image = image
        }
        let messages = try connection.execute(name == nil ? SQL.messages : SQL.messagesOfList, filter)
        for row in 0..<messages.count {
            let (key, message) = writtenMessage(in: messages, at: row, from: 1)
            lists[messages.text(row, 0) ?? ""]?.messages[key] = message
        }
        let markers = try connection.execute(name == nil ? SQL.readMarkers : SQL.readMarkersOfList, filter)
        for row in 0..<markers.count {
            let (key, marker) = readMarker(in: markers, at: row, from: 1)
            lists[markers.text(row, 0) ?? ""]?.readMarkers[key] = marker
        }
        return lists
    }

    /// The message in the 9 columns of `row` from `first` on: conversation, id, author, text, sent at, edited at,
    /// reply to, deleted, revision.
    static func writtenMessage(in rows: PostgresRows, at row: Int, from first: Int) -> (MessageKey, WrittenMessage) {
        let key = MessageKey(conversation: rows.uint64(row, first), id: rows.uint64(row, first + 1))
        let message = WrittenMessage(
            authorIndex: rows.optionalInt(row, first + 2) ?? 0, text: rows.text(row, first + 3) ?? "",
            sentAt: rows.int64(row, first + 4),
            editedAt: rows.isNull(row, first + 5) ? nil : rows.int64(row, first + 5),
            replyTo: rows.optionalUInt64(row, first + 6), deleted: rows.int64(row, first + 7) != 0,
            revision: rows.uint64(row, first + 8))
        return (key, message)
    }

    /// The read marker in the 4 columns of `row` from `first` on: conversation, client, up to, revision.
    static func readMarker(in rows: PostgresRows, at row: Int, from first: Int) -> (ReadMarkerKey, ReadMarker) {
        (
            ReadMarkerKey(conversation: rows.uint64(row, first), client: rows.text(row, first + 1) ?? ""),
            ReadMarker(upTo: rows.uint64(row, first + 2), revision: rows.uint64(row, first + 3))
        )
    }

    /// The header in columns 1...5 of `row` (seed, base count, version, next id, last sequence).
    static func header(in rows: PostgresRows, at row: Int) -> ListHeader {
        ListHeader(
            seed: rows.uint64(row, 1), baseCount: rows.uint64(row, 2), version: rows.uint64(row, 3),
            nextID: rows.uint64(row, 4), lastSequence: rows.uint64(row, 5))
    }

    /// The written item in the 7 columns of `row` from `first` on: label, author, width, height, colour, likes,
    /// revision.
    static func writtenItem(in rows: PostgresRows, at row: Int, from first: Int) -> WrittenItem {
        let overrides = ItemOverrides(
            label: rows.text(row, first), author: rows.text(row, first + 1), width: rows.optionalInt(row, first + 2),
            height: rows.optionalInt(row, first + 3),
            color: rows.optionalInt(row, first + 4).map { UInt32(truncatingIfNeeded: $0) },
            likes: rows.optionalInt(row, first + 5))
        return WrittenItem(overrides: overrides, revision: rows.uint64(row, first + 6))
    }

    /// The uploaded image in the 7 columns of `row` from `first` on: format, width, height, byte count, digest,
    /// revision, BlurHash; nil when there is none (NULL, from a join) or its format is unknown.
    static func storedImage(in rows: PostgresRows, at row: Int, from first: Int) -> StoredImage? {
        guard let format = rows.text(row, first).flatMap(ImageFormat.init(rawValue:)) else { return nil }
        return StoredImage(
            format: format, width: rows.optionalInt(row, first + 1) ?? 0, height: rows.optionalInt(row, first + 2) ?? 0,
            byteCount: rows.optionalInt(row, first + 3) ?? 0,
            digest: UInt128(bigEndianBytes: rows.bytes(row, first + 4)) ?? 0, revision: rows.uint64(row, first + 5),
            blurHash: rows.text(row, first + 6))
    }

    /// The records with these keys created after `now - maxAge`.
    func idempotencyRecords(_ keys: [IdempotencyKey], now: WallTime, maxAge: Duration) throws(StoreFailure)
        -> [IdempotencyKey: IdempotencyRecord]
    {
        let oldest = now.milliseconds - Int64(maxAge.wholeMilliseconds)
        return try withConnection { connection throws(PostgresError) in
            var records: [IdempotencyKey: IdempotencyRecord] = [:]
            for key in keys {
                let rows = try connection.execute(
                    SQL.idempotencyRecord, [.utf8(key.list), .text(key.key), .bigint(oldest)])
                guard rows.count > 0 else { continue }
                records[key] = IdempotencyRecord(
                    fingerprint: rows.bytes(0, 0), answer: rows.bytes(0, 1),
                    createdAt: WallTime(milliseconds: rows.int64(0, 2)))
            }
            return records
        }
    }

    /// The bytes of item `id`'s uploaded image in `list`, if its digest is `digest`.
    func image(of list: String, id: UInt64, digest: UInt128) throws(StoreFailure) -> [UInt8]? {
        try withConnection(retrying: true) { connection throws(PostgresError) in
            let rows = try connection.execute(
                SQL.imageBytes, [.utf8(list), .unsigned(id), .bytea(digest.bigEndianBytes)])
            return rows.count > 0 ? rows.bytes(0, 0) : nil
        }
    }

    /// At most `limit` changes of `list` after `sequence`, oldest first, and the oldest sequence number kept:
    /// both from one snapshot, in one round trip. Read one after the other, another server's commit could prune
    /// changes in between, and the window would start later than the oldest it says is kept: a client would miss
    /// them without being told to reload.
    func changes(of list: String, after sequence: UInt64, limit: Int) throws(StoreFailure) -> ChangeWindow {
        try withConnection(retrying: true) { connection throws(PostgresError) in
            var window = ChangeWindow(changes: [], oldestKept: nil)
            let results = try connection.pipeline([
                .init(SQL.beginSnapshot), .init(SQL.oldestChange, [.utf8(list)]),
                .init(SQL.changes, [.utf8(list), .unsigned(sequence), .int(max(limit, 0))]), .init("COMMIT"),
            ])
            let oldest = results[1]
            if oldest.count > 0 { window.oldestKept = oldest.optionalUInt64(0, 0) }
            guard limit > 0 else { return window }
            let rows = results[2]
            for row in 0..<rows.count { window.changes.append(try Self.change(in: rows, at: row)) }
            return window
        }
    }

    /// The change in row `row` of ``SQL/changes`` (or of ``SQL/changesAndDrops``: the same first 13 columns);
    /// the chat's 7 columns (conversation, author, text, sent at, edited at, reply to, client) from `chat` on.
    static func change(in rows: PostgresRows, at row: Int, chat: Int = 13) throws(PostgresError) -> Change {
        let sequence = rows.uint64(row, 0)
        let event: ChangeEvent
        switch rows.text(row, 1) {
        case "created", "updated":
            let item = Item(
                id: rows.uint64(row, 2), label: rows.text(row, 3) ?? "", author: rows.text(row, 4) ?? "",
                width: rows.optionalInt(row, 5) ?? 0, height: rows.optionalInt(row, 6) ?? 0,
                color: rows.text(row, 7) ?? "", blurHash: rows.text(row, 12), likes: rows.optionalInt(row, 8) ?? 0)
            event = rows.text(row, 1) == "created" ? .created(item) : .updated(item)
        case "deleted":
            event = .deleted(rows.uint64(row, 2))
        case "reset":
            event = .reset(
                ListReset(version: rows.uint64(row, 9), seed: rows.uint64(row, 10), count: rows.uint64(row, 11)))
        case "message.created", "message.updated", "message.deleted":
            let kind: MessageChange.Kind =
                switch rows.text(row, 1) {
                case "message.created": .created
                case "message.updated": .updated
                default: .deleted
                }
            let message = Message(
                id: rows.uint64(row, 2), conversation: rows.uint64(row, chat),
                authorIndex: rows.optionalInt(row, chat + 1) ?? 0, text: rows.text(row, chat + 2) ?? "",
                sentAt: rows.int64(row, chat + 3),
                editedAt: rows.isNull(row, chat + 4) ? nil : rows.int64(row, chat + 4),
                replyTo: rows.optionalUInt64(row, chat + 5), deleted: kind == .deleted)
            event = .message(MessageChange(kind: kind, message: message))
        case "read":
            let key = ReadMarkerKey(conversation: rows.uint64(row, chat), client: rows.text(row, chat + 6) ?? "")
            event = .read(ReadChange(key: key, upTo: rows.uint64(row, 2)))
        case "conversation.updated":
            event = .conversation(
                ConversationChange(
                    id: rows.uint64(row, chat), updatedAt: rows.int64(row, chat + 3), messageCount: rows.uint64(row, 2))
            )
        case let kind:
            throw PostgresError("change \(sequence) has an unknown kind \(kind ?? "NULL")", sqlState: "XX001")
        }
        return Change(sequence: sequence, event: event)
    }
}

extension PostgresListTables.SQL {
    /// A read-only transaction whose statements all see one snapshot.
    static let beginSnapshot = "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"
    static let names = "SELECT name FROM lists"
    static let headers = "SELECT name, seed, base_count, version, next_id, last_sequence FROM lists"
    static let header = "SELECT name, seed, base_count, version, next_id, last_sequence FROM lists WHERE name = $1"
    // `id # x'8000000000000000'::bigint` (the top bit flipped) orders bigints as the UInt64s they hold.
    static let items = """
        SELECT list, id, deleted::int::bigint, label, author, width, height, color, likes, revision
        FROM items ORDER BY list, id # (-9223372036854775808)::bigint
        """
    static let itemsOfList = """
        SELECT list, id, deleted::int::bigint, label, author, width, height, color, likes, revision
        FROM items WHERE list = $1 ORDER BY id # (-9223372036854775808)::bigint
        """
    static let imageInfoOfList = """
        SELECT list, id, format, width, height, byte_count, digest, revision, blur_hash FROM images WHERE list = $1
        """
    static let idempotencyRecord = """
        SELECT fingerprint, answer, created_at FROM idempotency WHERE list = $1 AND key = $2 AND created_at > $3
        """
    static let imageInfo = """
        SELECT list, id, format, width, height, byte_count, digest, revision, blur_hash FROM images
        """
    static let imageBytes = "SELECT bytes FROM images WHERE list = $1 AND id = $2 AND digest = $3"
    static let oldestChange = "SELECT min(sequence) FROM changes WHERE list = $1"
    static let changes = """
        SELECT sequence, kind, item_id, label, author, width, height, color, likes, version, seed, count, blur_hash,
            conversation, author_id, text, sent_at, edited_at, reply_to, client
        FROM changes WHERE list = $1 AND sequence > $2 ORDER BY sequence LIMIT $3
        """
    static let messageColumns = """
        list, conversation, id, author_id, text, sent_at, edited_at, reply_to, deleted::int::bigint, revision
        """
    static let messages = "SELECT \(messageColumns) FROM messages"
    static let messagesOfList = "SELECT \(messageColumns) FROM messages WHERE list = $1"
    static let readMarkers = "SELECT list, conversation, client, up_to, revision FROM read_markers"
    static let readMarkersOfList =
        "SELECT list, conversation, client, up_to, revision FROM read_markers WHERE list = $1"
    static let changedMessages = "SELECT \(messageColumns) FROM messages WHERE list = $1 AND changed_at > $2"
    static let changedReadMarkers = """
        SELECT list, conversation, client, up_to, revision FROM read_markers WHERE list = $1 AND changed_at > $2
        """
}
