import Synchronization

/// The one writer: takes writes from every request, commits them in groups, and answers each once it is durable.
///
/// Writes that arrive while a commit is in flight wait for it, then all go into the next commit together: one
/// transaction and one sync for the whole group (group commit), so throughput grows with concurrency while a lone
/// write still commits at once. Within a group, writes apply in arrival order, each seeing the ones before it.
///
/// A group is applied to copies of the lists it touches; the copies are installed in the ``ListRegistry`` (and the
/// changes published to the ``ChangeFeed``) only after the store has committed, so no reader ever sees a write
/// that could still be lost, and a failed commit (a full disk) leaves memory as it was.
///
/// Two copies of each list written to recently (the pattern known as left-right; at most ``sparesKept`` spares, a
/// list without one is copied from the registry again when next written): the registry's, which readers copy, and
/// the coordinator's own (its ``Spare``), the state before the last commit. A group is applied to the spare, first
/// brought level with the registry by replaying that commit's effects; once committed it is installed, and the
/// state it replaces becomes the next spare. Each copy is then changed only while nobody else holds it, so its
/// copy-on-write tables change in place. Applied to a copy of the registry's state instead, every write copied the
/// bucket of written items it touched, which both copies shared: with some 50,000 items written that was about 40 %
/// of the server's CPU under 64 writing clients, and it grew with every item (Benchmarks/HISTORY.md, "Durable writes").
public final class WriteCoordinator: Sendable {
    private struct Waiting: Sendable {
        let operation: WriteOperation
        let completion: @Sendable (WriteOutcome) -> Void
    }

    /// The coordinator's copy of a list: the state before the list's last commit, and that commit's effects.
    private struct Spare {
        var state: ListState
        /// What brings ``state`` level with the registry; nil when it already is.
        var behind: ListEffects?
    }

    public let lists: ListRegistry
    public let feed: ChangeFeed
    /// Where the writes are committed (and uploaded images' files kept).
    public let store: any ListStore
    /// How long an idempotency record counts.
    private let idempotencyTTL: Duration
    private let wallClock: @Sendable () -> WallTime
    private let queue = CommitQueue<Waiting>()
    /// By list name, for the lists written to most recently (others are copied from the registry again when next
    /// written); touched only by the committing task (the lock is never contended).
    private let spares = Mutex(RecencyTable<Spare>(capacity: WriteCoordinator.sparesKept))
    /// How many lists keep a spare: beyond the lists in use at once, each spare only held memory (a few hundred
    /// bytes for every dataset ever written, its last commit's effects among them).
    package static let sparesKept = 256
    private let statistics = Mutex(WriteStatistics())
    /// Set by ``refuseQueued(_:)``: every later write fails with it.
    private let refusal = Mutex<StoreFailure?>(nil)
    /// Told the duration and size of every successful commit (the server's metrics).
    private let commitObserver: (@Sendable (Duration, Int) -> Void)?
    /// Told the changes other servers made, once this server's copy of their list has them (a shared store):
    /// the server resets its detail cache when another server reset the default list.
    private let remoteChangeObserver: (@Sendable (String, [Change]) -> Void)?
    /// A write that would give one more dataset state is refused past this many.
    public let maxDatasets: Int
    /// A write that would make a list hold more (both copies counted) is refused.
    public let maxDatasetBytes: Int

    /// - Parameters:
    ///   - wallClock: The time stored with idempotency records; tests pass their own.
    ///   - commitObserver: Told each successful commit's duration and number of writes.
    ///   - remoteChangeObserver: Told the changes other servers made to a shared store, by list.
    ///   - maxDatasets: How many datasets (lists but the default) may have state.
    ///   - maxDatasetBytes: How much memory one list's writes may take.
    public init(
        lists: ListRegistry, feed: ChangeFeed, store: any ListStore, idempotencyTTL: Duration,
        wallClock: @escaping @Sendable () -> WallTime,
        commitObserver: (@Sendable (Duration, Int) -> Void)? = nil,
        remoteChangeObserver: (@Sendable (String, [Change]) -> Void)? = nil,
        maxDatasets: Int = .max, maxDatasetBytes: Int = .max
    ) {
        self.maxDatasets = maxDatasets
        self.maxDatasetBytes = maxDatasetBytes
        self.commitObserver = commitObserver
        self.remoteChangeObserver = remoteChangeObserver
        self.lists = lists
        self.feed = feed
        self.store = store
        self.idempotencyTTL = idempotencyTTL
        self.wallClock = wallClock
    }

