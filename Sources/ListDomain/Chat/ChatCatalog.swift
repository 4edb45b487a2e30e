/// The generated conversations and messages of one dataset (issue 36): what a chat app's two lists show, derived
/// from `(seed, conversation, message)` alone, so any message at any depth costs what the first does and a page of
/// L messages is O(L).
///
/// - Conversations `0 ..< conversationCount`, ordered by last activity, newest first: conversation 0 is the most
///   recent, each next one at least 7 minutes older (47 minutes apart, less up to 40 minutes of jitter).
/// - A conversation has 2 to 6 participants from ``AuthorTable`` (a pair is titled by the other person's name, a
///   group by a generated name) and ``messageCount(of:)`` messages: conversation 0 has
///   `messagesPerConversation`, others that, a half or a quarter (at least one).
/// - Messages `0 ..< count` are in the order they were sent. Each has an author among the participants, a text of
///   varied length (``ChatText``), a `sent_at` (at most 90 s apart, less for conversations so long that 90 s would
///   reach back more than two years; at least 1 ms), sometimes an `edited_at` (1 in 15), and about 1 in 10 answers
///   an earlier message of the same conversation (`reply_to`): mostly one of the last 20, sometimes one of the last
///   1,000, sometimes any.
///
/// Only integer arithmetic and fixed tables are involved, so every machine derives the same data. The salts, the
/// constants and the tables are part of the data format.
public struct ChatCatalog: Sendable, Equatable {
    /// The dataset's seed (the one its items are generated from).
    public let seed: UInt64
    /// How many conversations there are.
    public let conversationCount: UInt64
    /// How many messages the longest conversation (conversation 0) has.
    public let messagesPerConversation: UInt64

    /// The most conversations a dataset may have.
    public static let maximumConversations: UInt64 = 100_000
    /// The most messages a conversation may have: 2^40.
    public static let maximumMessages: UInt64 = 1 << 40

    /// When the newest conversation's last message was sent, in milliseconds since 1970 (2026-09-21T14:13:20Z): a
    /// fixed instant, so the data does not depend on the clock.
    public static let latestMillis: Int64 = 1_790_000_000_000

    /// The catalog of `shape` for `seed`.
    public init(seed: UInt64, shape: Shape) {
        self.init(
            seed: seed, conversations: shape.conversations, messagesPerConversation: shape.messagesPerConversation)
    }

    /// What the chat settings make of every dataset's chat: how many conversations, how long.
    public struct Shape: Sendable, Equatable {
        public let conversations: UInt64
        public let messagesPerConversation: UInt64

        public init(conversations: UInt64, messagesPerConversation: UInt64) {
            self.conversations = conversations
            self.messagesPerConversation = messagesPerConversation
        }
    }

    public init(seed: UInt64, conversations: UInt64, messagesPerConversation: UInt64) {
        self.seed = seed
        conversationCount = min(conversations, Self.maximumConversations)
        self.messagesPerConversation = max(1, min(messagesPerConversation, Self.maximumMessages))
    }

    /// Per-field salts (the field's name in ASCII).
    enum Salt: UInt64 {
        case participants = 0x7061_7274_73  // "parts"
        case title = 0x7469_746C_65  // "title"
        case length = 0x6C65_6E67_7468  // "length"
        case activity = 0x6163_7469_76  // "activ"
        case unread = 0x756E_7265_6164  // "unread"
        case author = 0x6D61_7574_686F_72  // "mauthor"
        case jitter = 0x6A69_7474_6572  // "jitter"
        case edited = 0x6564_6974_6564  // "edited"
        case reply = 0x7265_706C_79  // "reply"
    }

    /// The 64-bit hash of field `salt` of `index` (a conversation, or a message's place) under this seed.
    @inline(__always)
    func hash(_ salt: Salt, _ index: UInt64) -> UInt64 {
        SplitMix64.output(seed: SplitMix64.mix(seed ^ salt.rawValue), index: index)
    }

    /// The message hash of field `salt` of message `message` of conversation `conversation`.
    @inline(__always)
    func hash(_ salt: Salt, _ conversation: UInt64, _ message: UInt64) -> UInt64 {
        SplitMix64.output(seed: messageSeed(salt, conversation), index: message)
    }

