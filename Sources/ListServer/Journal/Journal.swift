import ListDomain
import Synchronization

/// Every dataset's request journal: what each client asked and got, kept for `GET /admin/journal`, its event
/// stream, the report card (``ReportCard``) and the HAR export.
///
/// Loops record into a ``JournalShard`` each (``makeShard()``), and ``collect()`` takes the slots they hold and copies
/// each into its dataset's ``JournalRing``; a slot becomes a ``JournalEntry`` when someone reads the journal. The
/// journal is bounded three ways: ``SettingKey/journalCapacity`` entries per dataset (the oldest go),
/// ``SettingKey/journalMaxBytes`` for every journal together (the journals added to longest ago lose their oldest
/// entries first), and a journal goes with its dataset when the dataset is dropped or expires. Shared by every loop
/// and the router.
final class Journal: Sendable {
    let settings: JournalSettings
    /// The route table's path templates, by place: what an entry's `route` says.
    let routes: [String]
    /// The dataset a request went to (and the client its query names), given the place of its route and its
    /// `X-Dataset` field; nil for none (the router's rule: ``Router/journalDataset(of:route:datasetField:)``).
    let datasetOf: @Sendable (HTTPRequest, Int?, String?) -> Attribution?
    /// What entry times count from, and the wall-clock time then (milliseconds since 1970, for the HAR export).
    let epoch: ContinuousClock.Instant
    let epochWallMilliseconds: Int64
    /// The loops' buffers.
    private let shards = Mutex<[JournalShard]>([])
    private let state: Mutex<State>
    /// Told of the entries each collection added, by dataset, with when the dataset's first request came (the
    /// loops' journal streams).
    private let listeners = Mutex<[Listener]>([])

    typealias Listener = @Sendable (_ dataset: String, _ entries: [JournalEntry], _ origin: Int64?) -> Void

    private struct State {
        var rings: [String: JournalRing] = [:]
        var bytes = 0
        /// Where the journals forgotten lately (dropped, expired, evicted) had got to: one made again for the same
        /// dataset numbers on from there, so no number names two of its requests while the server runs. At most
        /// ``retiredLimit`` names.
        var retired: [String: UInt64] = [:]

        mutating func retire(_ dataset: String, _ ring: JournalRing) {
            if retired.count >= Journal.retiredLimit { retired.removeAll(keepingCapacity: true) }
            retired[dataset] = ring.nextSeq
        }
        var collections: UInt64 = 0
        /// Entries written over or dropped for the byte bound, for `/metrics`.
        var dropped = 0
    }

    /// Whose a request is: its dataset, and the client its query names (`?client_id=`, for an `<img>` or an
    /// `EventSource`, which send no field of their own; read by the router on the routes that read `?dataset=`).
    struct Attribution: Sendable {
        let dataset: String
        var queryClient: String?
    }

    /// A request of a dataset's journal, not numbered yet.
    struct Pending: Sendable {
        let dataset: String
        let slot: JournalSlot
        let extra: JournalSlot.Extra?
    }

    /// What an opened slot (``open(_:route:slot:tag:)``) has besides its bytes: its dataset, when not the default
    /// list, and its extra. A class, and none for most requests: a loop's note of a request in flight holds the slot
    /// and this reference, plain bytes and one pointer to copy, where a string and an optional reference in a
    /// struct cost outlined copies and checks at each move (callgrind: 500 instructions a page).
    final class SlotTag: Sendable {
        let dataset: String
        let extra: JournalSlot.Extra?

        init(dataset: String, extra: JournalSlot.Extra?) {
            self.dataset = dataset
            self.extra = extra
        }
    }

    /// How many journal streams are open, on every loop: with none, a collection hands its entries to nobody.
    let followers = Atomic<Int>(0)

    /// How long a loop keeps records before it collects them itself: what a live view waits at most.
    static let collectAfter = Duration.milliseconds(100)

    init(
        settings: JournalSettings, routes: [String], epoch: ContinuousClock.Instant = .now,
        epochWallMilliseconds: Int64 = 0, datasetOf: @escaping @Sendable (HTTPRequest, Int?, String?) -> Attribution?
    ) {
        self.settings = settings
        self.epochWallMilliseconds = epochWallMilliseconds
        self.routes = routes
        self.datasetOf = datasetOf
        self.epoch = epoch
        state = Mutex(State())
    }

