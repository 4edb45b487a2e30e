import ListDomain
import Synchronization

/// Every dataset's request journal: what each client asked and got, kept for `GET /admin/journal`, its event
/// stream, the report card (``ReportCard``) and the HAR export.
///
/// Loops record into a ``JournalShard`` each (``makeShard()``), and ``collect()`` takes what they hold, turns each
/// record into a ``JournalEntry`` and adds it to its dataset's ``JournalRing``. The journal is bounded three ways:
/// ``SettingKey/journalCapacity`` entries per dataset (the oldest go), ``SettingKey/journalMaxBytes`` for every
/// journal together (the journals added to longest ago lose their oldest entries first), and a journal goes with
/// its dataset when the dataset is dropped or expires. Shared by every loop and the router.
final class Journal: Sendable {
    let settings: JournalSettings
    /// The route table's path templates, by place: what an entry's `route` says.
    let routes: [String]
    /// The dataset a request went to, given the place of its route; nil for none (the router's rule:
    /// ``Router/journalDataset(of:route:)``).
    let datasetOf: @Sendable (HTTPRequest, Int?) -> String?
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
        var collections: UInt64 = 0
        /// Entries written over or dropped for the byte bound, for `/metrics`.
        var dropped = 0
    }

    /// An entry of a dataset's journal, not numbered yet.
    struct Pending: Sendable {
        let dataset: String
        let entry: JournalEntry
    }

    /// How many journal streams are open, on every loop: with none, a collection hands its entries to nobody.
    let followers = Atomic<Int>(0)

    /// How long a loop keeps records before it collects them itself: what a live view waits at most.
    static let collectAfter = Duration.milliseconds(100)

    init(
        settings: JournalSettings, routes: [String], epoch: ContinuousClock.Instant = .now,
        epochWallMilliseconds: Int64 = 0, datasetOf: @escaping @Sendable (HTTPRequest, Int?) -> String?
    ) {
        self.settings = settings
        self.epochWallMilliseconds = epochWallMilliseconds
        self.routes = routes
        self.datasetOf = datasetOf
        self.epoch = epoch
        state = Mutex(State())
    }

    /// Whether requests are recorded at all (``SettingKey/journalCapacity`` above 0).
    var isOn: Bool { settings.capacity > 0 }

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
    func collect() {
        let taken = shards.withLock { $0 }.map { $0.take() }
        guard taken.contains(where: { !$0.isEmpty }) else { return }
        add(taken)
    }

    /// `record` as an entry of the journal of its dataset; nil for a request that names no dataset it can keep.
    func pending(_ record: JournalRecord, peers: inout PeerNames) -> Pending? {
        guard let dataset = datasetOf(record.request, record.route) else { return nil }
        return Pending(dataset: dataset, entry: JournalEntry(record, epoch: epoch, routes: routes, peers: &peers))
    }

    /// Adds `records` (in the order of their answers), turned into entries.
    func add(_ records: [JournalRecord]) {
        var peers = PeerNames()
        add([records.compactMap { pending($0, peers: &peers) }])
    }

    /// Adds the records of each loop (each in the order of its answers), turned into entries in the order of their
    /// answers: a merge of the loops' runs, reading each record in place (sorting them moved every record, a large
    /// value, several times).
    private func add(_ runs: [[Pending]]) {
        var batches: [String: [JournalEntry]] = [:]
        var next = [Int](repeating: 0, count: runs.count)
        var current: (dataset: String, entries: [JournalEntry])?  // consecutive entries are mostly of one dataset
        while true {
            var earliest: Int?
            for run in runs.indices where next[run] < runs[run].count {
                if let best = earliest, runs[best][next[best]].entry.end <= runs[run][next[run]].entry.end { continue }
                earliest = run
            }
            guard let run = earliest else { break }
            let pending = runs[run][next[run]]
            next[run] += 1
            if current?.dataset == pending.dataset {
                current!.entries.append(pending.entry)
            } else {
                if let current { batches[current.dataset, default: []] += current.entries }
                current = (pending.dataset, [pending.entry])
            }
        }
        if let current { batches[current.dataset, default: []] += current.entries }
        let following = followers.load(ordering: .relaxed) > 0
        var added: [(String, [JournalEntry], Int64?)] = []
        state.withLock { state in
            state.collections += 1
            for (dataset, entries) in batches {
                var ring = state.rings.removeValue(forKey: dataset) ?? JournalRing(capacity: settings.capacity)
                let before = ring.bytes
                let overwritten = max(0, ring.count + entries.count - ring.capacity)
                let numbered = ring.append(contentsOf: entries, returning: following)
                ring.lastAdded = state.collections
                state.bytes += ring.bytes - before
                state.dropped += overwritten
                state.rings[dataset] = ring
                if following { added.append((dataset, numbered, ring.origin)) }
            }
            Self.bound(&state, to: settings.maxBytes)
        }
        let listeners = self.listeners.withLock { $0 }
        for (dataset, entries, origin) in added {
            for listener in listeners { listener(dataset, entries, origin) }
        }
    }

    /// Takes the oldest entries of the journals added to longest ago until every journal together is within
    /// `maxBytes`.
    private static func bound(_ state: inout State, to maxBytes: Int) {
        while state.bytes > maxBytes {
            guard let (dataset, _) = state.rings.min(by: { $0.value.lastAdded < $1.value.lastAdded }) else { return }
            var ring = state.rings.removeValue(forKey: dataset)!
            let count = ring.count
            // A quarter of what it holds at a time, so a journal over the bound is not trimmed entry by entry.
            state.bytes -= ring.removeOldest(freeing: max(state.bytes - maxBytes, ring.bytes / 4))
            state.dropped += count - ring.count
            if !ring.isEmpty { state.rings[dataset] = ring }
        }
    }

    /// A page of `dataset`'s journal: the entries after `since` (of `client`, if given), oldest first.
    func page(of dataset: String, client: String?, since: UInt64, limit: Int) -> JournalPage {
        collect()
        return state.withLock { state in
            guard let ring = state.rings[dataset] else {
                return JournalPage(entries: [], origin: nil, firstSeq: 1, lastSeq: 0, missed: 0, nextSince: 0)
            }
            // A position past the end is one of a journal since restarted (the server was): it starts over.
            let since = since < ring.nextSeq ? since : 0
            let entries = ring.entries(after: since, limit: limit) { client == nil || $0.client == client }
            let missed = since + 1 < ring.firstSeq ? ring.firstSeq - since - 1 : 0
            return JournalPage(
                entries: entries, origin: ring.origin, firstSeq: ring.firstSeq, lastSeq: ring.nextSeq - 1,
                missed: missed, nextSince: entries.last?.seq ?? max(since, ring.firstSeq - 1))
        }
    }

    /// Every entry of `dataset`'s journal (of `client`, if given), oldest first, and when its first request came.
    func entries(of dataset: String, client: String? = nil) -> (entries: [JournalEntry], origin: Int64?) {
        collect()
        return state.withLock { state in
            guard let ring = state.rings[dataset] else { return ([], nil) }
            return (ring.all.filter { client == nil || $0.client == client }, ring.origin)
        }
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
            ring.removeAll(at: JournalEntry.microseconds(epoch.duration(to: .now)))
            state.rings[dataset] = ring
        }
    }

    /// Forgets `dataset`'s journal with the dataset (dropped, or expired).
    func remove(_ dataset: String) {
        collect()
        state.withLock { state in
            guard let ring = state.rings.removeValue(forKey: dataset) else { return }
            state.bytes -= ring.bytes
        }
    }

    /// Forgets the journals no request was added to for `idle` (a dataset only ever read expires with nothing in
    /// the store: its journal goes here, with the dataset sweep).
    func removeIdle(for idle: Duration) {
        collect()
        let cutoff = JournalEntry.microseconds(epoch.duration(to: .now) - idle)
        state.withLock { state in
            for (dataset, ring) in state.rings where ring.lastActivity < cutoff {
                state.rings[dataset] = nil
                state.bytes -= ring.bytes
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