    /// Applies `operation` with the next group, and returns once that group is committed (or refused).
    public func submit(_ operation: WriteOperation) async -> WriteOutcome {
        await withCheckedContinuation { continuation in
            submit(operation) { continuation.resume(returning: $0) }
        }
    }

    /// ``submit(_:)`` without a task for the writer: `completion` is called once, on the committing thread, when
    /// the group is committed (or refused). The server's writes use this: a task per write cost an allocation of
    /// about 1 kB, and a resumption through the loop's executor, on every POST, PATCH and DELETE.
    public func submit(_ operation: WriteOperation, completion: @escaping @Sendable (WriteOutcome) -> Void) {
        switch queue.append(Waiting(operation: operation, completion: completion)) {
        case .refused:
            completion(.failed(refusal.withLock { $0 } ?? StoreFailure(.unavailable, "closed")))
        case .none: break
        case .start: startCommitter()
        case .resume(let parked): parked.resume(returning: true)
        }
    }

    deinit { queue.close() }

    /// Fails every write still waiting for a group, with `failure`, and every write submitted from now on, and
    /// returns how many were waiting. None of them was applied or ever will be; the writes of a group already
    /// committing are not touched. At the end of a drain: a write answered "shutting down" must not be committed
    /// afterwards, also one that was still on its way to ``submit(_:completion:)`` (an upload being checked).
    @discardableResult
    public func refuseQueued(_ failure: StoreFailure) -> Int {
        refusal.withLock { $0 = failure }
        let refused = queue.removeAll(refusingMore: true)
        for waiting in refused { waiting.completion(.failed(failure)) }
        return refused.count
    }

    /// Starts the one committing task (``CommitQueue``): group after group, parked while no write waits, for as
    /// long as the coordinator lives (it holds the coordinator only while committing a group).
    private func startCommitter() {
        Task(executorPreference: store.preferredExecutor) { [weak self, queue, store] in
            // Two buffers take turns: writes queue into one while the other's group commits, and each keeps its
            // capacity, so a group of 64 writes does not regrow an array from empty (seven allocations, the larger
            // ones making glibc's malloc consolidate its free lists) every time.
            var group: [Waiting] = []
            var scratch = Scratch()
            var committed = false
            while true {
                group.removeAll(keepingCapacity: true)
                queue.take(into: &group)
                if group.isEmpty {
                    guard await queue.park() else { return }
                    committed = false  // woken through the executor's queue: no yield owed
                    continue
                }
                // On a store's own thread (SQLiteStore), the store calls of a commit run inline: without a yield,
                // steady writes would keep the thread from every other job queued on it (a long-poll reading old
                // changes) until they stopped. Yielding puts this task back at the end of that thread's queue
                // between two groups (not after the last one: a lone write would pay a second pass for nothing).
                if committed, store.preferredExecutor != nil { await Task.yield() }
                guard let coordinator = self else {
                    // Gone with writes queued (only if its owner dropped it mid-write): they are not applied.
                    for waiting in group { waiting.completion(.failed(StoreFailure(.unavailable, "closed"))) }
                    return
                }
                await coordinator.commit(group, &scratch)
                committed = true
            }
        }
    }

    /// One list a group writes to: its working state and the group's effects on it so far.
    ///
    /// A group keeps these in a small array searched by name: a group touches one list, seldom a few, and
    /// dictionaries keyed by name cost some twenty string hashes and seven allocations a group (callgrind).
    private struct Touched {
        let name: String
        var state: ListState
        var effects = ListEffects()

        /// Applies a write to the state; `state` and `effects` change in place (neither is shared).
        mutating func apply(_ operation: WriteOperation) -> Result<WriteResult, WriteRejection> {
            state.apply(
                operation.action, condition: operation.condition, imageCondition: operation.imageCondition,
                messageCondition: operation.messageCondition, effects: &effects)
        }

