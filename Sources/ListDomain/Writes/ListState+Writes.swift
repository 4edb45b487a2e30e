/// Writes applied to a list in memory, each also noted as the effects the store must commit.
///
/// The ``WriteCoordinator`` applies a group of writes to copies of the lists, commits the effects, and only then
/// installs the copies: readers never see a write before it is durable, and a failed commit leaves nothing.
extension ListState {
    /// The revision of live item `id` as `ETag` and `If-Match` see it.
    public func itemRevision(_ id: UInt64) -> ItemRevision {
        ItemRevision(version: header.version, seed: header.seed, id: id, revision: revision(of: id))
    }

    /// The image of live item `id` as `ETag` and `If-Match` see it; nil when `id` is not live.
    public func imageRevision(_ id: UInt64) -> ImageRevision? {
        item(id).map { ImageRevision(version: header.version, item: $0, upload: written[id]?.image) }
    }

    /// Applies `action` (after checking `condition` for updates and deletes, `imageCondition` for image writes),
    /// noting what changed in `effects`.
    ///
    /// - Returns: What the write did, or why it was refused (then nothing changed).
    public mutating func apply(
        _ action: WriteOperation.Action, condition: (@Sendable (ItemRevision) -> Bool)?,
        imageCondition: (@Sendable (ImageRevision) -> Bool)? = nil,
        messageCondition: (@Sendable (MessageRevision) -> Bool)? = nil, effects: inout ListEffects
    ) -> Result<WriteResult, WriteRejection> {
        switch action {
        case .create(let overrides):
            guard header.nextID < Catalog.maximumCount else { return .failure(.listFull) }
            let id = header.nextID
            header.nextID += 1
            let sequence = nextSequence()
            let written = WrittenItem(overrides: overrides, revision: sequence)
            if !overrides.isEmpty {
                self.written[id] = written
                effects.written[id] = written
            }
            // What `item(id)` and `itemRevision(id)` would say of the new id, without looking it up again in the
            // written items (twice) and the deletions, or making the generated label its overrides replace: a
            // create is the hot write (callgrind).
            let item = catalog.item(id, with: overrides)
            let revision = ItemRevision(
                version: header.version, seed: header.seed, id: id, revision: overrides.isEmpty ? 0 : sequence)
            note(.created(item), sequence, into: &effects)
            return .success(.created(item, revision))
        case .update(let id, let patch):
            guard isLive(id) else { return .failure(.notFound(id)) }
            if let condition, !condition(itemRevision(id)) {
                return .failure(.preconditionFailed(itemRevision(id)))
            }
            let sequence = nextSequence()
            let overrides = patch.applied(to: written[id]?.overrides ?? ItemOverrides())
            let item = WrittenItem(overrides: overrides, revision: sequence, image: written[id]?.image)
            // Kept even when the patch cleared every field: the revision is what tells the item changed.
            self.written[id] = item
            effects.written[id] = item
            let current = self.item(id)!
            note(.updated(current), sequence, into: &effects)
            return .success(.updated(current, itemRevision(id)))
        case .delete(let id):
            guard isLive(id) else { return .failure(.notFound(id)) }
            if let condition, !condition(itemRevision(id)) {
                return .failure(.preconditionFailed(itemRevision(id)))
            }
            if written[id]?.image != nil { effects.images[id] = .remove }
            written[id] = nil
            effects.written[id] = nil
            deleted.insert(id)
            effects.deleted.append(id)
            let sequence = nextSequence()
            note(.deleted(id), sequence, into: &effects)
            return .success(.deleted(id))
        case .putImage(let id, let upload):
            guard let before = imageRevision(id) else { return .failure(.notFound(id)) }
            if let imageCondition, !imageCondition(before) { return .failure(.imagePreconditionFailed(before)) }
            let sequence = nextSequence()
            var item = written[id] ?? WrittenItem(overrides: ItemOverrides(), revision: sequence)
            item.overrides.width = upload.width
            item.overrides.height = upload.height
            item.revision = sequence
            item.image = upload.stored(revision: sequence)
            written[id] = item
            effects.written[id] = item
            effects.images[id] = .put(item.image!, bytes: upload.bytes)
            let after = imageRevision(id)!
            note(.updated(after.item), sequence, into: &effects)
            return .success(.imageStored(after, created: before.upload == nil))
        case .removeImage(let id):
            guard let before = imageRevision(id) else { return .failure(.notFound(id)) }
            if let imageCondition, !imageCondition(before) { return .failure(.imagePreconditionFailed(before)) }
            // Nothing uploaded: nothing to write, and no change to tell.
            guard var item = written[id], item.image != nil else { return .success(.imageRemoved(before)) }
            let sequence = nextSequence()
            item.overrides.width = nil
            item.overrides.height = nil
            item.revision = sequence
            item.image = nil
            written[id] = item
            effects.written[id] = item
            effects.images[id] = .remove
            let after = imageRevision(id)!
            note(.updated(after.item), sequence, into: &effects)
            return .success(.imageRemoved(after))
        case .grow(let wanted):
            let added = min(wanted, Catalog.maximumCount - header.nextID)
            for _ in 0..<added {
                let id = header.nextID
                header.nextID += 1
                let sequence = nextSequence()
                note(.created(catalog.item(id)!), sequence, into: &effects)
            }
            return .success(.grew(added))
        case .reset(let seed):
            header.version += 1
            if let seed { header.seed = seed }
            header.nextID = header.baseCount
            written = WrittenItems(denseFrom: header.baseCount)
            deleted = DeletedIDs()
            chat = ChatWrites()
            effects.wipe = true
            effects.messages = [:]
            effects.readMarkers = [:]
            effects.written = [:]
            effects.deleted = []
            effects.images = [:]
            let reset = ListReset(version: header.version, seed: header.seed, count: header.baseCount)
            let sequence = nextSequence()
            note(.reset(reset), sequence, into: &effects)
            return .success(.reset(reset))
        case .drop:
            // The coordinator replaces the list by a fresh one; the effects say to forget every row.
            effects = ListEffects()
            effects.drop = true
            return .success(.dropped)
        case .expire:
            // Every row goes, the header too (`removesList`); the coordinator forgets the list once committed.
            self = ListState(seed: header.seed, count: header.baseCount)
            effects = ListEffects()
            effects.drop = true
            return .success(.expired(true))
        case .sendMessage, .editMessage, .deleteMessage, .markRead:
            return applyChat(action, condition: messageCondition, effects: &effects)
        }
    }

