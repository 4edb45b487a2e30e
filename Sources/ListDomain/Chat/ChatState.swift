/// A dataset's chat as clients see it: the generated one (``ChatCatalog``) with what clients wrote laid over it
/// (``ChatWrites``).
///
/// A conversation with a message sent to it moves up the list: its last activity is that message's `sent_at`. The
/// conversations list merges those (few) with the generated order, which falls strictly with the id, so a page is
/// still O(limit + written conversations).
public struct ChatState: Sendable {
    public let catalog: ChatCatalog
    public let writes: ChatWrites

    public init(catalog: ChatCatalog, writes: ChatWrites) {
        self.catalog = catalog
        self.writes = writes
    }

    /// How many messages conversation `conversation` has, sent ones included.
    public func messageCount(of conversation: UInt64) -> UInt64 {
        let generated = catalog.messageCount(of: conversation)
        return writes.threads[conversation]?.count(generated: generated) ?? generated
    }

    /// When conversation `conversation`'s last message was sent.
    public func lastActivity(of conversation: UInt64) -> Int64 {
        let generated = catalog.lastActivity(of: conversation)
        return max(generated, writes.threads[conversation]?.lastSent ?? generated)
    }

    /// Message `id` of conversation `conversation` as it stands (a tombstone if deleted), or nil past the end.
    public func message(_ id: UInt64, in conversation: UInt64) -> Message? {
        if let written = writes[MessageKey(conversation: conversation, id: id)] {
            return written.message(id, in: conversation)
        }
        if let generated = catalog.message(id, in: conversation) { return generated }
        return gap(id, in: conversation)
    }

    /// Message `id` when it is neither generated nor written but below the conversation's count: messages were
    /// sent under a larger `chat.messages_per_conversation` than the catalog's now, and the ids between its end and
    /// theirs stand as tombstones (sent when the generated conversation ended), so every id of a page is a message.
    public func gap(_ id: UInt64, in conversation: UInt64) -> Message? {
        guard conversation < catalog.conversationCount, id < messageCount(of: conversation) else { return nil }
        return Message(
            id: id, conversation: conversation, authorIndex: catalog.participants(of: conversation)[0], text: "",
            sentAt: catalog.lastActivity(of: conversation), editedAt: nil, replyTo: nil, deleted: true)
    }

    /// The revision of message `id` (0 for a generated one nobody wrote): part of its `ETag`.
    public func revision(of id: UInt64, in conversation: UInt64) -> UInt64 {
        writes[MessageKey(conversation: conversation, id: id)]?.revision ?? 0
    }

    /// The last message `client` read in `conversation`, if it said (`POST /conversations/<id>/read`).
    public func readMarker(of client: String, in conversation: UInt64) -> UInt64? {
        writes.readMarkers[ReadMarkerKey(conversation: conversation, client: client)]?.upTo
    }

    /// How many of `conversation`'s messages `client` has not read: the generated ones after its read marker, or
    /// with none the generated count. The messages sent through the API are the app's user's own, never unread.
    public func unread(of conversation: UInt64, for client: String) -> UInt64 {
        guard let marker = readMarker(of: client, in: conversation) else { return catalog.unread(of: conversation) }
        let generated = catalog.messageCount(of: conversation)
        return generated - min(generated, marker + 1)
    }

    /// Conversation `id` as `client` sees it (its unread count), or nil past the end.
    public func conversation(_ id: UInt64, for client: String) -> Conversation? {
        guard id < catalog.conversationCount else { return nil }
        guard writes.threads[id] != nil || !writes.readMarkers.isEmpty else { return catalog.conversation(id) }
        let participants = catalog.participants(of: id)
        let count = messageCount(of: id)
        return Conversation(
            id: id, title: catalog.title(of: id, participants: participants), participants: participants,
            messageCount: count, unread: unread(of: id, for: client), updatedAt: lastActivity(of: id),
            lastMessage: message(count - 1, in: id))
    }

    /// The key conversation `id` is ordered by.
    public func key(of id: UInt64) -> ConversationCursor {
        ConversationCursor(updatedAt: lastActivity(of: id), id: id)
    }

    /// The conversations after `cursor` (nil: from the newest), newest first, at most `limit`, and whether more
    /// follow (``ChatCatalog/conversations(after:limit:)``'s rules, with the conversations messages were sent to in
    /// their new places).
    public func conversations(after cursor: ConversationCursor?, limit: UInt64) -> (ids: [UInt64], hasMore: Bool) {
        // The moved ones: those whose last activity is a sent message's, in list order.
        let movedIDs = Set(
            writes.threads.keys.filter {
                $0 < catalog.conversationCount && lastActivity(of: $0) != catalog.lastActivity(of: $0)
            })
        guard !movedIDs.isEmpty else {
            let page = catalog.conversations(after: cursor, limit: limit)
            return (Array(page.ids), page.hasMore)
        }
        let moved = movedIDs.map { key(of: $0) }
            .filter { key in cursor.map { key.comes(after: $0) } ?? true }
            .sorted { $1.comes(after: $0) }
        var generated = catalog.conversations(after: cursor, limit: 0).ids.lowerBound
        var nextMoved = 0
        var ids: [UInt64] = []
        func skipMoved() {
            while generated < catalog.conversationCount && movedIDs.contains(generated) { generated += 1 }
        }
        skipMoved()
        while UInt64(ids.count) < limit {
            let haveGenerated = generated < catalog.conversationCount
            guard haveGenerated || nextMoved < moved.count else { break }
            if nextMoved < moved.count
                && (!haveGenerated || !moved[nextMoved].comes(after: catalog.key(of: generated)))
            {
                ids.append(moved[nextMoved].id)
                nextMoved += 1
            } else {
                ids.append(generated)
                generated += 1
                skipMoved()
            }
        }
        return (ids, nextMoved < moved.count || generated < catalog.conversationCount)
    }
}

extension ChatCatalog {
    /// The generated key of conversation `id`.
    func key(of id: UInt64) -> ConversationCursor {
        ConversationCursor(updatedAt: lastActivity(of: id), id: id)
    }
}