    /// The seed of the message hashes of field `salt` of conversation `conversation`: the same for all its messages.
    @inline(__always)
    func messageSeed(_ salt: Salt, _ conversation: UInt64) -> UInt64 {
        SplitMix64.mix(seed ^ salt.rawValue ^ (conversation &* SplitMix64.gamma))
    }

    // MARK: Conversations

    /// How many messages conversation `conversation` has.
    public func messageCount(of conversation: UInt64) -> UInt64 {
        guard conversation > 0 else { return messagesPerConversation }
        return max(1, messagesPerConversation >> (hash(.length, conversation) % 3))
    }

    /// The participants of conversation `conversation`: 2 to 6 distinct indexes into ``AuthorTable/names``.
    public func participants(of conversation: UInt64) -> [Int] {
        let bits = hash(.participants, conversation)
        let count = 2 + Int(bits % 5)
        let first = Int((bits >> 8) & 63)
        let step = Int((bits >> 16) & 31) * 2 + 1  // odd, so the walk meets every name once before it repeats
        return (0..<count).map { (first + $0 * step) & 63 }
    }

    /// The title of conversation `conversation`: the other person's name for two (the first participant is the
    /// app's user), a generated group name for more.
    public func title(of conversation: UInt64, participants: [Int]) -> String {
        guard participants.count > 2 else { return AuthorTable.names[participants[participants.count - 1]] }
        let bits = hash(.title, conversation)
        let adjective = ChatText.groupAdjectives[Int(bits % UInt64(ChatText.groupAdjectives.count))]
        let noun = ChatText.groupNouns[Int((bits >> 16) % UInt64(ChatText.groupNouns.count))]
        return adjective + " " + noun
    }

    /// When the last message of conversation `conversation` was sent (milliseconds since 1970): strictly earlier for
    /// each next conversation.
    public func lastActivity(of conversation: UInt64) -> Int64 {
        let jitter = Int64(hash(.activity, conversation) % 2_400_000)  // under 40 minutes
        return Self.latestMillis - Int64(conversation) * 2_820_000 - jitter  // 47 minutes apart
    }

    /// How many of conversation `conversation`'s messages the app's user has not read (generated: most none).
    public func unread(of conversation: UInt64) -> UInt64 {
        let bits = hash(.unread, conversation)
        guard bits % 4 == 0 else { return 0 }
        return min(messageCount(of: conversation), 1 + (bits >> 8) % 30)
    }

    /// Conversation `id`, or nil past the end.
    public func conversation(_ id: UInt64) -> Conversation? {
        guard id < conversationCount else { return nil }
        let participants = participants(of: id)
        let count = messageCount(of: id)
        return Conversation(
            id: id, title: title(of: id, participants: participants), participants: participants,
            messageCount: count, unread: unread(of: id), updatedAt: lastActivity(of: id),
            lastMessage: message(count - 1, in: id))
    }

    /// The conversations after `cursor` (nil: from the newest), newest first, at most `limit`: the page, and whether
    /// more follow. A cursor names the last conversation a client has (its last activity and id), so a
    /// conversation that moves to the top meanwhile is neither repeated nor makes the client skip another.
    public func conversations(after cursor: ConversationCursor?, limit: UInt64) -> (ids: Range<UInt64>, hasMore: Bool) {
        // Last activity falls strictly with the id, so "after (t, i)" is a suffix of the ids: the first id whose key
        // comes after the cursor, found by bisection.
        var low: UInt64 = 0
        var high = conversationCount
        if let cursor {
            while low < high {
                let middle = low + (high - low) / 2
                let key = ConversationCursor(updatedAt: lastActivity(of: middle), id: middle)
                if key.comes(after: cursor) { high = middle } else { low = middle + 1 }
            }
        }
        let end = low + min(limit, conversationCount - low)
        return (low..<end, end < conversationCount)
    }

    // MARK: Messages

