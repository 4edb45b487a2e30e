/// The chat's writes (issue 36), applied as the item writes are (``ListState/apply(_:condition:imageCondition:messageCondition:effects:)``):
/// to a copy, noted as effects the store commits, each a change of the list's feed.
extension ListState {
    /// The chat of this list in `shape`, with its writes.
    public func chat(_ shape: ChatCatalog.Shape) -> ChatState {
        ChatState(catalog: ChatCatalog(seed: header.seed, shape: shape), writes: chat)
    }

    /// Message `key`'s revision as `ETag` and `If-Match` see it.
    public func messageRevision(_ key: MessageKey, _ shape: ChatCatalog.Shape) -> MessageRevision {
        MessageRevision(
            version: header.version, seed: header.seed, shape: shape, key: key, revision: chat[key]?.revision ?? 0)
    }

    /// Applies a chat action (a message sent, edited or deleted, a read marker set).
    mutating func applyChat(
        _ action: WriteOperation.Action, condition: (@Sendable (MessageRevision) -> Bool)?,
        effects: inout ListEffects
    ) -> Result<WriteResult, WriteRejection> {
        switch action {
        case .sendMessage(let shape, let conversation, let participant, let text, let replyTo, let at):
            let state = chat(shape)
            let id = state.messageCount(of: conversation)
            let key = MessageKey(conversation: conversation, id: id)
            guard conversation < state.catalog.conversationCount, id < ChatCatalog.maximumMessages else {
                return .failure(.messageNotFound(key, replyTo: false))
            }
            if let replyTo, replyTo >= id {
                return .failure(.messageNotFound(MessageKey(conversation: conversation, id: replyTo), replyTo: true))
            }
            // Later than the conversation's last message, whatever the clock says: messages stay in id order.
            let sentAt = max(at, state.lastActivity(of: conversation) + 1)
            let sequence = nextSequence()
            let participants = state.catalog.participants(of: conversation)
            let written = WrittenMessage(
                authorIndex: participants[min(participant, participants.count - 1)], text: text, sentAt: sentAt,
                editedAt: nil, replyTo: replyTo, deleted: false, revision: sequence)
            let result = commit(written, at: key, kind: .created, shape, sequence, &effects)
            // The conversation moved to the top: a list of conversations learns it from this, next.
            let moved = ConversationChange(id: conversation, updatedAt: sentAt, messageCount: id + 1)
            let movedSequence = nextSequence()
            note(.conversation(moved), movedSequence, into: &effects)
            return result
        case .editMessage(let shape, let key, let text, let at):
            guard let current = chat(shape).message(key.id, in: key.conversation) else {
                return .failure(.messageNotFound(key, replyTo: false))
            }
            if let condition, !condition(messageRevision(key, shape)) {
                return .failure(.messagePreconditionFailed(messageRevision(key, shape)))
            }
            guard !current.deleted else { return .failure(.messageDeleted(key)) }
            let sequence = nextSequence()
            let written = WrittenMessage(
                authorIndex: current.authorIndex, text: text, sentAt: current.sentAt,
                editedAt: max(at, current.sentAt), replyTo: current.replyTo, deleted: false, revision: sequence)
            return commit(written, at: key, kind: .updated, shape, sequence, &effects)
        case .deleteMessage(let shape, let key):
            guard let current = chat(shape).message(key.id, in: key.conversation), !current.deleted else {
                return .failure(.messageNotFound(key, replyTo: false))
            }
            if let condition, !condition(messageRevision(key, shape)) {
                return .failure(.messagePreconditionFailed(messageRevision(key, shape)))
            }
            let sequence = nextSequence()
            let written = WrittenMessage(
                authorIndex: current.authorIndex, text: "", sentAt: current.sentAt, editedAt: current.editedAt,
                replyTo: current.replyTo, deleted: true, revision: sequence)
            return commit(written, at: key, kind: .deleted, shape, sequence, &effects)
        case .markRead(let shape, let key, let upTo):
            let state = chat(shape)
            let count = state.messageCount(of: key.conversation)
            guard key.conversation < state.catalog.conversationCount, upTo < count else {
                return .failure(.messageNotFound(MessageKey(conversation: key.conversation, id: upTo), replyTo: false))
            }
            // The same marker again changes nothing, and tells nobody (a client that marks on every scroll must
            // not push the list's changes out of the feed).
            if state.readMarker(of: key.client, in: key.conversation) != upTo {
                let sequence = nextSequence()
                let marker = ReadMarker(upTo: upTo, revision: sequence)
                chat.setMarker(marker, at: key)
                effects.readMarkers[key] = marker
                note(.read(ReadChange(key: key, upTo: upTo)), sequence, into: &effects)
            }
            let unread = self.chat(shape).unread(of: key.conversation, for: key.client)
            return .success(.readMarked(key, upTo: upTo, unread: unread))
        default:
            preconditionFailure("not a chat action")
        }
    }

    /// Keeps `message` at `key` and notes it as a change of `kind`.
    private mutating func commit(
        _ message: WrittenMessage, at key: MessageKey, kind: MessageChange.Kind, _ shape: ChatCatalog.Shape,
        _ sequence: UInt64, _ effects: inout ListEffects
    ) -> Result<WriteResult, WriteRejection> {
        chat.put(message, at: key)
        effects.messages[key] = message
        let seen = message.message(key.id, in: key.conversation)
        note(.message(MessageChange(kind: kind, message: seen)), sequence, into: &effects)
        return switch kind {
        case .created: .success(.messageWritten(seen, messageRevision(key, shape), created: true))
        case .updated: .success(.messageWritten(seen, messageRevision(key, shape), created: false))
        case .deleted: .success(.messageDeleted(seen))
        }
    }
}