    /// A buffer for one loop to record into.
    func makeShard() -> JournalShard {
        let shard = JournalShard()
        shards.withLock { $0.append(shard) }
        return shard
    }

    /// Calls `listener` with the entries of each collection, by dataset, on the collecting thread.
    func addListener(_ listener: @escaping Listener) {
        listeners.withLock { $0.append(listener) }
    }

    /// Takes every loop's records into the journals; a reader calls it first, so that it sees every request
    /// answered before it asked.
    ///
    /// One collection at a time (``collecting``): two at once (two loops' timers, a timer and a reader) could number
    /// a later batch before an earlier one, hand a stream its entries out of order, or let a reader answer before
    /// the batch another collection had taken was in.
    func collect() {
        collecting.withLock { _ in collectHoldingLock() }
    }

    /// ``collect()``, unless another collection is under way (a loop's own, which would otherwise wait for it);
    /// returns false then, having taken nothing.
    func collectUnlessBusy() -> Bool {
        collecting.withLockIfAvailable { _ in collectHoldingLock() } != nil
    }

    private func collectHoldingLock() {
        let shards = self.shards.withLock { $0 }
        var runs = shards.map { $0.take() }
        guard runs.contains(where: { !$0.slots.isEmpty }) else { return }
        add(runs)
        for index in runs.indices where runs[index].slots.capacity > 0 {
            runs[index].removeAll()
            shards[index].recycle(runs[index])
        }
    }

    /// The most forgotten journals whose numbering is remembered.
    static let retiredLimit = 10_000

    /// Held by a collection from its taking to its listeners' last call.
    private let collecting = Mutex<Void>(())

    /// Opens `request`, as it arrives, for the journal of its dataset: writes its request's half into `slot` (one
    /// with nothing in it yet, ``JournalSlot/empty``), and sets `tag` for a slot that needs one; false for a request
    /// that names no dataset it can keep. `route` is the place of its route in the route table, nil for none.
    ///
    /// Opened then, the request need not be kept until its answer: a loop's note of a request in flight held a copy
    /// of it for the journal, whose reference counts, taken and given back, cost 300 instructions a page (callgrind).
    func open(
        _ request: borrowing HTTPRequest, route: Int?, slot: inout JournalSlot, tag: inout SlotTag?
    ) -> Bool {
        let fields = request.headers.journalRequestFields()
        guard let attribution = datasetOf(request, route, fields.dataset.map { request.headers.value(at: $0) })
        else { return false }
        var extra: JournalSlot.Extra?
        slot.open(request, fields: fields, route: route, queryClient: attribution.queryClient, extra: &extra)
        tag = attribution.dataset.isEmpty && extra == nil ? nil : SlotTag(dataset: attribution.dataset, extra: extra)
        return true
    }

    /// `request`, answered with `response`, as a request of the journal of its dataset, opened and closed at once;
    /// nil for a request that names no dataset it can keep.
    func pending(
        _ request: borrowing HTTPRequest, route: Int?, _ response: borrowing HTTPResponse,
        start: ContinuousClock.Instant, end: ContinuousClock.Instant, abandonedAt: Int? = nil
    ) -> Pending? {
        var slot = JournalSlot.empty
        var tag: SlotTag?
        guard open(request, route: route, slot: &slot, tag: &tag) else { return nil }
        var extra = tag?.extra
        slot.close(
            response, times: (JournalSlot.time(start), JournalSlot.time(end)), abandonedAt: abandonedAt, extra: &extra)
        return Pending(dataset: tag?.dataset ?? ListRegistry.defaultList, slot: slot, extra: extra)
    }

    /// Adds `pending` (in the order of their answers): what a loop's buffer would hand over.
    func add(_ pending: [Pending]) {
        var batch = JournalShard.Batch()
        for request in pending {
            if !request.dataset.isEmpty || request.extra != nil {
                batch.tags.append(
                    JournalShard.Tag(index: batch.slots.count, dataset: request.dataset, extra: request.extra))
            }
            batch.slots.append(request.slot)
        }
        add([batch])
    }

    /// `instant` in microseconds since the epoch.
    private func microseconds(_ instant: ContinuousClock.Instant?) -> Int64? {
        instant.map { JournalEntry.microseconds(epoch.duration(to: $0)) }
    }

