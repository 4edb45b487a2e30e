/// Simulated participants of a dataset's chat (issue 36): the others in its conversations type, then write,
/// sometimes answer an earlier message, and now and then edit or delete what they wrote, at a steady pace. Set in a
/// dataset's profile (``DatasetProfile/chat``); off unless set.
public struct ChatActivity: Sendable, Equatable {
    /// Messages a minute, over all of the dataset's conversations (one turn each).
    public var messagesPerMinute: Double
    /// How long a participant types before its message is sent (a `typing` signal for that long).
    public var typing: Duration
    /// The share of messages edited a little later, and of those deleted later still.
    public var editRatio: Double
    public var deleteRatio: Double
    /// What the turns are drawn from; nil: the dataset's seed.
    public var seed: UInt64?

    /// The most messages a minute: one every 100 ms.
    public static let maximumMessagesPerMinute = 600.0
    /// The longest typing.
    public static let maximumTyping = Duration.seconds(60)

    public init(
        messagesPerMinute: Double, typing: Duration = .seconds(2), editRatio: Double = 0, deleteRatio: Double = 0,
        seed: UInt64? = nil
    ) {
        self.messagesPerMinute = messagesPerMinute
        self.typing = typing
        self.editRatio = editRatio
        self.deleteRatio = deleteRatio
        self.seed = seed
    }

    /// The time from one turn's start to the next's.
    public var interval: Duration { .milliseconds(Int64((60_000 / messagesPerMinute).rounded())) }
}

/// The turns of a ``ChatActivity``, drawn from its seed: each turn is a pure function of its number, so a test (or
/// an app's UI test) can tell in advance who writes what, where and when.
///
/// Turn `n` starts at `n` × ``ChatActivity/interval`` after the activity was set: a participant other than the
/// app's user (the conversation's first) in a conversation drawn from the seed types for
/// ``ChatActivity/typing``, then sends a generated text, one in five an answer to one of the 50 messages before it;
/// an edited message is edited a third of an interval after it was sent, a deleted one deleted two thirds after.
public struct ChatActivityScript: Sendable {
    /// One turn.
    public struct Turn: Sendable, Equatable {
        public let number: UInt64
        public let conversation: UInt64
        /// The writer's place among the conversation's participants (from 1: never the app's user).
        public let participant: Int
        /// When it starts typing, sends, and edits or deletes what it sent (since the activity was set).
        public let typingAt: Duration
        public let sendAt: Duration
        public let text: String
        /// The message it answers, counted back from its own (1: the one just before); nil for none.
        public let replyBack: UInt64?
        public let editAt: Duration?
        public let editText: String?
        public let deleteAt: Duration?
    }

    public let activity: ChatActivity
    public let catalog: ChatCatalog
    private let seed: UInt64

    /// The script of `activity` over `catalog` (the dataset's conversations); the seed is the activity's, else the
    /// catalog's.
    public init(_ activity: ChatActivity, catalog: ChatCatalog) {
        self.activity = activity
        self.catalog = catalog
        seed = SplitMix64.mix((activity.seed ?? catalog.seed) ^ 0x6163_7469_7669_7479)  // "activity"
    }

    /// Turn `number`.
    public func turn(_ number: UInt64) -> Turn {
        var random = SplitMix64(seed: SplitMix64.output(seed: seed, index: number))
        let conversation = random.next() % catalog.conversationCount
        let count = catalog.participants(of: conversation).count
        let participant = 1 + Int(random.next() % UInt64(count - 1))
        let interval = activity.interval
        let typingAt = interval * Int(number)
        let sendAt = typingAt + activity.typing
        let replyBack: UInt64? = random.next() % 5 == 0 ? 1 + random.next() % 50 : nil
        // Texts of messages no conversation generates (ids from 2^41 on), so they read like the rest.
        let text = ChatText.text(seed: seed, conversation: conversation, message: 1 << 41 + number * 2)
        let edits = Self.draw(&random) < activity.editRatio
        let deletes = Self.draw(&random) < activity.deleteRatio
        return Turn(
            number: number, conversation: conversation, participant: participant, typingAt: typingAt,
            sendAt: sendAt, text: text, replyBack: replyBack, editAt: edits ? sendAt + interval / 3 : nil,
            editText: edits ? Self.editText(of: text, seed: seed, conversation: conversation, number: number) : nil,
            deleteAt: deletes ? sendAt + interval * 2 / 3 : nil)
    }

    /// The text an edit of turn `number`'s `text` sets: another generated text, the first of them that differs (the
    /// texts of short messages come from a table of 256, so two may be the same; an edit changes something).
    private static func editText(of text: String, seed: UInt64, conversation: UInt64, number: UInt64) -> String {
        var attempt: UInt64 = 0
        while true {
            let edit = ChatText.text(
                seed: seed, conversation: conversation, message: 1 << 41 + number * 2 + 1 + attempt << 42)
            if edit != text { return edit }
            attempt += 1
        }
    }

    /// How late a turn may still start: the driver starts a moment after the profile was set, and the first turn
    /// is due at once.
    public static let lateness = Duration.seconds(1)

    /// The first turn to act out `elapsed` after the activity was set: the first that starts no more than
    /// ``lateness`` before (a server that sets the activity again, at start-up, goes on from there rather than
    /// sending late what it missed).
    public func firstTurn(notBefore elapsed: Duration) -> UInt64 {
        let elapsed = elapsed - Self.lateness
        guard elapsed > .zero else { return 0 }
        let interval = activity.interval
        let passed = UInt64(max(0, elapsed / interval))
        return interval * Int(passed) >= elapsed ? passed : passed + 1
    }

    /// A number in [0, 1).
    private static func draw(_ random: inout SplitMix64) -> Double {
        Double(random.next() >> 11) / Double(1 << 53)
    }
}