    /// The time between messages of conversation `conversation` (milliseconds): 90 s, or less so that the
    /// conversation reaches back at most about two years; at least 1 ms.
    func step(of conversation: UInt64) -> Int64 {
        let count = messageCount(of: conversation)
        return max(1, min(90_000, 63_072_000_000 / Int64(count)))
    }

    /// Message `id` of conversation `conversation`, or nil when either is past its end.
    public func message(_ id: UInt64, in conversation: UInt64) -> Message? {
        guard conversation < conversationCount, let fields = thread(conversation).fields(of: id) else { return nil }
        return Message(
            id: id, conversation: conversation, authorIndex: fields.authorIndex,
            text: ChatText.text(seed: seed, conversation: conversation, message: id), sentAt: fields.sentAt,
            editedAt: fields.editedAt, replyTo: fields.replyTo)
    }

    /// What every message of conversation `conversation` shares, worked out once for a page of them.
    public func thread(_ conversation: UInt64) -> Thread {
        let count = messageCount(of: conversation)
        return Thread(
            chat: self, conversation: conversation, count: count, participants: participants(of: conversation),
            step: step(of: conversation), last: lastActivity(of: conversation))
    }

    /// One conversation's messages: their count, participants and times, so that a page reads each message's fields
    /// without working them out again (``fields(of:)``), and writes its text as bytes (``writeText(of:into:at:)``).
    public struct Thread: Sendable {
        public let conversation: UInt64
        public let count: UInt64
        public let participants: [Int]
        let step: Int64
        let last: Int64
        /// The seeds of the conversation's message hashes (``ChatCatalog/hash(_:_:_:)`` before its index) and of its
        /// texts' draws, mixed once for a page instead of once a message and field.
        private let author: UInt64
        private let jitter: UInt64
        private let edited: UInt64
        private let reply: UInt64
        private let texts: UInt64

        init(chat: ChatCatalog, conversation: UInt64, count: UInt64, participants: [Int], step: Int64, last: Int64) {
            self.conversation = conversation
            self.count = count
            self.participants = participants
            self.step = step
            self.last = last
            author = chat.messageSeed(.author, conversation)
            jitter = chat.messageSeed(.jitter, conversation)
            edited = chat.messageSeed(.edited, conversation)
            reply = chat.messageSeed(.reply, conversation)
            texts = ChatText.stream(seed: chat.seed, conversation: conversation)
        }

        /// The fields of message `id` but its text, or nil past the end.
        public func fields(of id: UInt64) -> MessageFields? {
            guard id < count else { return nil }
            let author = participants[Int(SplitMix64.output(seed: self.author, index: id) % UInt64(participants.count))]
            // The last message is sent at the conversation's last activity; each earlier one a step before the
            // next, give or take under half a step, so they stay in order.
            let jitter =
                id == count - 1 ? 0 : Int64(SplitMix64.output(seed: self.jitter, index: id) % UInt64(max(1, step / 2)))
            let sentAt = last - Int64(count - 1 - id) * step - jitter
            let editBits = SplitMix64.output(seed: edited, index: id)
            // Edited 1 to 30 minutes after it was sent, never after the conversation's last message (the data's
            // "now").
            let editedAt =
                editBits % 15 == 0 && id < count - 1
                ? min(sentAt + 60_000 + Int64((editBits >> 8) % 1_740_000), last) : nil
            return MessageFields(
                authorIndex: author, sentAt: sentAt, editedAt: editedAt,
                replyTo: ChatCatalog.replyTarget(of: id, bits: SplitMix64.output(seed: reply, index: id)))
        }

        /// Writes the UTF-8 of message `id`'s text (no `"`, `\` or control character in it) into `bytes` from
        /// `offset`, which must have ``ChatText/maximumBytes`` of room; returns the offset past it.
        package func writeText(of id: UInt64, into bytes: inout MutableRawSpan, at offset: Int) -> Int {
            ChatText.write(stream: texts, message: id, into: &bytes, at: offset)
        }
    }

    /// A message's fields but its text: ``Thread/fields(of:)``.
    public struct MessageFields: Sendable, Equatable {
        public let authorIndex: Int
        public let sentAt: Int64
        public let editedAt: Int64?
        public let replyTo: UInt64?
    }

