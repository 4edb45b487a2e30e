import ListDomain
import Testing

/// Uploaded images as list writes: what `putImage` and `removeImage` do to the state and note for the store, how
/// the other writes treat an item's upload, and the coordinator carrying a file to the store and back.
@Suite("ListState: uploaded images")
struct ListStateImageTests {
    let seed: UInt64 = 21
    var catalog: Catalog { Catalog(seed: seed, count: 100) }

    static let upload = ImageUpload(
        format: .png, width: 640, height: 480, digest: 0xABC, bytes: [1, 2, 3], blurHash: "LKO2?U%2Tw=w]~RBVZRi};RPxuwH"
    )
    static let other = ImageUpload(format: .webp, width: 30, height: 20, digest: 0xDEF, bytes: [4, 5])

    func apply(
        _ action: WriteOperation.Action, to state: inout ListState,
        imageCondition: (@Sendable (ImageRevision) -> Bool)? = nil
    ) -> (result: Result<WriteResult, WriteRejection>, effects: ListEffects) {
        var effects = ListEffects()
        let result = state.apply(action, condition: nil, imageCondition: imageCondition, effects: &effects)
        return (result, effects)
    }

    @Test func anUploadReplacesTheSizeAndIsNotedWithItsBytes() throws {
        var state = ListState(seed: seed, count: 100)
        let (result, effects) = apply(.putImage(7, Self.upload), to: &state)
        let stored = StoredImage(
            format: .png, width: 640, height: 480, byteCount: 3, digest: 0xABC, revision: 1,
            blurHash: Self.upload.blurHash)
        let generated = catalog.item(7)!
        // The upload's placeholder replaces the generated photo's.
        let item = Item(
            id: 7, label: generated.label, author: generated.author, width: 640, height: 480, color: generated.color,
            blurHash: "LKO2?U%2Tw=w]~RBVZRi};RPxuwH", likes: generated.likes)
        #expect(result == .success(.imageStored(ImageRevision(version: 1, item: item, upload: stored), created: true)))
        #expect(state.item(7) == item)
        #expect(state.written[7]?.image == stored)
        #expect(effects.images == [7: .put(stored, bytes: [1, 2, 3])])
        #expect(effects.changes == [Change(sequence: 1, event: .updated(item))])

        // A second upload is a replacement; a PATCH keeps the upload.
        let (again, _) = apply(.putImage(7, Self.other), to: &state)
        guard case .success(.imageStored(let revision, let created)) = again else {
            Issue.record("the replacement was refused: \(again)")
            return
        }
        #expect(!created && revision.upload?.digest == 0xDEF && revision.item.width == 30)
        var patch = ItemPatch()
        patch.label = .set("renamed")
        let (patched, patchEffects) = apply(.update(7, patch), to: &state)
        #expect((try? patched.get()) != nil)
        #expect(state.written[7]?.image?.digest == 0xDEF)
        #expect(patchEffects.images.isEmpty)
    }

    @Test func removingGoesBackToTheGeneratedImageAndSize() {
        var state = ListState(seed: seed, count: 100)
        _ = apply(.putImage(7, Self.upload), to: &state)
        let (result, effects) = apply(.removeImage(7), to: &state)
        let generated = catalog.item(7)!
        #expect(state.item(7) == generated)
        #expect(state.written[7]?.image == nil)
        #expect(effects.images == [7: .remove])
        #expect(effects.changes == [Change(sequence: 2, event: .updated(generated))])
        #expect(result == .success(.imageRemoved(ImageRevision(version: 1, item: generated, upload: nil))))
        // Nothing uploaded: answered, nothing noted.
        let (again, none) = apply(.removeImage(8), to: &state)
        #expect((try? again.get()) != nil)
        #expect(none.isEmpty)
        #expect(state.header.lastSequence == 2)
    }

