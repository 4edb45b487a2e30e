import ListDomain
import Testing

/// The ``ListStore`` contract as a checklist a store runs: SQLite's tests and PostgreSQL's run it alike.
///
/// Each check starts from an empty store that `open` gives (and that `open` gives again, with the same contents,
/// after the store is closed: a file reopened, a database reconnected), commits through the protocol alone and
/// asserts what the contract promises. The checks assume the store was opened with ``changesKept`` and an
/// idempotency TTL of an hour or more, and that it is empty at first.
struct ListStoreConformance {
    /// How many changes per list the store under test keeps.
    static let changesKept = 5

    /// Opens the store under test: an empty one the first time, the same contents after a close.
    let open: @Sendable () async throws -> any ListStore

    /// The checks, for a parameterized test to run them all.
    enum Check: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case stateSurvivesReopening, wipeAndDrop, changesRoundTripAndPrune, changeWindows, idempotencyRecordsAndExpiry
        case closedStoreFails, uploadsRoundTrip, listsByName, usesAndIdleLists, removal, profilesRoundTrip
        case idleProfiles, chatRoundTrip

        /// Whether the check closes the store and opens it again, expecting the same contents (an in-memory
        /// store cannot).
        var reopens: Bool {
            self == .stateSurvivesReopening || self == .changesRoundTripAndPrune || self == .uploadsRoundTrip
                || self == .profilesRoundTrip || self == .chatRoundTrip
        }