    /// Adds the requests of each loop (each in the order of its answers) in the order of their answers, a merge of
    /// the loops' runs, each written into its dataset's ring where it lies: no array of them is made on the way.
    ///
    /// The slots are read in place, through pointers into the loops' buffers, and copied once, as bytes, into their
    /// rings. Read from an array of them, `slots[i].end` copied a whole slot out to read its end; copied into one
    /// array first, then into the rings by value, each slot was copied four times (callgrind: 1,300 instructions a
    /// slot for a collection, and a third of the memory copying of a page with the journal on, perf).
    private func add(_ runs: [JournalShard.Batch]) {
        var writer = RingWriter(epoch: epoch)
        Self.withSlots(of: runs) { runSlots in
            // Nearly every collection is of the default list's requests alone, with no stream following: they go
            // straight into its ring. Otherwise, slot by slot, and when one loop's run alone has slots (one loop
            // busy, or the others' buffers just taken) its order is its own, and no merge is made (a merge of one
            // run cost 150 instructions a slot, callgrind).
            let busy = runSlots.indices.filter { !runSlots[$0].isEmpty }
            state.withLock { state in
                // Read under the lock a stream reads the journal under as it opens: a stream counted after this reads
                // what this collection adds.
                writer.following = followers.load(ordering: .sequentiallyConsistent) > 0
                state.collections += 1
                writer.collection = state.collections
                if !busy.isEmpty && !writer.following && runs.allSatisfy({ $0.tags.isEmpty }) {
                    writer.addPlain(runSlots, &state, settings)  // the default list's, none with an extra
                } else if busy.count > 1 {
                    Self.merge(runSlots, runs: runs) { slot, tag in writer.write(slot, tag: tag, &state, settings) }
                } else if let run = busy.first {
                    let (slots, tags) = (runSlots[run], runs[run].tags)
                    var nextTag = 0
                    Self.prefetch(slots, from: 0, count: Self.fetchAhead)
                    for index in slots.indices {
                        Self.prefetch(slots, from: index + Self.fetchAhead, count: 1)
                        if nextTag < tags.count && tags[nextTag].index == index {
                            writer.write(slots.baseAddress! + index, tag: tags[nextTag], &state, settings)
                            nextTag += 1
                        } else {
                            writer.write(slots.baseAddress! + index, tag: nil, &state, settings)
                        }
                    }
                }
                writer.putBack(&state)
                Self.bound(&state, to: settings.maxBytes)
            }
        }
        guard !writer.added.isEmpty else { return }
        let listeners = self.listeners.withLock { $0 }
        for (dataset, kept) in writer.added {
            let entries = kept.map { $0.slot.entry(routes: routes, epoch: epoch, extra: $0.extra) }
            for listener in listeners { listener(dataset, entries, writer.origins[dataset] ?? nil) }
        }
    }

    /// Calls `body` with the storage of each run's slots, in place (one nested access a run: the pointers are good
    /// only inside).
    private static func withSlots(
        of runs: [JournalShard.Batch], from first: Int = 0, _ taken: [UnsafeBufferPointer<JournalSlot>] = [],
        _ body: ([UnsafeBufferPointer<JournalSlot>]) -> Void
    ) {
        guard first < runs.count else { return body(taken) }
        runs[first].slots.withUnsafeBufferPointer { slots in withSlots(of: runs, from: first + 1, taken + [slots], body)
        }
    }

    /// Calls `write` with the slots of every run and their tags in the order of their answers (by `end`): a merge of
    /// the runs, each already in order, written as it goes (an array of the order, made first, cost its appends and
    /// a second pass).
    @inline(__always)
    private static func merge(
        _ slots: [UnsafeBufferPointer<JournalSlot>], runs: [JournalShard.Batch],
        _ write: (UnsafePointer<JournalSlot>, JournalShard.Tag?) -> Void
    ) {
        var left = slots.reduce(0) { $0 + $1.count }
        var heads = [Int](repeating: 0, count: slots.count)
        // Each run's next tag, and the slot it is of (.max for none left).
        var nextTags = [Int](repeating: 0, count: slots.count)
        var taggedAt = runs.map { $0.tags.first?.index ?? .max }
        // The loops' buffers are cold by now, and reading each run's next end missed the cache at every slot (perf:
        // 85 % of the merge's samples): each run's slots are asked for `fetchAhead` ahead of the one read.
        for run in slots.indices { prefetch(slots[run], from: 0, count: fetchAhead) }
        while left > 0 {
            let (earliest, index) = takeEarliest(slots, &heads)
            var tag: JournalShard.Tag?
            if taggedAt[earliest] == index {
                let tags = runs[earliest].tags
                tag = tags[nextTags[earliest]]
                nextTags[earliest] += 1
                taggedAt[earliest] = nextTags[earliest] < tags.count ? tags[nextTags[earliest]].index : .max
            }
            left -= 1
            write(slots[earliest].baseAddress! + index, tag)
        }
    }