        /// Whether the group changed the list (growth by 0 at the maximum size notes nothing).
        var changed: Bool { !effects.isEmpty }
    }

    /// The buffers of a group's bookkeeping, kept by the committing task from group to group (emptied, capacity
    /// and all): made anew for every group, the outcomes and the lists touched cost two allocations and two lookups
    /// of generic metadata, about 1,400 instructions on a lone write's path (callgrind).
    private struct Scratch {
        var outcomes: [WriteOutcome?] = []
        var touched: [Touched] = []
        /// The effects the spares caught up with, freed once the group is answered rather than on its way.
        var retired: [ListEffects] = []
    }

    /// Applies, commits and answers one group.
    private nonisolated(nonsending) func commit(_ group: [Waiting], _ scratch: inout Scratch) async {
        do throws(StoreFailure) {
            try await loadLists(of: group)
        } catch {
            var failed = group.map { _ in WriteOutcome?.some(.failed(error)) }
            answer(group, &failed)
            return
        }
        if store.isShared {
            do throws(StoreFailure) {
                try await catchUp(group)
            } catch {
                var failed = group.map { _ in WriteOutcome?.some(.failed(error)) }
                answer(group, &failed)
                return
            }
        }
        let now = wallClock()
        var outcomes: [WriteOutcome?] = []
        var touched: [Touched] = []
        var retired: [ListEffects] = []
        swap(&outcomes, &scratch.outcomes)
        swap(&touched, &scratch.touched)
        swap(&retired, &scratch.retired)
        defer {  // after the answers: what the group's bookkeeping held is freed off the writes' path
            outcomes.removeAll(keepingCapacity: true)
            touched.removeAll(keepingCapacity: true)
            retired.removeAll(keepingCapacity: true)
            swap(&outcomes, &scratch.outcomes)
            swap(&touched, &scratch.touched)
            swap(&retired, &scratch.retired)
        }
        for _ in group.indices { outcomes.append(nil) }  // append(contentsOf: repeatElement(…)) cost 600 instructions
        var recorded = await storedRecords(for: group, now: now, outcomes: &outcomes)
        workingStates(of: group, into: &touched, retiring: &retired)
        var batch = CommitBatch(now: now)
        var claimed: [IdempotencyKey: IdempotencyRecord] = [:]
        var answeredFromStore: Set<Int> = []  // answered from a stored record: true whatever this group does
        var created: [String] = []  // datasets this group gives state that had none (maxDatasets)
        let datasets = await datasetsCounted(for: group)
        // By index, here and below: `for element in array` copies each element, every reference in it retained
        // and released again (a list state holds about fifteen).
        for index in group.indices where outcomes[index] == nil {
            let operation = group[index].operation
            let key = operation.idempotency.map { IdempotencyKey(list: operation.list, key: $0.key) }
            if let key, let claim = operation.idempotency, let earlier = claimed[key] ?? recorded[key] {
                if claimed[key] == nil { answeredFromStore.insert(index) }
                outcomes[index] =
                    earlier.fingerprint == claim.fingerprint
                    ? .replayed(earlier.answer) : .rejected(.keyReused(key.key))
                continue
            }
            let list = touched.firstIndex { $0.name == operation.list }!
            if let settled = settledWithoutApplying(
                operation, datasets: datasets, list: touched[list].state, created: &created)
            {
                outcomes[index] = settled
                continue
            }
            switch touched[list].apply(operation) {
            case .failure(let rejection):
                outcomes[index] = .rejected(rejection)
            case .success(let result):
                switch result {
                case .dropped:
                    // The generated list again, but the version and the sequence go on, and the feed says `reset`:
                    // a tag or a feed position of the dropped list must never name something in the new one, and
                    // a client following the feed learns to reload (the header row and that change stay).
                    let before = touched[list].state.header
                    var state = lists.fresh()
                    state.header.version = before.version + 1
                    state.header.lastSequence = before.lastSequence + 1
                    let reset = ListReset(
                        version: state.header.version, seed: state.header.seed, count: state.header.baseCount)
                    touched[list].state = state
                    touched[list].effects.changes = [Change(sequence: state.header.lastSequence, event: .reset(reset))]
                    touched[list].effects.header = state.header
                    fallthrough
                case .reset:
                    // The list's idempotency keys go too (with a reset ids start over, so a replayed 201 would name
                    // another item). The store forgets the stored ones but adds this batch's records afterwards, so
                    // keys claimed earlier in this group leave the batch, and no later write in the group may be
                    // answered from a record of the list as it was.
                    let list = operation.list
                    recorded = recorded.filter { $0.key.list != list }
                    claimed = claimed.filter { $0.key.list != list }
                    batch.idempotency = batch.idempotency.filter { $0.key.list != list }
                default:
                    break
                }
                if let key, let claim = operation.idempotency {
                    let record = IdempotencyRecord(
                        fingerprint: claim.fingerprint, answer: claim.record(result), createdAt: now)
                    claimed[key] = record
                    batch.idempotency[key] = record
                }
                outcomes[index] = .done(result)
            }
        }
        for list in touched.indices where touched[list].changed {
            batch.lists[touched[list].name] = touched[list].effects
        }
        if batch.isEmpty && store.isShared {
            await store.abandonCommit()
        }
        if !batch.isEmpty {
            let started = ContinuousClock.now
            do {
                try await store.commit(batch)
                let duration = ContinuousClock.now - started
                statistics.withLock { $0.recordCommit(writes: group.count, duration: duration) }
                commitObserver?(duration, group.count)
            } catch {
                statistics.withLock { $0.failedCommits += 1 }
                // Nothing of the group happened, so every answer that came from applying it (a refusal too: a 404
                // may stand on a delete earlier in the group) is a failure; only replays of stored records stand.
                // The working states hold the group, so they are dropped: the next group starts from copies of
                // the registry's. (One exception a store cannot rule out: a database connection lost after COMMIT
                // was sent, before its answer came. Then the group may have committed after all: with a shared
                // store the next group's catch-up brings it in, once, and a retry with its Idempotency-Key gets the
                // first answer; the writes answered 503 here were never acknowledged, so none is lost.)
                for index in outcomes.indices where !answeredFromStore.contains(index) {
                    outcomes[index] = .failed(error)
                }
                answer(group, &outcomes)
                return
            }
        }
        install(touched)
        for list in touched.indices where touched[list].changed {
            feed.publish(touched[list].effects.changes, of: touched[list].name, dropped: touched[list].effects.drop)
        }
        // Over the memory budget: the datasets used least recently leave memory (stored, read again when next
        // used), and so do their second copies. Never one this group touched. Before the answers, so that a writer
        // that got its 201 finds the lists back within the budget (a test asserts it; one look under a lock when
        // not over it).
        let evicted = lists.evictOverBudget(keeping: touched.lazy.map(\.name))
        if !evicted.isEmpty {
            spares.withLock { spares in for name in evicted { spares.set(nil, for: name) } }
        }
        answer(group, &outcomes)
    }

