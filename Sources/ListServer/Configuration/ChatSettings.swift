import ListDomain

/// The generated chat of every dataset (issue 36): how many conversations, and how many messages the longest has.
///
/// Read from ``SettingKey/chatConversations`` and ``SettingKey/chatMessagesPerConversation``.
struct ChatSettings: Sendable, Equatable {
    /// Conversations per dataset.
    var conversations = 50
    /// Messages of conversation 0; the others have it, a half or a quarter (``ChatCatalog/messageCount(of:)``).
    var messagesPerConversation: UInt64 = 10_000

    /// The settings as the domain takes them.
    var shape: ChatCatalog.Shape {
        ChatCatalog.Shape(conversations: UInt64(conversations), messagesPerConversation: messagesPerConversation)
    }
}