    /// The run of `runs` whose next slot (at its head in `heads`) was answered first, and that slot's place, taken:
    /// its run's head moves on, and that run's slot ``fetchAhead`` on is asked for (a collection's reads of the
    /// loops' cold buffers missed the cache at every slot, perf). Ends are read in place: `runs[run][index].end`
    /// copied the whole slot out. Ties go to the earlier run. What the merges of ``merge(_:runs:_:)`` and
    /// ``JournalRing/addPlain(_:collection:)`` take their next slot with.
    @inline(__always)
    static func takeEarliest(
        _ runs: [UnsafeBufferPointer<JournalSlot>], _ heads: inout [Int]
    ) -> (run: Int, index: Int) {
        var earliest = -1
        var earliestEnd = Int64.max
        for run in runs.indices where heads[run] < runs[run].count {
            let end = (runs[run].baseAddress! + heads[run]).pointer(to: \.end)!.pointee
            if earliest < 0 || end < earliestEnd { (earliest, earliestEnd) = (run, end) }
        }
        let (run, index) = (runs[earliest], heads[earliest])
        heads[earliest] = index + 1
        if index + fetchAhead < run.count {
            Prefetch.forReading(UInt(bitPattern: run.baseAddress! + index + fetchAhead), as: JournalSlot.self)
        }
        return (earliest, index)
    }

    /// How many slots ahead a collection asks for the slots it reads, and a full ring for those it writes.
    static let fetchAhead = 8

    /// Asks for `count` slots of `slots` from `first` (those that are there), whole: the merge reads their ends, and
    /// the rings copy them.
    static func prefetch(_ slots: UnsafeBufferPointer<JournalSlot>, from first: Int, count: Int) {
        guard first < slots.count, let base = slots.baseAddress else { return }
        let stride = MemoryLayout<JournalSlot>.stride
        Prefetch.forReading(UInt(bitPattern: base + first), bytes: min(count, slots.count - first) * stride)
    }

    /// What a collection writes into the rings, one dataset's ring at a time: the ring being written is taken out of
    /// the table (requests come mostly of one dataset) and put back when the dataset changes or the collection ends.
    private struct RingWriter {
        var collection: UInt64 = 0
        /// The dataset whose ring is out; nil for none.
        private(set) var dataset: String?
        /// Whether that is the default list's (compared without a `String` at every slot).
        private(set) var atDefault = false
        private var ring = JournalRing(capacity: 1)
        /// What the ring took before this collection.
        private var before = 0
        /// The entries added, by dataset, for the listeners, and when each dataset's first request came.
        private(set) var added: [String: [JournalRing.Kept]] = [:]
        private(set) var origins: [String: Int64?] = [:]
        /// What the origins count from.
        private let epoch: ContinuousClock.Instant
        var following = false

        init(epoch: ContinuousClock.Instant) { self.epoch = epoch }

        /// Puts the ring being written back, and takes `name`'s out (made if it has none).
        mutating func switchTo(_ name: String, _ state: inout State, _ settings: JournalSettings) {
            putBack(&state)
            if let kept = state.rings.removeValue(forKey: name) {
                ring = kept
                before = ring.bytes
            } else {
                Journal.makeRoomForOneMore(&state, within: settings.maxDatasets)
                let firstSeq = state.retired.removeValue(forKey: name) ?? 1
                ring = JournalRing(capacity: settings.capacity, firstSeq: firstSeq)
                before = 0  // its own overhead counts from now
            }
            dataset = name
            atDefault = name == ListRegistry.defaultList
        }