    /// The most the text of one written item can hold (``WrittenItems/approximateBytes`` counts it so): the longest
    /// label and author, and an upload's description.
    static let largestTextBytes =
        ItemOverrides.Limits.labelBytes + ItemOverrides.Limits.authorBytes + 2 * 32 + WrittenItems.uploadBytes

    /// The most `action` can add to `list`'s ``ListState/approximateBytes``: the item's room (its slot, and the
    /// slots and chunks before it when the list grew since the last create; or an entry for a generated item) and
    /// the longest text; a deleted id for a delete.
    static func largestGrowth(of action: WriteOperation.Action, to list: ListState) -> Int {
        switch action {
        case .create: list.written.growthBytes(at: list.header.nextID) + largestTextBytes
        case .update(let id, _), .putImage(let id, _): list.written.growthBytes(at: id) + largestTextBytes
        case .delete: 8
        case .sendMessage(_, _, _, let text, _, _), .editMessage(_, _, let text, _): 256 + text.utf8.count
        case .deleteMessage: 256
        case .markRead(_, let key, _): 128 + key.client.utf8.count
        default: 0
        }
    }

    /// The outcome of `operation` when it is settled without applying it to its list: a write that would make one
    /// dataset too many (507), a drop of a dataset that has no state (nothing to forget: nothing is written), an
    /// expiry of a list used since it was found idle. Nil when it is to be applied. A write that gives a dataset
    /// state it had none of is noted in `created`, so the group counts it.
    private func settledWithoutApplying(
        _ operation: WriteOperation, datasets: Int, list: ListState, created: inout [String]
    ) -> WriteOutcome? {
        // Room for what the write could add at most, both copies counted: a full list still takes deletes until
        // their ids (8 bytes each) fill it too; a delete frees the text of an item with a long one.
        if maxDatasetBytes != .max {
            let adding = Self.largestGrowth(of: operation.action, to: list)
            if adding > 0 && ListRegistry.cost(of: list) + 2 * adding > maxDatasetBytes {
                return .rejected(.datasetFull(maxDatasetBytes))
            }
        }
        let name = operation.list
        guard name != ListRegistry.defaultList, !created.contains(name), !lists.exists(name) else {
            if case .expire(let cutoff) = operation.action, let used = lists.lastUse(of: name), used > cutoff {
                return .done(.expired(false))
            }
            return nil
        }
        switch operation.action {
        case .drop: return .done(.dropped)
        case .expire: return .done(.expired(false))
        case .grow(0): return nil
        default:
            guard datasets + created.count < maxDatasets else {
                return .rejected(.tooManyDatasets(maxDatasets))
            }
            created.append(name)
            return nil
        }
    }