    @Test func deletingTheItemOrResettingTheListTakesItsUpload() {
        var state = ListState(seed: seed, count: 100)
        _ = apply(.putImage(7, Self.upload), to: &state)
        _ = apply(.putImage(8, Self.other), to: &state)
        let (_, deletion) = apply(.delete(7), to: &state)
        #expect(deletion.images == [7: .remove])
        // A delete of an item without an upload notes no image (no statement for the store).
        let (_, plain) = apply(.delete(9), to: &state)
        #expect(plain.images.isEmpty)
        var effects = ListEffects()
        _ = state.apply(.putImage(10, Self.upload), condition: nil, effects: &effects)
        _ = state.apply(.reset(seed: nil), condition: nil, effects: &effects)
        #expect(effects.wipe && effects.images.isEmpty)
        #expect(state.written[8] == nil && state.written[10] == nil)
    }

    @Test func refusalsChangeNothing() {
        var state = ListState(seed: seed, count: 100)
        _ = apply(.delete(3), to: &state)
        let before = state
        #expect(apply(.putImage(3, Self.upload), to: &state).result == .failure(.notFound(3)))
        #expect(apply(.putImage(100, Self.upload), to: &state).result == .failure(.notFound(100)))
        #expect(apply(.removeImage(3), to: &state).result == .failure(.notFound(3)))
        let (refused, effects) = apply(.putImage(4, Self.upload), to: &state, imageCondition: { $0.upload != nil })
        #expect(refused == .failure(.imagePreconditionFailed(state.imageRevision(4)!)))
        #expect(effects.isEmpty)
        #expect(state == before)
    }

    @Test func theCoordinatorStoresTheFileAndTheSpareForgetsIt() async throws {
        let store = MemoryListStore()
        let lists = ListRegistry(seed: seed, count: 100)
        let coordinator = WriteCoordinator(
            lists: lists, feed: ChangeFeed(store: store, lists: lists), store: store, idempotencyTTL: .seconds(60),
            wallClock: { WallTime(milliseconds: 0) })
        let put = await coordinator.submit(WriteOperation(list: "", action: .putImage(5, Self.upload)))
        guard case .done(.imageStored(let revision, created: true)) = put else {
            Issue.record("the upload was not stored: \(put)")
            return
        }
        #expect(try await store.image(of: "", id: 5, digest: 0xABC) == [1, 2, 3])
        #expect(try await store.image(of: "", id: 5, digest: 0xDEF) == nil)
        #expect(lists.state(of: "").written[5]?.image == revision.upload)
        // The next write to the list catches the spare up from the effects without the file's bytes; the state
        // it then installs still has the upload.
        _ = await coordinator.submit(WriteOperation(list: "", action: .create(ItemOverrides(label: "next"))))
        _ = await coordinator.submit(WriteOperation(list: "", action: .create(ItemOverrides(label: "after"))))
        #expect(lists.state(of: "").written[5]?.image == revision.upload)
        _ = await coordinator.submit(WriteOperation(list: "", action: .removeImage(5)))
        #expect(try await store.image(of: "", id: 5, digest: 0xABC) == nil)
        #expect(store.imageCount == 0)
    }

    /// What an image is drawn from is the item's size and colour as a client reads them, however they came to be:
    /// generated, patched, uploaded, created; and no image for an item that is deleted or was never handed out.
    @Test func theImageFieldsAreTheItemsSizeAndColour() {
        var state = ListState(seed: seed, count: 100)
        var patch = ItemPatch()
        patch.width = .set(333)
        patch.color = .set(0x12_34AB)
        _ = apply(.update(3, patch), to: &state)
        _ = apply(.putImage(7, Self.upload), to: &state)
        _ = apply(.create(ItemOverrides(label: "new", height: 77)), to: &state)
        _ = apply(.delete(9), to: &state)
        #expect(state.imageFields(of: 3)?.width == 333 && state.imageFields(of: 3)?.color == 0x12_34AB)
        #expect(state.imageFields(of: 7)?.width == 640 && state.imageFields(of: 7)?.height == 480)
        #expect(state.imageFields(of: 100)?.height == 77)
        for id: UInt64 in [0, 3, 7, 42, 99, 100] {
            let item = state.item(id)!
            let fields = state.imageFields(of: id)
            #expect(fields?.width == item.width && fields?.height == item.height && fields?.color == item.rgb)
        }
        #expect(state.imageFields(of: 9) == nil && state.item(9) == nil)
        #expect(state.imageFields(of: 101) == nil && state.item(101) == nil)
    }
}