        var testDescription: String { rawValue }
    }

    /// Runs `check`.
    func run(_ check: Check) async throws {
        switch check {
        case .stateSurvivesReopening: try await stateSurvivesReopening()
        case .wipeAndDrop: try await wipeAndDrop()
        case .changesRoundTripAndPrune: try await changesRoundTripAndPrune()
        case .changeWindows: try await changeWindows()
        case .idempotencyRecordsAndExpiry: try await idempotencyRecordsAndExpiry()
        case .closedStoreFails: try await closedStoreFails()
        case .uploadsRoundTrip: try await uploadsRoundTrip()
        case .listsByName: try await listsByName()
        case .usesAndIdleLists: try await usesAndIdleLists()
        case .removal: try await removal()
        case .profilesRoundTrip: try await profilesRoundTrip()
        case .idleProfiles: try await idleProfiles()
        case .chatRoundTrip: try await chatRoundTrip()
        }
    }

    /// The chat's writes (issue 36): messages (sent, edited, a tombstone, with text a C string would cut) and read
    /// markers come back as committed across a reopen, a later commit replaces a message, the chat's changes
    /// round-trip with their fields, and a wipe removes messages and markers while the list's changes stay.
    func chatRoundTrip() async throws {
        let store = try await open()
        let sent = WrittenMessage(
            authorIndex: 32, text: "On my way 🏃 \u{0} and after", sentAt: 1_795_000_000_123, editedAt: nil,
            replyTo: 9_998, deleted: false, revision: 1)
        let tombstone = WrittenMessage(
            authorIndex: 63, text: "", sentAt: 1_790_000_000_000, editedAt: 1_790_000_060_000, replyTo: nil,
            deleted: true, revision: 2)
        let marker = ReadMarker(upTo: 1 << 40 - 1, revision: 3)
        var effects = Self.effects(header: Self.header(lastSequence: 4))
        effects.messages = [
            MessageKey(conversation: 0, id: 10_000): sent, MessageKey(conversation: 99_999, id: 4): tombstone,
        ]
        effects.readMarkers = [
            ReadMarkerKey(conversation: 0, client: "phone-Ω"): marker,
            ReadMarkerKey(conversation: 0, client: ""): ReadMarker(upTo: 0, revision: 3),
        ]
        let changes = [
            Change(
                sequence: 1,
                event: .message(MessageChange(kind: .created, message: sent.message(10_000, in: 0)))),
            Change(
                sequence: 2,
                event: .message(MessageChange(kind: .deleted, message: tombstone.message(4, in: 99_999)))),
            Change(
                sequence: 3, event: .read(ReadChange(key: ReadMarkerKey(conversation: 0, client: "phone-Ω"), upTo: 7))),
            Change(
                sequence: 4,
                event: .conversation(
                    ConversationChange(id: 99_999, updatedAt: 1_795_000_000_123, messageCount: 1 << 40))),
        ]
        effects.changes = changes
        try await store.commit(Self.batch("chat", effects))
        var edit = Self.effects(header: Self.header(lastSequence: 5))
        var edited = sent
        edited.text = "edited"
        edited.editedAt = 1_795_000_100_000
        edited.revision = 5
        edit.messages = [MessageKey(conversation: 0, id: 10_000): edited]
        let editChange = Change(
            sequence: 5, event: .message(MessageChange(kind: .updated, message: edited.message(10_000, in: 0))))
        edit.changes = [editChange]
        try await store.commit(Self.batch("chat", edit))
        await store.close()

        let reopened = try await open()
        let list = try #require(try await reopened.load()["chat"])
        #expect(
            list.messages == [
                MessageKey(conversation: 0, id: 10_000): edited, MessageKey(conversation: 99_999, id: 4): tombstone,
            ])
        #expect(list.readMarkers == effects.readMarkers)
        #expect(try await reopened.changes(of: "chat", after: 0, limit: 10).changes == changes + [editChange])
        let wiped = Change(sequence: 6, event: .reset(ListReset(version: 2, seed: 1, count: 100)))
        try await reopened.commit(
            Self.batch(
                "chat", Self.effects(header: Self.header(version: 2, lastSequence: 6), changes: [wiped], wipe: true)))
        let after = try #require(try await reopened.load()["chat"])
        #expect(after.messages.isEmpty && after.readMarkers.isEmpty)
        // The changes stay through a wipe (the newest `changesKept` of the six).
        #expect(try await reopened.changes(of: "chat", after: 0, limit: 10).changes.count == min(6, Self.changesKept))
        await reopened.close()
    }

    // MARK: Checks

    /// Profiles: stored byte for byte with their time and their tokens' key, replaced, deleted, kept across a reopen, and dropped with
    /// their dataset (whether it had rows or not) while other datasets' stay.
    func profilesRoundTrip() async throws {
        let store = try await open()
        #expect(try await store.profiles().isEmpty)
        let body = Array(#"{"outage":{"for_ms":10000},"label":"\u0000é"}"#.utf8)
        let first = StoredProfile(body: body, setAt: Self.now, tokenKey: 1 << 127 | 0xFF)  // every byte kept
        var later = StoredProfile(
            body: Array(#"{"auth":{"token_ttl_s":30}}"#.utf8), setAt: WallTime(milliseconds: 1_800_000_000_000),
            tokenKey: .max - 1)
        try await store.setProfile(first, of: "a")
        try await store.setProfile(first, of: "b")
        try await store.setProfile(first, of: "c")
        try await store.setProfile(later, of: "a")  // replaces the body and the time, keeps the key
        try await store.setProfile(nil, of: "c")
        try await store.setProfile(nil, of: "never-set")
        #expect(
            try await store.profile(of: "a")
                == StoredProfile(body: later.body, setAt: later.setAt, tokenKey: first.tokenKey))
        try await store.setProfile(later, of: "d")  // a new row takes the key given
        #expect(try await store.profile(of: "d") == later)
        try await store.setProfile(nil, of: "d")
        #expect(try await store.setTokenKey(3, of: "a"))  // a revoke: the key alone changes
        #expect(try await !store.setTokenKey(3, of: "never-set"))
        later.tokenKey = 3
        #expect(try await store.profile(of: "a") == later)
        // A profile stored over one keeps the key it has: a revoke in between is not undone.
        try await store.setProfile(StoredProfile(body: later.body, setAt: later.setAt, tokenKey: 99), of: "a")
        #expect(try await store.profile(of: "a")?.tokenKey == 3)
        #expect(try await store.profile(of: "c") == nil)
        await store.close()
        let reopened = try await open()
        #expect(try await reopened.profiles() == ["a": later, "b": first])
        // "a" has rows; "b" has none: a drop of either takes its profile.
        try await reopened.commit(
            Self.batch("a", Self.effects(header: Self.header(lastSequence: 1), written: [1: Self.labelOnly])))
        try await reopened.commit(Self.batch("a", Self.effects(header: nil, drop: true)))
        #expect(try await reopened.profiles() == ["b": first])
        try await reopened.commit(Self.batch("b", Self.effects(header: Self.header(lastSequence: 0), drop: true)))
        #expect(try await reopened.profiles().isEmpty)
    }

    /// Idle profiles: a use recorded keeps the latest time (of any server), a profile set again counts from then,
    /// and an expiry deletes those neither met nor set after the cutoff, least recently used first, up to its limit.
    func idleProfiles() async throws {
        let store = try await open()
        func at(_ seconds: Int64) -> WallTime { WallTime(milliseconds: Self.now.milliseconds + seconds * 1000) }
        func profile(setAt: WallTime) -> StoredProfile {
            StoredProfile(body: Array(#"{"outage":{"for_ms":10}}"#.utf8), setAt: setAt, tokenKey: 1)
        }
        for name in ["old", "met", "reset", "older"] { try await store.setProfile(profile(setAt: at(-100)), of: name) }
        try await store.setProfile(profile(setAt: at(-200)), of: "oldest")
        try await store.setProfile(profile(setAt: at(0)), of: "fresh")
        try await store.recordProfileUse(["met": at(-10), "never-set": at(0)])
        try await store.recordProfileUse(["met": at(-50), "older": at(-150)])  // another server's, earlier: kept later
        try await store.setProfile(profile(setAt: at(-5)), of: "reset")
        #expect(Set(try await store.expireProfiles(idleBefore: at(-20), limit: 1)) == ["oldest"])
        #expect(Set(try await store.expireProfiles(idleBefore: at(-20), limit: 10)) == ["old", "older"])
        #expect(Set(try await store.profiles().keys) == ["met", "reset", "fresh"])
        #expect(try await store.expireProfiles(idleBefore: at(-20), limit: 10).isEmpty)
        #expect(try await store.expireProfiles(idleBefore: at(-8), limit: 10) == ["met"])
        #expect(Set(try await store.profiles().keys) == ["reset", "fresh"])
        try await store.recordProfileUse([:])
        await store.close()
    }

    /// Uploaded images: their files come back byte for byte by (list, id, digest), and only by the digest stored;
    /// their descriptions come back with the written items after a reopen; a replacement, a removal, the item's
    /// deletion, a wipe and a drop each leave exactly what they should.
    func uploadsRoundTrip() async throws {
        let store = try await open()
        let file = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 8) }  // spans overflow pages
        let image = StoredImage(
            format: .png, width: 640, height: 480, byteCount: file.count, digest: 1 << 100 | 7, revision: 1,
            blurHash: "LKO2?U%2Tw=w]~RBVZRi};RPxuwH")
        let other = StoredImage(format: .webp, width: 3, height: 2, byteCount: 4, digest: .max, revision: 2)
        func written(_ image: StoredImage) -> WrittenItem {
            WrittenItem(
                overrides: ItemOverrides(width: image.width, height: image.height), revision: image.revision,
                image: image)
        }
        var first = Self.effects(header: Self.header(lastSequence: 2), written: [1: written(image), 2: written(other)])
        first.images = [1: .put(image, bytes: file), 2: .put(other, bytes: [1, 2, 3, 4])]
        var batch = Self.batch("photos", first)
        var elsewhere = Self.effects(header: Self.header(lastSequence: 1), written: [1: written(other)])
        elsewhere.images = [1: .put(other, bytes: [9, 9, 9, 9])]
        batch.lists["other"] = elsewhere
        try await store.commit(batch)
        await store.close()

        let reopened = try await open()
        let lists = try await reopened.load()
        #expect(lists["photos"]?.written[1] == written(image))
        #expect(lists["photos"]?.written[2] == written(other))
        #expect(try await reopened.image(of: "photos", id: 1, digest: image.digest) == file)
        #expect(try await reopened.image(of: "photos", id: 1, digest: other.digest) == nil)
        #expect(try await reopened.image(of: "photos", id: 3, digest: image.digest) == nil)
        #expect(try await reopened.image(of: "other", id: 1, digest: other.digest) == [9, 9, 9, 9])

        // Replace item 1's file, remove item 2's, then delete item 1.
        let replacement = StoredImage(format: .jpeg, width: 1, height: 1, byteCount: 2, digest: 5, revision: 3)
        var second = Self.effects(
            header: Self.header(lastSequence: 4), written: [1: written(replacement), 2: Self.labelOnly])
        second.images = [1: .put(replacement, bytes: [0xFF, 0xD8]), 2: .remove]
        try await reopened.commit(Self.batch("photos", second))
        #expect(try await reopened.image(of: "photos", id: 1, digest: image.digest) == nil)
        #expect(try await reopened.image(of: "photos", id: 1, digest: 5) == [0xFF, 0xD8])
        #expect(try await reopened.image(of: "photos", id: 2, digest: other.digest) == nil)
        #expect(try await reopened.load()["photos"]?.written[2]?.image == nil)
        var third = Self.effects(header: Self.header(lastSequence: 5), deleted: [1])
        third.images = [1: .remove]
        try await reopened.commit(Self.batch("photos", third))
        #expect(try await reopened.image(of: "photos", id: 1, digest: 5) == nil)

        // A wipe and a drop take every file of their list, and no other list's.
        var again = Self.effects(header: Self.header(lastSequence: 6), written: [4: written(other)])
        again.images = [4: .put(other, bytes: [1])]
        try await reopened.commit(Self.batch("photos", again))
        try await reopened.commit(Self.batch("photos", Self.effects(header: Self.header(lastSequence: 7), wipe: true)))
        #expect(try await reopened.image(of: "photos", id: 4, digest: other.digest) == nil)
        #expect(try await reopened.image(of: "other", id: 1, digest: other.digest) == [9, 9, 9, 9])
        try await reopened.commit(Self.batch("other", Self.effects(header: nil, drop: true)))
        #expect(try await reopened.image(of: "other", id: 1, digest: other.digest) == nil)
        await reopened.close()
    }

    /// Commits, closes, reopens: ``ListStore/load()`` gives back every header, written item (every field, nil
    /// fields, Unicode) and deletion (ascending, also above 2^63), and a later write replaces an earlier one.
    func stateSurvivesReopening() async throws {
        let store = try await open()
        let photos = Self.header(seed: .max, version: 3, nextID: 10_005, lastSequence: 12)
        var batch = Self.batch(
            "photos",
            Self.effects(
                header: photos, written: [3: Self.everyField, 10_001: Self.labelOnly, 0: Self.noFields],
                deleted: [10_004, 2, 9_999, 7]))
        batch.lists["Ωmega ünïcode/list"] = Self.effects(header: Self.header(seed: 0, nextID: 0))
        // A name with a NUL inside, and the same name cut there: two lists, whatever C string handling is below.
        batch.lists["nul\u{0}inside"] = Self.effects(header: Self.header(seed: 5, nextID: 5), written: [1: Self.zeros])
        batch.lists["nul"] = Self.effects(header: Self.header(seed: 6, nextID: 6))
        batch.lists["huge ids"] = Self.effects(
            header: Self.header(seed: 1 << 63, nextID: .max), written: [.max - 1: Self.zeros],
            deleted: [1 << 63, .max, 1, 0])
        try await store.commit(batch)
        // A second commit: one item rewritten, one deleted (its written fields go), one more written.
        let patched = WrittenItem(overrides: ItemOverrides(label: "patched", likes: 3), revision: 13)
        let later = Self.header(seed: .max, version: 3, nextID: 10_005, lastSequence: 14)
        try await store.commit(
            Self.batch("photos", Self.effects(header: later, written: [3: patched, 5: Self.zeros], deleted: [10_001])))
        await store.close()

        let reopened = try await open()
        let lists = try await reopened.load()
        #expect(Set(lists.keys) == ["photos", "Ωmega ünïcode/list", "huge ids", "nul\u{0}inside", "nul"])
        #expect(
            lists["nul\u{0}inside"] == StoredList(header: Self.header(seed: 5, nextID: 5), written: [1: Self.zeros]))
        #expect(lists["nul"] == StoredList(header: Self.header(seed: 6, nextID: 6)))
        #expect(
            lists["photos"]
                == StoredList(
                    header: later, written: [3: patched, 0: Self.noFields, 5: Self.zeros],
                    deleted: [2, 7, 9_999, 10_001, 10_004]))
        #expect(lists["Ωmega ünïcode/list"] == StoredList(header: Self.header(seed: 0, nextID: 0)))
        #expect(
            lists["huge ids"]
                == StoredList(
                    header: Self.header(seed: 1 << 63, nextID: .max), written: [.max - 1: Self.zeros],
                    deleted: [0, 1, 1 << 63, .max]))
        await reopened.close()
    }

    /// A wipe drops the list's items and deletions but keeps its changes and idempotency records; a drop removes
    /// the list from every table (others stay), and a drop with a header starts the list over.
    func wipeAndDrop() async throws {
        let store = try await open()
        let key = IdempotencyKey(list: "a", key: "k")
        let otherKey = IdempotencyKey(list: "b", key: "k")
        let record = IdempotencyRecord(fingerprint: [1], answer: [2], createdAt: Self.now)
        var first = CommitBatch(idempotency: [key: record, otherKey: record], now: Self.now)
        for name in ["a", "b"] {
            first.lists[name] = Self.effects(
                header: Self.header(lastSequence: 1), written: [1: Self.labelOnly], deleted: [2],
                changes: [Change(sequence: 1, event: .created(Self.item(1)))])
        }
        try await store.commit(first)

        let reset = Change(sequence: 2, event: .reset(ListReset(version: 2, seed: 9, count: 100)))
        let wiped = Self.header(seed: 9, version: 2, lastSequence: 2)
        try await store.commit(Self.batch("a", Self.effects(header: wiped, changes: [reset], wipe: true)))
        var lists = try await store.load()
        #expect(lists["a"] == StoredList(header: wiped))
        #expect(try await store.changes(of: "a", after: 0, limit: 10).changes.map(\.sequence) == [1, 2])
        // A reset's ids start over, so its keys go too: a replayed 201 would name another item.
        #expect(try await store.idempotencyRecords([key], now: Self.now, maxAge: .seconds(60))[key] == nil)

        // A wipe and new rows in one commit: the new rows stay.
        let rewiped = Self.header(seed: 9, version: 3, lastSequence: 2)
        try await store.commit(
            Self.batch("a", Self.effects(header: rewiped, written: [4: Self.labelOnly], deleted: [5], wipe: true)))
        #expect(try await store.load()["a"] == StoredList(header: rewiped, written: [4: Self.labelOnly], deleted: [5]))

        try await store.commit(Self.batch("a", Self.effects(header: nil, drop: true)))
        lists = try await store.load()
        #expect(lists["a"] == nil)
        #expect(lists["b"]?.written == [1: Self.labelOnly])
        #expect(try await store.changes(of: "a", after: 0, limit: 10) == ChangeWindow(changes: [], oldestKept: nil))
        #expect(try await store.changes(of: "b", after: 0, limit: 10).changes.count == 1)
        let records = try await store.idempotencyRecords([key, otherKey], now: Self.now, maxAge: .seconds(60))
        #expect(records == [otherKey: record])

        // A drop with a header: "b" starts over with only this commit's rows.
        let again = Self.header(seed: 5, lastSequence: 1)
        let created = Change(sequence: 1, event: .created(Self.item(100, label: "new")))
        try await store.commit(
            Self.batch(
                "b", Self.effects(header: again, written: [100: Self.everyField], changes: [created], drop: true)))
        #expect(try await store.load()["b"] == StoredList(header: again, written: [100: Self.everyField]))
        #expect(try await store.changes(of: "b", after: 0, limit: 10).changes == [created])
        await store.close()
    }

    /// Changes of all four kinds come back as committed, across a reopen; only the newest ``changesKept`` stay.
    func changesRoundTripAndPrune() async throws {
        let store = try await open()
        let events: [ChangeEvent] = [
            .created(Self.item(100, label: "Ünïcode 🎉")), .updated(Self.item(3)), .deleted(7),
            .reset(ListReset(version: 2, seed: .max, count: 1 << 53)), .created(Self.item(0)),
        ]
        let first = events.enumerated().map { Change(sequence: UInt64($0.offset) + 1, event: $0.element) }
        try await store.commit(Self.batch("a", Self.effects(header: Self.header(lastSequence: 5), changes: first)))
        await store.close()

        let reopened = try await open()
        #expect(
            try await reopened.changes(of: "a", after: 0, limit: 100) == ChangeWindow(changes: first, oldestKept: 1))
        // Seven more, one commit each: 12 in all, the newest 5 (8…12) kept.
        for sequence in UInt64(6)...12 {
            let change = Change(sequence: sequence, event: .deleted(sequence))
            try await reopened.commit(
                Self.batch("a", Self.effects(header: Self.header(lastSequence: sequence), changes: [change])))
        }
        let window = try await reopened.changes(of: "a", after: 0, limit: 100)
        #expect(window.changes.map(\.sequence) == Array(UInt64(13) - UInt64(Self.changesKept)...12))
        #expect(window.oldestKept == 13 - UInt64(Self.changesKept))
        await reopened.close()
    }

    /// `changes(after:limit:)` is a window: after S, at most `limit`, oldest first; `oldestKept` says where the
    /// kept changes begin, also when none come back.
    func changeWindows() async throws {
        let store = try await open()
        let all = (UInt64(1)...4).map { Change(sequence: $0, event: .created(Self.item($0))) }
        try await store.commit(Self.batch("a", Self.effects(header: Self.header(lastSequence: 4), changes: all)))
        #expect(
            try await store.changes(of: "a", after: 1, limit: 2)
                == ChangeWindow(changes: Array(all[1...2]), oldestKept: 1))
        #expect(try await store.changes(of: "a", after: 3, limit: 10) == ChangeWindow(changes: [all[3]], oldestKept: 1))
        #expect(try await store.changes(of: "a", after: 4, limit: 10) == ChangeWindow(changes: [], oldestKept: 1))
        #expect(try await store.changes(of: "a", after: 0, limit: 0) == ChangeWindow(changes: [], oldestKept: 1))
        #expect(try await store.changes(of: "none", after: 0, limit: 10) == ChangeWindow(changes: [], oldestKept: nil))
        await store.close()
    }

    /// Idempotency records come back by key (bytes as written, empty ones too) while younger than `maxAge`; a
    /// key whose record is older than that may be used again.
    ///
    /// Every record here is younger than an hour: a store may prune records older than its TTL at any commit,
    /// and the store under test keeps them an hour or more.
    func idempotencyRecordsAndExpiry() async throws {
        let store = try await open()
        let fresh = IdempotencyKey(list: "a", key: "fresh")
        let old = IdempotencyKey(list: "a", key: "old")
        let elsewhere = IdempotencyKey(list: "b", key: "fresh")
        let records = [
            fresh: IdempotencyRecord(
                fingerprint: Array(0...255), answer: Array(repeating: 0xAB, count: 5_000),
                createdAt: WallTime(milliseconds: Self.now.milliseconds - 1_000)),
            old: IdempotencyRecord(
                fingerprint: [9], answer: [], createdAt: WallTime(milliseconds: Self.now.milliseconds - 1_800_000)),
            elsewhere: IdempotencyRecord(fingerprint: [], answer: Array("{}".utf8), createdAt: Self.now),
        ]
        try await store.commit(CommitBatch(idempotency: records, now: Self.now))
        let keys = [fresh, old, elsewhere, IdempotencyKey(list: "a", key: "missing")]
        let young = try await store.idempotencyRecords(keys, now: Self.now, maxAge: .seconds(600))
        #expect(Set(young.keys) == [fresh, elsewhere])
        #expect(young[fresh] == records[fresh] && young[elsewhere] == records[elsewhere])
        let all = try await store.idempotencyRecords(keys, now: Self.now, maxAge: .seconds(3600))
        #expect(Set(all.keys) == Set(records.keys))
        #expect(all == records)
        // Just expired: created 1 s ago, and at most 1 s old is too old.
        #expect(try await store.idempotencyRecords([fresh], now: Self.now, maxAge: .seconds(1)).isEmpty)

        let reused = IdempotencyRecord(fingerprint: [7], answer: [8], createdAt: Self.now)
        try await store.commit(CommitBatch(idempotency: [old: reused], now: Self.now))
        #expect(try await store.idempotencyRecords([old], now: Self.now, maxAge: .seconds(600)) == [old: reused])
        await store.close()
    }

    /// After ``ListStore/close()`` every call throws `.unavailable`.
    func closedStoreFails() async throws {
        let store = try await open()
        await store.close()
        await #expect(throws: StoreFailure.self) { try await store.load() }
        do throws(StoreFailure) {
            try await store.commit(Self.batch("a", Self.effects(header: Self.header())))
            Issue.record("a closed store committed")
        } catch {
            #expect(error.kind == .unavailable)
        }
        await store.close()  // a second close does nothing
    }
}
