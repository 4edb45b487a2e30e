/// One entry of a list's change feed: what happened, under the next change sequence number.
///
/// Every write (`POST`, `PATCH`, `DELETE`), every item the list grows by on its timer, and every reset is a change.
/// Sequence numbers start at 1 in each list and grow by one per change; they are never reused while the list
/// exists (a reset is itself a change), so a client that has seen change S asks for what came after S.
public struct Change: Sendable, Equatable {
    /// The change's sequence number in its list.
    public let sequence: UInt64
    /// What happened.
    public let event: ChangeEvent

    public init(sequence: UInt64, event: ChangeEvent) {
        self.sequence = sequence
        self.event = event
    }
}

extension Change {
    /// About how many bytes of memory the change holds: its own and its item's text beyond what a string keeps
    /// inline (15 bytes), for the feed's bound on its windows.
    var approximateBytes: Int {
        switch event {
        case .created(let item), .updated(let item):
            MemoryLayout<Change>.stride + Self.heapBytes(item.label) + Self.heapBytes(item.author)
        case .deleted, .reset:
            MemoryLayout<Change>.stride
        case .message(let change):
            MemoryLayout<Change>.stride + 64 + Self.heapBytes(change.message.text)
        case .read(let read):
            MemoryLayout<Change>.stride + 32 + Self.heapBytes(read.key.client)
        case .conversation:
            MemoryLayout<Change>.stride
        }
    }

    private static func heapBytes(_ text: String) -> Int {
        let count = text.utf8.count
        return count > 15 ? count + 32 : 0
    }
}

/// What a change did.
public enum ChangeEvent: Sendable, Equatable {
    /// An item was added at the end (by `POST /items` or by growth): the item as it then was.
    case created(Item)
    /// An item's fields were changed: the item as it then was.
    case updated(Item)
    /// The item with this id was deleted.
    case deleted(UInt64)
    /// The list started over: every write dropped, the list back to its generated items.
    case reset(ListReset)
    /// A chat message was sent, edited or deleted (issue 36): the message as it then was.
    case message(MessageChange)
    /// A client set its read marker in a conversation.
    case read(ReadChange)
    /// A conversation's last activity moved (a message was sent to it): it is at the top of the conversations now.
    case conversation(ConversationChange)

    /// The name clients see: `created`, `updated`, `deleted`, `reset`, `message.created`, `message.updated`,
    /// `message.deleted`, `read` or `conversation.updated`.
    public var kind: String { kindName.description }

    /// The id of the item it is about; nil for a reset and the chat's changes.
    public var itemID: UInt64? {
        switch self {
        case .created(let item), .updated(let item): item.id
        case .deleted(let id): id
        case .reset, .message, .read, .conversation: nil
        }
    }

    /// Whether a stream of the chat (`/conversations/events`) carries it: the chat's changes, and a reset (the
    /// dataset started over: the chat too).
    public var isChat: Bool {
        switch self {
        case .created, .updated, .deleted: false
        case .reset, .message, .read, .conversation: true
        }
    }

    /// ``kind`` as a literal (the store binds it without a copy).
    public var kindName: StaticString {
        switch self {
        case .created: "created"
        case .updated: "updated"
        case .deleted: "deleted"
        case .reset: "reset"
        case .message(let change):
            switch change.kind {
            case .created: "message.created"
            case .updated: "message.updated"
            case .deleted: "message.deleted"
            }
        case .read: "read"
        case .conversation: "conversation.updated"
        }
    }
}

/// A chat message sent, edited or deleted.
public struct MessageChange: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        case created, updated, deleted
    }

    public let kind: Kind
    /// The message after the change (a tombstone after a deletion).
    public let message: Message

    public init(kind: Kind, message: Message) {
        self.kind = kind
        self.message = message
    }
}

/// A conversation that moved up: when its last message was sent, and how many messages it has now.
public struct ConversationChange: Sendable, Equatable {
    public let id: UInt64
    /// Milliseconds since 1970.
    public let updatedAt: Int64
    public let messageCount: UInt64

    public init(id: UInt64, updatedAt: Int64, messageCount: UInt64) {
        self.id = id
        self.updatedAt = updatedAt
        self.messageCount = messageCount
    }
}

/// A read marker set.
public struct ReadChange: Sendable, Equatable {
    public let key: ReadMarkerKey
    public let upTo: UInt64

    public init(key: ReadMarkerKey, upTo: UInt64) {
        self.key = key
        self.upTo = upTo
    }
}

/// What a list looks like right after a reset.
public struct ListReset: Sendable, Equatable {
    /// The list's version after the reset.
    public let version: UInt64
    /// The seed it is generated from after the reset.
    public let seed: UInt64
    /// The number of items after the reset.
    public let count: UInt64

    public init(version: UInt64, seed: UInt64, count: UInt64) {
        self.version = version
        self.seed = seed
        self.count = count
    }
}