    /// How many datasets count against ``maxDatasets`` for this group: those with state, unless the group's
    /// new ones would pass the cap by that count; then those that hold writes, as the store counts them (a dropped
    /// dataset keeps a header row, so that none of its tags or feed positions ever names something in a new one,
    /// but holds nothing: it frees its place). A store that cannot count leaves the count with state.
    private nonisolated(nonsending) func datasetsCounted(for group: [Waiting]) async -> Int {
        let count = lists.datasetCount
        guard maxDatasets != .max else { return count }
        var new: Set<String> = []
        for index in group.indices {
            let operation = group[index].operation
            switch operation.action {
            case .drop, .expire, .grow(0): continue
            default:
                if operation.list != ListRegistry.defaultList && !lists.exists(operation.list) {
                    new.insert(operation.list)
                }
            }
        }
        guard !new.isEmpty, count + new.count > maxDatasets else { return count }
        return (try? await store.datasetsHoldingWrites()) ?? count
    }

    /// Reads from the store the lists the group writes to that are stored but not in memory yet, and installs them
    /// (a list's first use since the server started); a failure fails the whole group, before anything applies.
    private nonisolated(nonsending) func loadLists(of group: [Waiting]) async throws(StoreFailure) {
        for index in group.indices where lists.needsLoading(group[index].operation.list) {
            if case .expire = group[index].operation.action { continue }  // removes every row: needs none of them
            let name = group[index].operation.list
            guard lists.needsLoading(name) else { continue }  // an earlier write of the group named it too
            let stored = try await store.loadList(name)
            if let stored {
                _ = lists.install(ListState(stored), as: name, used: false)  // the read that wants it is the use
            } else {
                lists.remove(name)  // gone meanwhile (another server expired it)
            }
        }
    }

    /// Reads list `list` from the store if it is stored but not in memory yet, in a group of its own: what a read of
    /// a dataset does before its first answer. Afterwards ``ListRegistry/needsLoading(_:)`` is false unless the
    /// store failed.
    public func load(_ list: String) async {
        guard lists.needsLoading(list) else { return }
        _ = await submit(WriteOperation(list: list, action: .grow(0)))
    }

    /// Removes dataset `list` with every row it has, unless it was used after `idleBefore`; whether it was removed.
    public func expire(_ list: String, idleBefore cutoff: WallTime) async -> Bool {
        await submit(WriteOperation(list: list, action: .expire(idleBefore: cutoff))) == .done(.expired(true))
    }