    /// Does to this state what a commit with `effects` did to the list, as the store does it to its rows: how the
    /// ``WriteCoordinator`` brings its second copy of a list level with the one it installed.
    ///
    /// - Parameter fresh: The list nobody wrote to, which a drop starts from.
    mutating func catchUp(with effects: ListEffects, fresh: @autoclosure () -> ListState) {
        if effects.drop {
            self = fresh()
        } else if effects.wipe {
            written = WrittenItems(denseFrom: header.baseCount)
            deleted = DeletedIDs()
            chat = ChatWrites()
        }
        for (id, item) in effects.written { written[id] = item }
        for (key, message) in effects.messages { chat.put(message, at: key) }
        for (key, marker) in effects.readMarkers { chat.setMarker(marker, at: key) }
        for id in effects.deleted {
            written[id] = nil
            deleted.insert(id)
        }
        if let header = effects.header { self.header = header }
    }

    /// The next change sequence number, now taken.
    mutating func nextSequence() -> UInt64 {
        header.lastSequence += 1
        return header.lastSequence
    }

    /// Notes a change and the header after it.
    ///
    /// Take the sequence number before the call, never as its argument (`note(…, nextSequence(), …)`): `self` is
    /// read before the arguments are evaluated, so the header noted would be the one from before the number was
    /// taken, and the store would keep a `lastSequence` one behind.
    func note(_ event: ChangeEvent, _ sequence: UInt64, into effects: inout ListEffects) {
        effects.changes.append(Change(sequence: sequence, event: event))
        effects.header = header
    }
}