        /// Adds the slot at `slot` to its dataset's ring: the default list's without a `tag`, else the tag's (with
        /// its extra).
        mutating func write(
            _ slot: UnsafePointer<JournalSlot>, tag: JournalShard.Tag?, _ state: inout State,
            _ settings: JournalSettings
        ) {
            guard let tag else {
                if !atDefault { switchTo(ListRegistry.defaultList, &state, settings) }
                return add(slot, extra: nil, &state)
            }
            if dataset != tag.dataset { switchTo(tag.dataset, &state, settings) }  // the default list's, with an extra
            add(slot, extra: tag.extra, &state)
        }

        /// Adds the slot at `slot` (and its extra) to the ring being written.
        mutating func add(_ slot: UnsafePointer<JournalSlot>, extra: JournalSlot.Extra?, _ state: inout State) {
            if ring.count == ring.capacity { state.dropped += 1 }
            ring.add(slot, extra: extra, collection: collection)
            if following, let dataset { added[dataset, default: []].append(ring.newest) }
        }

        /// Adds the slots of `runs`, merged, to the default list's ring: slots with no tag
        /// (``JournalRing/addPlain(_:collection:)``), for no listener.
        mutating func addPlain(
            _ runs: [UnsafeBufferPointer<JournalSlot>], _ state: inout State, _ settings: JournalSettings
        ) {
            if !atDefault { switchTo(ListRegistry.defaultList, &state, settings) }
            state.dropped += ring.addPlain(runs, collection: collection)
        }

        /// Puts the ring being written back into the table.
        /// (The ring is let go of here, so the table's is the only reference to its storage: the next collection
        /// writes into it in place.)
        mutating func putBack(_ state: inout State) {
            guard let name = dataset else { return }
            ring.lastAdded = collection
            state.bytes += ring.bytes - before
            if following { origins[name] = ring.origin.map { JournalEntry.microseconds(epoch.duration(to: $0)) } }
            state.rings[name] = ring
            ring = JournalRing(capacity: 1)
            dataset = nil
            atDefault = false
        }
    }

    /// Takes the oldest entries of the journals added to longest ago until every journal together is within
    /// `maxBytes`: in that order, found once (a look for the oldest at each step cost the number of journals each
    /// time, under the lock a loop collects under).
    private static func bound(_ state: inout State, to maxBytes: Int) {
        guard state.bytes > maxBytes else { return }
        let order = state.rings.map { ($0.key, $0.value.lastAdded) }.sorted { $0.1 < $1.1 }.map(\.0)
        for dataset in order where state.bytes > maxBytes {
            guard var ring = state.rings.removeValue(forKey: dataset) else { continue }
            let count = ring.count
            state.bytes -= ring.removeOldest(freeing: state.bytes - maxBytes)
            state.dropped += count - ring.count
            if ring.isEmpty {
                state.bytes -= ring.bytes  // its own overhead
                state.retire(dataset, ring)
            } else {
                state.rings[dataset] = ring
            }
        }
    }

    /// Forgets the journal added to longest ago when there are `limit` already (datasets a client names at will:
    /// each name its journal, without this).
    private static func makeRoomForOneMore(_ state: inout State, within limit: Int) {
        guard state.rings.count >= limit,
            let (dataset, _) = state.rings.min(by: { $0.value.lastAdded < $1.value.lastAdded }),
            let ring = state.rings.removeValue(forKey: dataset)
        else { return }
        state.bytes -= ring.bytes
        state.dropped += ring.count
        state.retire(dataset, ring)
    }

