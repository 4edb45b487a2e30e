import ListDomain
import ListServer

/// The request bodies of writes: the strict JSON parser, the item fields it becomes, and the merge patch applied to
/// a list (`FuzzInput.Entry.json`, `.patch`).
enum FuzzBodies {
    /// A body through ``RequestJSON`` at the depth writes allow, then ``ItemBody`` as a creation and as a patch:
    /// whatever they accept keeps every item limit.
    static func checkJSON(_ body: [UInt8]) {
        guard let json = try? RequestJSON.parse(body, maxDepth: Router.writeBodyDepth) else { return }
        if let overrides = try? ItemBody.creation(json) {
            FuzzCheck.require(overrides.label != nil, "a creation without a label")
            checkFields(overrides)
        }
        if let patch = try? ItemBody.patch(json) {
            checkFields(patch.applied(to: ItemOverrides()))
        }
    }

    /// A patch from `body` applied to a live item, a deleted one and one never handed out, as `PATCH /items/<id>`
    /// applies it: the live item takes exactly what the patch sets (its revision, the change's sequence), the others
    /// are refused, and the list's other items do not move.
    static func checkPatch(_ body: [UInt8]) {
        guard let json = try? RequestJSON.parse(body, maxDepth: Router.writeBodyDepth),
            let patch = try? ItemBody.patch(json)
        else { return }
        var state = ListState(seed: 42, count: 100)
        var effects = ListEffects()
        _ = state.apply(
            .create(ItemOverrides(label: "created", author: "someone", likes: 3)), condition: nil, effects: &effects)
        _ = state.apply(.delete(7), condition: nil, effects: &effects)
        let before = state
        var patched = ListEffects()
        switch state.apply(.update(100, patch), condition: nil, effects: &patched) {
        case .success(.updated(let item, let revision)):
            FuzzCheck.require(
                item.id == 100 && revision.revision == before.header.lastSequence + 1, "the patch's revision")
            FuzzCheck.require(state.item(100) == item, "the list does not hold the patched item")
            let expected = patch.applied(to: before.written[100]!.overrides)
            FuzzCheck.require(state.written[100]?.overrides == expected, "the patch did not apply as a merge patch")
            checkFields(expected)
            FuzzCheck.require(patched.changes.count == 1 && patched.written.count == 1, "one change, one row")
        case let other:
            FuzzCheck.require(false, "a valid patch of a live item gave \(other)")
        }
        FuzzCheck.require(state.item(5) == before.item(5) && state.liveCount == before.liveCount, "other items moved")
        var unchanged = ListEffects()
        FuzzCheck.require(
            state.apply(.update(7, patch), condition: nil, effects: &unchanged) == .failure(.notFound(7)),
            "a deleted item patched")
        FuzzCheck.require(
            state.apply(.update(101, patch), condition: nil, effects: &unchanged) == .failure(.notFound(101)),
            "an item past the end patched")
        FuzzCheck.require(unchanged.isEmpty, "a refused patch left effects")
    }

    /// Written fields within ``ItemOverrides/Limits``, in characters and in bytes, without U+0000.
    private static func checkFields(_ fields: ItemOverrides) {
        typealias Limits = ItemOverrides.Limits
        for (text, length, bytes) in [
            (fields.label, Limits.labelLength, Limits.labelBytes),
            (fields.author, Limits.authorLength, Limits.authorBytes),
        ] {
            guard let text else { continue }
            FuzzCheck.require(text.utf8.count <= bytes && length.contains(text.count), "a text over its limits")
            FuzzCheck.require(!text.utf8.contains(0), "U+0000 in a text")
        }
        for (number, range) in [
            (fields.width, Limits.dimension), (fields.height, Limits.dimension), (fields.likes, Limits.likes),
        ] {
            if let number { FuzzCheck.require(range.contains(number), "a number out of its range") }
        }
        if let color = fields.color { FuzzCheck.require(color <= 0xFF_FFFF, "a colour over 24 bits") }
    }
}