    /// A shared store: locks the lists the group writes to, and brings the registry's copies of those that other
    /// servers wrote to since level with the store, publishing what they wrote to this server's feed (so its
    /// subscribers see every change of the list, in order, whichever server made it).
    ///
    /// A catch-up is installed as a commit is, left-right: the spare, brought level with the registry, takes the
    /// other servers' rows in place and is installed; the state it replaces becomes the spare, behind by those
    /// rows. Applied to a copy of the registry's state instead, every catch-up copied each bucket of written
    /// items it touched, twice (once more for the group): with 200,000 items written that made three replicas
    /// writing to one list 4x slower than with a few thousand (Benchmarks/postgres/run.sh).
    private nonisolated(nonsending) func catchUp(_ group: [Waiting]) async throws(StoreFailure) {
        var positions: [String: ListPosition] = [:]
        for index in group.indices where positions[group[index].operation.list] == nil {
            let name = group[index].operation.list
            positions[name] = ListPosition(lists.state(of: name).header)
        }
        let catchUps = try await store.beginCommit(positions)
        guard !catchUps.isEmpty else { return }
        spares.withLock { spares in
            for (name, catchUp) in catchUps {
                if catchUp.removed {
                    // Expired elsewhere: a list nobody wrote to from now on (the group applies to it as such).
                    spares.set(nil, for: name)
                    lists.remove(name)
                    continue
                }
                if let stored = catchUp.stored {
                    // Reset or dropped elsewhere: the list as stored, built anew; the next group copies it.
                    spares.set(nil, for: name)
                    _ = lists.install(ListState(stored), as: name, used: false)
                    continue
                }
                var state: ListState
                if var spare = spares.removeValue(forKey: name) {  // the only reference now: changes in place
                    if let behind = spare.behind { spare.state.catchUp(with: behind, fresh: lists.fresh()) }
                    state = spare.state
                } else {
                    state = lists.state(of: name)  // a copy, the first time only: from now on there is a spare
                }
                state.catchUp(with: catchUp.effects, fresh: lists.fresh())
                let replaced = lists.install(state, as: name, used: false)  // another server's writes
                spares.set(Spare(state: replaced ?? lists.fresh(), behind: catchUp.effects), for: name)
            }
        }
        for (name, catchUp) in catchUps {
            if catchUp.removed {
                feed.publish([], of: name, dropped: true)  // its streams end
                continue
            }
            publish(catchUp, of: name, after: positions[name]?.lastSequence ?? 0)
            remoteChangeObserver?(name, catchUp.changes)
        }
    }

    /// Hands the changes of a catch-up to the feed as the writing server's commits handed them to its own: drops
    /// where a drop was, and a drop too where changes are missing (pruned before this server saw them; its
    /// subscribers reconnect and are told to reload).
    private func publish(_ catchUp: ListCatchUp, of name: String, after position: UInt64) {
        var segment: [Change] = []
        var dropped = catchUp.changes.first.map { $0.sequence != position + 1 } ?? false
        for change in catchUp.changes {
            if catchUp.droppedAt.contains(change.sequence) {
                if !segment.isEmpty { feed.publish(segment, of: name, dropped: dropped) }
                segment = []
                dropped = true
            }
            segment.append(change)
        }
        if !segment.isEmpty { feed.publish(segment, of: name, dropped: dropped) }
    }

    /// Asks the store whether other servers wrote to `list` since this server's copy, and brings the copy level
    /// (a shared store's notification that `list` changed). Nothing happens for a store no other server writes.
    public func refresh(_ list: String) async {
        _ = await submit(WriteOperation(list: list, action: .grow(0)))
    }

    /// Installs the states the group changed in the registry, after their commit; the states they replace become
    /// the spares, and the lists the group left as they were (every write to them refused) keep theirs. A list the
    /// group removed (expired) leaves the registry.
    private func install(_ touched: [Touched]) {
        spares.withLock { spares in
            for list in touched.indices {
                let name = touched[list].name
                guard touched[list].changed else {
                    spares.set(Spare(state: touched[list].state, behind: nil), for: name)
                    continue
                }
                if touched[list].effects.removesList {  // expired: no state, in memory or stored, from now on
                    lists.remove(name)
                    spares.set(nil, for: name)
                    continue
                }
                let replaced = lists.install(touched[list].state, as: name)
                // After a drop, catching up starts from a fresh list anyway: the dropped state is not kept.
                let before = touched[list].effects.drop ? nil : replaced
                // Uploads' bytes are not needed to catch up (the written items hold what the state keeps of them),
                // and would otherwise stay in memory until the list's next commit.
                var behind = touched[list].effects
                behind.images = [:]
                spares.set(Spare(state: before ?? lists.fresh(), behind: behind), for: name)
            }
        }
    }