    /// A page of `dataset`'s journal: the entries after `since` (of `client`, if given), oldest first.
    /// With `newest`, the newest `limit` of them (a stream's replay).
    func page(of dataset: String, client: String?, since: UInt64, limit: Int, newest: Bool = false) -> JournalPage {
        collect()
        // The slots are copied out under the lock (bytes, mostly) and read into entries after it: a page of 10,000
        // read under it would hold up the loops that collect.
        struct Kept {
            var slots: [JournalRing.Kept] = []
            var origin: Int64?
            var firstSeq: UInt64 = 1
            var lastSeq: UInt64 = 0
            /// The `since` asked (0 for a journal since restarted), and where the read started (later for `newest`).
            var since: UInt64 = 0
            var start: UInt64 = 0
        }
        let kept = state.withLock { state -> Kept in
            guard let ring = state.rings[dataset] else { return Kept() }
            // A position past the end is one of a journal since restarted (the server was): it starts over.
            let since = since < ring.nextSeq ? since : 0
            var start = since
            if newest, client == nil, ring.nextSeq - 1 > UInt64(limit) {
                start = max(since, ring.nextSeq - 1 - UInt64(limit))
            }
            let slots = ring.entries(after: start, limit: client == nil ? limit : .max)
            return Kept(
                slots: slots, origin: microseconds(ring.origin), firstSeq: ring.firstSeq, lastSeq: ring.nextSeq - 1,
                since: since, start: start)
        }
        var entries: [JournalEntry] = []
        for slot in kept.slots where entries.count < limit {
            let entry = slot.slot.entry(routes: routes, epoch: epoch, extra: slot.extra)
            if client == nil || entry.client == client { entries.append(entry) }
        }
        // What came after `since` that this page does not start with: no longer kept, or skipped for the newest.
        let firstGiven = max(kept.start, kept.firstSeq - 1)
        let missed = firstGiven > kept.since ? firstGiven - kept.since : 0
        let nextSince =
            entries.count == limit
            ? entries.last!.seq : kept.slots.last?.slot.seq ?? max(kept.start, kept.firstSeq - 1)
        return JournalPage(
            entries: entries, origin: kept.origin, firstSeq: kept.firstSeq, lastSeq: kept.lastSeq, missed: missed,
            nextSince: nextSince)
    }

    /// Every entry of `dataset`'s journal (of `client`, if given), oldest first, and when its first request came.
    func entries(of dataset: String, client: String? = nil) -> (entries: [JournalEntry], origin: Int64?) {
        collect()
        let (slots, origin) = state.withLock { state -> ([JournalRing.Kept], Int64?) in
            guard let ring = state.rings[dataset] else { return ([], nil) }
            return (ring.all, microseconds(ring.origin))
        }
        let entries = slots.map { $0.slot.entry(routes: routes, epoch: epoch, extra: $0.extra) }
        return (entries.filter { client == nil || $0.client == client }, origin)
    }

    /// The number the next entry of `dataset` gets: where a live stream starts.
    func nextSeq(of dataset: String) -> UInt64 {
        state.withLock { $0.rings[dataset]?.nextSeq ?? 1 }
    }

    /// Empties `dataset`'s journal (`DELETE /admin/journal`); its numbering goes on.
    func clear(_ dataset: String) {
        collect()
        state.withLock { state in
            guard var ring = state.rings.removeValue(forKey: dataset) else { return }
            state.bytes -= ring.bytes
            ring.removeAll(at: .now)
            state.bytes += ring.bytes
            state.rings[dataset] = ring
        }
    }

    /// Forgets `dataset`'s journal with the dataset (dropped, or expired).
    func remove(_ dataset: String) {
        collect()
        state.withLock { state in
            guard let ring = state.rings.removeValue(forKey: dataset) else { return }
            state.bytes -= ring.bytes
            state.retire(dataset, ring)
        }
    }

    /// Forgets the journals no request was added to for `idle` (a dataset only ever read expires with nothing in
    /// the store: its journal goes here, with the dataset sweep).
    func removeIdle(for idle: Duration) {
        collect()
        let cutoff = ContinuousClock.now - idle
        state.withLock { state in
            for (dataset, ring) in state.rings where (ring.lastActivity ?? cutoff) <= cutoff {
                state.rings[dataset] = nil
                state.bytes -= ring.bytes
                state.retire(dataset, ring)
            }
        }
    }

    /// What the journals hold, for `/metrics`.
    var usage: (entries: Int, bytes: Int, datasets: Int, dropped: Int) {
        state.withLock { state in
            (state.rings.values.reduce(0) { $0 + $1.count }, state.bytes, state.rings.count, state.dropped)
        }
    }
}

/// A page of a journal (``Journal/page(of:client:since:limit:)``).
struct JournalPage: Sendable {
    let entries: [JournalEntry]
    /// When the journal's first request came (`t_ms` counts from it); nil for an empty journal.
    let origin: Int64?
    /// The oldest entry kept, and the newest.
    let firstSeq: UInt64
    let lastSeq: UInt64
    /// How many entries after `since` were no longer kept (written over, or dropped for the byte bound).
    let missed: UInt64
    /// The `since` of the next page: the last entry's `seq` (or, with none, where the journal stands).
    let nextSince: UInt64
}
