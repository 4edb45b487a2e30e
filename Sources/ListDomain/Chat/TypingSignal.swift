/// Someone is typing in a conversation. Not a change: nothing is stored and it takes no sequence number, so it is
/// never replayed; the feed hands it to the dataset's live streams as it happens (``ChangeFeed/announce(_:of:)``)
/// and forgets it. An app shows the indicator for ``duration`` unless a message from that author, or another
/// signal, comes first.
public struct TypingSignal: Sendable, Equatable {
    public let conversation: UInt64
    /// Who is typing, an index into ``AuthorTable/names``.
    public let authorIndex: Int
    /// The client that said so (its `X-Client-Id`, "" for none); nil for a simulated participant.
    public let client: String?
    /// How long the indicator lasts without news.
    public let duration: Duration

    public init(conversation: UInt64, authorIndex: Int, client: String?, duration: Duration) {
        self.conversation = conversation
        self.authorIndex = authorIndex
        self.client = client
        self.duration = duration
    }

    /// The author's name.
    public var author: String { AuthorTable.names[authorIndex] }
}
