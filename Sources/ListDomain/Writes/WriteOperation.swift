/// One write to a list, as the HTTP layer hands it to the ``WriteCoordinator``.
///
/// A class, though immutable: a write is handed from the request to the coordinator's queue, its group and the
/// answer's closure, and each copy of a struct retained and released every reference in it (the list name, the
/// fields' strings, the condition, the idempotency claim: about twenty atomic operations a write); a copy of a
/// class instance is one.
public final class WriteOperation: Sendable {
    /// What to do.
    public enum Action: Sendable, Equatable {
        /// `POST /items`: a new item at the end, with these fields over its generated ones (`label` at least).
        case create(ItemOverrides)
        /// `PATCH /items/<id>`: a merge patch of a live item.
        case update(UInt64, ItemPatch)
        /// `DELETE /items/<id>`.
        case delete(UInt64)
        /// `PUT /items/<id>/image`: the item's image is this upload from now on; its width and height become the
        /// upload's.
        case putImage(UInt64, ImageUpload)
        /// `DELETE /items/<id>/image`: back to the generated image (and the generated width and height).
        case removeImage(UInt64)
        /// Growth by timer: this many generated items at the end (fewer once the list is at its maximum size).
        case grow(UInt64)
        /// `POST /admin/reset`: every write dropped, the id sequence back to the base count, maybe a new seed.
        case reset(seed: UInt64?)
        /// `DELETE /admin/datasets/<name>`: the list forgotten, as if never written to.
        case drop
        /// An idle dataset removed with every row it has, unless it was used after `idleBefore` (the server's time to
        /// live for idle datasets).
        case expire(idleBefore: WallTime)
        /// `POST /conversations/<id>/messages`: a message at the end from the conversation's `participant`th
        /// participant (0, the app's user, for a client's; another for a simulated one, ``ChatActivityDriver``),
        /// sent at `at` (ms since 1970; later than the conversation's last message).
        case sendMessage(
            ChatCatalog.Shape, conversation: UInt64, participant: Int = 0, text: String, replyTo: UInt64?, at: Int64)
        /// `PATCH /conversations/<id>/messages/<mid>`: the message's text, edited at `at`.
        case editMessage(ChatCatalog.Shape, MessageKey, text: String, at: Int64)
        /// `DELETE /conversations/<id>/messages/<mid>`: the message becomes a tombstone.
        case deleteMessage(ChatCatalog.Shape, MessageKey)
        /// `POST /conversations/<id>/read`: the client has read up to message `upTo`.
        case markRead(ChatCatalog.Shape, ReadMarkerKey, upTo: UInt64)
    }

    /// The list (dataset) written to; "" is the shared default.
    public let list: String
    public let action: Action
    /// `If-Match`: given the item's current revision, whether the write may go ahead (412 otherwise). Only for
    /// `update` and `delete`.
    public let condition: (@Sendable (ItemRevision) -> Bool)?
    /// `If-Match` or `If-None-Match` on an image write: given the item's image now, whether the write may go ahead
    /// (412 otherwise). Only for `putImage` and `removeImage`.
    public let imageCondition: (@Sendable (ImageRevision) -> Bool)?
    /// `If-Match` on a message edit or deletion: given the message's revision, whether the write may go ahead.
    public let messageCondition: (@Sendable (MessageRevision) -> Bool)?
    /// `Idempotency-Key`: the key, what the request asked, and how its answer is recorded.
    public let idempotency: IdempotencyClaim?

    public init(
        list: String, action: Action, condition: (@Sendable (ItemRevision) -> Bool)? = nil,
        imageCondition: (@Sendable (ImageRevision) -> Bool)? = nil,
        messageCondition: (@Sendable (MessageRevision) -> Bool)? = nil, idempotency: IdempotencyClaim? = nil
    ) {
        self.list = list
        self.action = action
        self.condition = condition
        self.imageCondition = imageCondition
        self.messageCondition = messageCondition
        self.idempotency = idempotency
    }
}

/// What identifies the current state of one item, for `ETag` and `If-Match`.
public struct ItemRevision: Sendable, Equatable {
    /// The list's version (one more per reset).
    public let version: UInt64
    /// The list's seed.
    public let seed: UInt64
    public let id: UInt64
    /// The sequence number of the change that last wrote the item; 0 for one nobody wrote.
    public let revision: UInt64