    /// Puts in `touched` (empty) the lists a group writes to, in the order it first names them, each with the state
    /// its writes apply to: the list's spare brought level with the registry, or (for a list that has none yet, or
    /// after a failed commit) a copy of the registry's state. The effects a spare caught up with go to `retired`.
    private func workingStates(
        of group: [Waiting], into touched: inout [Touched], retiring retired: inout [ListEffects]
    ) {
        spares.withLock { spares in
            for index in group.indices {
                let name = group[index].operation.list
                guard !touched.contains(where: { $0.name == name }) else { continue }
                if var spare = spares.removeValue(forKey: name) {  // the only reference now: changes in place
                    var behind: ListEffects?
                    swap(&behind, &spare.behind)
                    if case .some(let behind) = consume behind {  // moved, not copied
                        spare.state.catchUp(with: behind, fresh: lists.fresh())
                        // Freeing the last commit's rows and changes here cost a lone write some 800 instructions
                        // on its way (callgrind); the caller frees them after the answers.
                        retired.append(behind)
                    }
                    touched.append(Touched(name: name, state: spare.state))
                } else {
                    touched.append(Touched(name: name, state: lists.state(of: name)))
                }
                // Room for every write of the group: grown from empty, a group of 27 creates rehashed its written
                // items five times and reallocated its changes as often. Not for a lone write, whose first
                // insertion allocates the same room: reserving it first cost about 1,100 instructions more (the
                // dictionary's reserveCapacity runs unspecialized; callgrind).
                if group.count > 1 {
                    touched[touched.count - 1].effects.written.reserveCapacity(group.count)
                    touched[touched.count - 1].effects.changes.reserveCapacity(group.count)
                }
            }
        }
    }

    /// The idempotency records the group's keys already have, looked up in one call; a failed lookup fails
    /// those writes (`outcomes`), since they cannot be told from retries.
    private nonisolated(nonsending) func storedRecords(
        for group: [Waiting], now: WallTime, outcomes: inout [WriteOutcome?]
    ) async
        -> [IdempotencyKey: IdempotencyRecord]
    {
        let keys = group.compactMap { waiting in
            waiting.operation.idempotency.map { IdempotencyKey(list: waiting.operation.list, key: $0.key) }
        }
        guard !keys.isEmpty else { return [:] }
        do {
            return try await store.idempotencyRecords(keys, now: now, maxAge: idempotencyTTL)
        } catch {
            for index in group.indices where group[index].operation.idempotency != nil {
                outcomes[index] = .failed(error)
            }
            return [:]
        }
    }

    /// Calls each write's completion with its outcome, moved out of `outcomes` (a copy would retain everything the
    /// outcome's item holds, and release it again).
    private func answer(_ group: [Waiting], _ outcomes: inout [WriteOutcome?]) {
        for index in group.indices {
            var outcome: WriteOutcome?
            swap(&outcome, &outcomes[index])
            switch consume outcome {
            case .some(let outcome): group[index].completion(outcome)
            case .none: group[index].completion(.failed(StoreFailure(.unavailable, "not applied")))
            }
        }
    }

    /// Commits so far, and their timing (for `/metrics`).
    public var commitStatistics: WriteStatistics { statistics.withLock { $0 } }

    /// How many writes wait for the next group (while a commit is in flight); tests watch it to form a group.
    package var queuedCount: Int { queue.count }
}

/// How the group commits went.
public struct WriteStatistics: Sendable, Equatable {
    /// Commits that succeeded, and the writes they carried.
    public var commits = 0
    public var writes = 0
    public var failedCommits = 0
    /// The latency of the last commit, and the total (for an average).
    public var lastCommit: Duration = .zero
    public var totalCommitTime: Duration = .zero

    mutating func recordCommit(writes: Int, duration: Duration) {
        commits += 1
        self.writes += writes
        lastCommit = duration
        totalCommitTime += duration
    }
}
