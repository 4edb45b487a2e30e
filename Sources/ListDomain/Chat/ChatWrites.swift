/// What clients wrote to a dataset's chat (issue 36), laid over its generated one (``ChatCatalog``): messages sent,
/// edited and deleted, and read markers.
///
/// A conversation's messages keep one id sequence: the generated ones `0 ..< count`, then each message sent gets the
/// next id. An edit or a deletion of a generated message is a written message at its id. A deleted message stays in
/// its place as a tombstone (`deleted`, no text), so cursors, windows and the replies that quote it keep working.
/// Copy-on-write dictionaries: a reader's copy of a list costs nothing until a writer changes it.
public struct ChatWrites: Sendable, Equatable {
    /// The written messages of each conversation that has any, by conversation id.
    public private(set) var threads: [UInt64: ThreadWrites] = [:]
    /// Each client's read marker, by conversation and client.
    public private(set) var readMarkers: [ReadMarkerKey: ReadMarker] = [:]
    /// The sequence number of the last chat write (a message or a read marker); 0 for none. Part of the chat's
    /// entity tags.
    public private(set) var revision: UInt64 = 0
    /// About how many bytes of memory the writes hold, for the dataset memory bounds: kept as writes go (O(1)),
    /// since it is asked for under the registry's lock at every install.
    public private(set) var approximateBytes = 0

    public init() {}

    /// The chat as the store loaded it.
    public init(messages: [MessageKey: WrittenMessage], readMarkers: [ReadMarkerKey: ReadMarker]) {
        for (key, message) in messages { put(message, at: key) }
        for (key, marker) in readMarkers { setMarker(marker, at: key) }
    }

    public var isEmpty: Bool { threads.isEmpty && readMarkers.isEmpty }

    /// Message `key`, or nil when it was never written.
    public subscript(key: MessageKey) -> WrittenMessage? {
        threads[key.conversation]?.messages[key.id]
    }

    /// Sets message `key` (sent, edited or deleted).
    public mutating func put(_ message: WrittenMessage, at key: MessageKey) {
        if threads[key.conversation] == nil { approximateBytes += 96 }
        let before = threads[key.conversation]?.approximateBytes ?? 0
        threads[key.conversation, default: ThreadWrites()].put(message, at: key.id)
        approximateBytes += (threads[key.conversation]?.approximateBytes ?? 0) - before
        revision = max(revision, message.revision)
    }

    /// Sets the read marker of `key`.
    public mutating func setMarker(_ marker: ReadMarker, at key: ReadMarkerKey) {
        if readMarkers.updateValue(marker, forKey: key) == nil {
            approximateBytes += 64 + max(0, key.client.utf8.count - 15)
        }
        revision = max(revision, marker.revision)
    }
}

/// One conversation's written messages.
public struct ThreadWrites: Sendable, Equatable {
    /// By id.
    public private(set) var messages: [UInt64: WrittenMessage] = [:]
    /// One past the highest written id: with the generated count, where the conversation ends.
    public private(set) var end: UInt64 = 0
    /// When the newest written message was sent (ms since 1970); nil for none.
    public private(set) var lastSent: Int64?
    /// The sequence number of the conversation's last write.
    public private(set) var revision: UInt64 = 0
    public private(set) var approximateBytes = 0

    mutating func put(_ message: WrittenMessage, at id: UInt64) {
        approximateBytes += message.approximateBytes - (messages[id]?.approximateBytes ?? 0)
        messages[id] = message
        end = max(end, id + 1)
        lastSent = max(lastSent ?? message.sentAt, message.sentAt)
        revision = max(revision, message.revision)
    }

    /// How many messages the conversation has, its generated ones `0 ..< generated` included.
    public func count(generated: UInt64) -> UInt64 { max(generated, end) }
}

/// A message as written: sent by a client, or a generated one edited or deleted.
public struct WrittenMessage: Sendable, Equatable {
    /// Its author, an index into ``AuthorTable/names``.
    public var authorIndex: Int
    /// Empty for a deleted message.
    public var text: String
    /// When it was sent and last edited (ms since 1970).
    public var sentAt: Int64
    public var editedAt: Int64?
    public var replyTo: UInt64?
    public var deleted: Bool
    /// The sequence number of the change that last wrote it (part of its `ETag`).
    public var revision: UInt64

    public init(
        authorIndex: Int, text: String, sentAt: Int64, editedAt: Int64?, replyTo: UInt64?, deleted: Bool,
        revision: UInt64
    ) {
        self.authorIndex = authorIndex
        self.text = text
        self.sentAt = sentAt
        self.editedAt = editedAt
        self.replyTo = replyTo
        self.deleted = deleted
        self.revision = revision
    }

    /// Message `id` of conversation `conversation` as clients see it.
    public func message(_ id: UInt64, in conversation: UInt64) -> Message {
        Message(
            id: id, conversation: conversation, authorIndex: authorIndex, text: text, sentAt: sentAt,
            editedAt: editedAt, replyTo: replyTo, deleted: deleted)
    }

    var approximateBytes: Int { 96 + (text.utf8.count > 15 ? text.utf8.count + 32 : 0) }
}

/// A message of a conversation.
public struct MessageKey: Sendable, Hashable {
    public let conversation: UInt64
    public let id: UInt64

    public init(conversation: UInt64, id: UInt64) {
        self.conversation = conversation
        self.id = id
    }
}

/// One client's place in one conversation.
public struct ReadMarkerKey: Sendable, Hashable {
    public let conversation: UInt64
    /// The client's `X-Client-Id`; "" for a client that sent none.
    public let client: String

    public init(conversation: UInt64, client: String) {
        self.conversation = conversation
        self.client = client
    }
}

/// A client's read marker in a conversation.
public struct ReadMarker: Sendable, Equatable {
    /// The last message the client has read.
    public let upTo: UInt64
    /// The sequence number of the change that set it.
    public let revision: UInt64

    public init(upTo: UInt64, revision: UInt64) {
        self.upTo = upTo
        self.revision = revision
    }
}