    public init(version: UInt64, seed: UInt64, id: UInt64, revision: UInt64) {
        self.version = version
        self.seed = seed
        self.id = id
        self.revision = revision
    }
}

/// What identifies the current state of one message, for `ETag` and `If-Match`.
public struct MessageRevision: Sendable, Equatable {
    /// The list's version and seed.
    public let version: UInt64
    public let seed: UInt64
    /// The chat settings the generated messages follow.
    public let shape: ChatCatalog.Shape
    public let key: MessageKey
    /// The sequence number of the change that last wrote the message; 0 for a generated one nobody wrote.
    public let revision: UInt64

    public init(version: UInt64, seed: UInt64, shape: ChatCatalog.Shape, key: MessageKey, revision: UInt64) {
        self.version = version
        self.seed = seed
        self.shape = shape
        self.key = key
        self.revision = revision
    }
}

/// An `Idempotency-Key` on a write.
public struct IdempotencyClaim: Sendable {
    public let key: String
    /// A digest of method, path and body: the same key with another fingerprint is refused (422).
    public let fingerprint: [UInt8]
    /// Encodes the answer to the write once it is known, to be stored with the key in the same commit.
    public let record: @Sendable (WriteResult) -> [UInt8]

    public init(key: String, fingerprint: [UInt8], record: @escaping @Sendable (WriteResult) -> [UInt8]) {
        self.key = key
        self.fingerprint = fingerprint
        self.record = record
    }
}

/// What a committed write did.
public enum WriteResult: Sendable, Equatable {
    /// The new item, and its revision.
    case created(Item, ItemRevision)
    /// The item after the patch, and its revision.
    case updated(Item, ItemRevision)
    /// The id deleted.
    case deleted(UInt64)
    /// The item's image after an upload (`created`: it had none before).
    case imageStored(ImageRevision, created: Bool)
    /// The item's image after its upload was removed (or it had none).
    case imageRemoved(ImageRevision)
    /// How many items growth added.
    case grew(UInt64)
    /// The list after a reset.
    case reset(ListReset)
    /// The list was dropped.
    case dropped
    /// Whether an idle list was removed (false: it was used since it was found idle, and stays).
    case expired(Bool)
    /// The message sent (`created`) or edited, and its revision.
    case messageWritten(Message, MessageRevision, created: Bool)
    /// The message deleted (now a tombstone).
    case messageDeleted(Message)
    /// A read marker set: the conversation, and how many of its messages the client has not read now.
    case readMarked(ReadMarkerKey, upTo: UInt64, unread: UInt64)
}

/// The answer to one ``WriteOperation``.
public enum WriteOutcome: Sendable, Equatable {
    /// Committed: durable before this is returned.
    case done(WriteResult)
    /// A retry with an `Idempotency-Key` already answered: the first answer, as recorded.
    case replayed([UInt8])
    /// Refused, nothing written.
    case rejected(WriteRejection)
    /// The store could not commit; nothing written.
    case failed(StoreFailure)
}

/// Why a write was refused.
public enum WriteRejection: Error, Sendable, Equatable {
    /// No live item has this id (never handed out, or deleted).
    case notFound(UInt64)
    /// `If-Match` did not match the item's current revision.
    case preconditionFailed(ItemRevision)
    /// `If-Match` or `If-None-Match` did not match the item's image as it is.
    case imagePreconditionFailed(ImageRevision)
    /// The conversation has no such message (or the reply target, for `replyTo`).
    case messageNotFound(MessageKey, replyTo: Bool)
    /// `If-Match` did not match the message as it is.
    case messagePreconditionFailed(MessageRevision)
    /// The message is deleted: it cannot be edited.
    case messageDeleted(MessageKey)
    /// The `Idempotency-Key` was used before with another request.
    case keyReused(String)
    /// The list has ``Catalog/maximumCount`` ids already.
    case listFull
    /// The write would make one dataset more than the coordinator's limit (``WriteCoordinator/maxDatasets``).
    case tooManyDatasets(Int)
    /// The list holds as much as the coordinator's limit (``WriteCoordinator/maxDatasetBytes``) lets it: nothing that would add to it fits.
    case datasetFull(Int)
}