    /// The earlier message message `id` answers, if it is a reply (about 1 in 10; the first message never is).
    public func replyTarget(of id: UInt64, in conversation: UInt64) -> UInt64? {
        Self.replyTarget(of: id, bits: hash(.reply, conversation, id))
    }

    /// ``replyTarget(of:in:)`` from the message's reply hash `bits`.
    static func replyTarget(of id: UInt64, bits: UInt64) -> UInt64? {
        guard id > 0, bits % 10 == 0 else { return nil }
        let reach: UInt64 =
            switch (bits >> 8) % 10 {
            case 0...5: 20
            case 6...8: 1_000
            default: id
            }
        let distance = 1 + (bits >> 16) % min(reach, id)
        return id - distance
    }
}

/// A generated conversation: ``ChatCatalog/conversation(_:)``.
public struct Conversation: Sendable, Equatable {
    public let id: UInt64
    public let title: String
    /// Indexes into ``AuthorTable/names``; the first is the app's user.
    public let participants: [Int]
    public let messageCount: UInt64
    public let unread: UInt64
    /// When its last message was sent (milliseconds since 1970).
    public let updatedAt: Int64
    public let lastMessage: Message?
}

/// A message: a generated one (``ChatCatalog/message(_:in:)``) or a written one (``WrittenMessage``).
public struct Message: Sendable, Equatable {
    /// Its place in its conversation, from 0 (the first sent).
    public let id: UInt64
    public let conversation: UInt64
    /// Its author, an index into ``AuthorTable/names``.
    public let authorIndex: Int
    public let text: String
    /// When it was sent and last edited (milliseconds since 1970); `editedAt` nil for never.
    public let sentAt: Int64
    public let editedAt: Int64?
    /// The earlier message of the same conversation it answers, if any.
    public let replyTo: UInt64?
    /// Whether it was deleted (``ChatWrites``): then a tombstone with no text.
    public let deleted: Bool

    public init(
        id: UInt64, conversation: UInt64, authorIndex: Int, text: String, sentAt: Int64, editedAt: Int64?,
        replyTo: UInt64?, deleted: Bool = false
    ) {
        self.id = id
        self.conversation = conversation
        self.authorIndex = authorIndex
        self.text = text
        self.sentAt = sentAt
        self.editedAt = editedAt
        self.replyTo = replyTo
        self.deleted = deleted
    }

    /// Its author's name.
    public var author: String { AuthorTable.names[authorIndex] }
}

/// Where a page of conversations continues: the last activity and id of the last conversation a client has.
///
/// Conversations are ordered by last activity, newest first, and by id among equals: the key of a conversation that
/// receives a message moves up, past every cursor already handed out, so paging on never repeats it (it is at the
/// top of a fresh first page, and the change feed says it moved) and never skips another (their keys stay where
/// they were).
public struct ConversationCursor: Sendable, Equatable {
    public let updatedAt: Int64
    public let id: UInt64

    public init(updatedAt: Int64, id: UInt64) {
        self.updatedAt = updatedAt
        self.id = id
    }

    /// Whether a conversation with this key comes after `cursor` in the list's order.
    public func comes(after cursor: ConversationCursor) -> Bool {
        updatedAt < cursor.updatedAt || (updatedAt == cursor.updatedAt && id > cursor.id)
    }

    /// The cursor as a client sends it back: `<updated_at milliseconds>_<id>`, e.g. `1790000000000_0`.
    public var text: String { "\(updatedAt)_\(id)" }

    /// The cursor `text` spells, or nil for one that does not parse (two runs of at most 19 digits).
    public init?(text: some StringProtocol) {
        let parts = text.utf8.split(separator: UInt8(ascii: "_"), omittingEmptySubsequences: false)
        guard parts.count == 2,
            parts.allSatisfy({ part in
                !part.isEmpty && part.count <= 19
                    && part.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
            }),
            let updatedAt = Int64(String(decoding: parts[0], as: UTF8.self)),
            let id = UInt64(String(decoding: parts[1], as: UTF8.self))
        else { return nil }
        self.init(updatedAt: updatedAt, id: id)
    }
}
