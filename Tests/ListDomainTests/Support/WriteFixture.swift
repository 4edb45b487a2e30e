import ListDomain
import Testing

/// What a change-feed listener was told.
struct Published: Equatable {
    let list: String
    let changes: [Change]
    let dropped: Bool
}

/// A registry, a store that can hold commits, a change feed and the coordinator over them, as the server wires
/// them, with a listener that notes what is published and a wall clock the test sets.
final class WriteFixture: Sendable {
    static let seed: UInt64 = 5
    static let baseCount: UInt64 = 100

    let memory: MemoryListStore
    let store: GatedListStore
    let lists: ListRegistry
    let feed: ChangeFeed
    let coordinator: WriteCoordinator
    let clock: TestClock
    private let publishedLog = PThreadLocked<[Published]>([])
    private let wallTime = PThreadLocked<Int64>(1_000_000)

    /// - Parameters:
    ///   - holding: Whether commits start held at the gate.
    ///   - changesKept, recentCapacity: How many changes the store and the feed's memory window keep.
    ///   - windowBytes: What the feed's windows of recent changes may hold together.
    init(holding: Bool = false, changesKept: Int = 100_000, recentCapacity: Int = 1024, windowBytes: Int = .max) {
        memory = MemoryListStore(changesKept: changesKept)
        store = GatedListStore(memory, holding: holding)
        lists = ListRegistry(seed: Self.seed, count: Self.baseCount)
        clock = TestClock()
        feed = ChangeFeed(
            store: store, lists: lists, recentCapacity: recentCapacity, windowBytes: windowBytes, clock: clock)
        let wallTime = wallTime
        coordinator = WriteCoordinator(
            lists: lists, feed: feed, store: store, idempotencyTTL: .seconds(60),
            wallClock: { WallTime(milliseconds: wallTime.withLock { $0 }) })
        let log = publishedLog
        feed.addListener { list, changes, dropped in
            log.withLock { $0.append(Published(list: list, changes: changes, dropped: dropped)) }
        }
    }

    /// Everything the listener was told, in order.
    var published: [Published] { publishedLog.withLock { $0 } }

    /// Moves the wall clock the idempotency records are stamped with.
    func advanceWallClock(milliseconds: Int64) { wallTime.withLock { $0 += milliseconds } }

    /// A list nobody wrote to.
    var fresh: ListState { ListState(seed: Self.seed, count: Self.baseCount) }

    func submit(_ operation: WriteOperation) async -> WriteOutcome { await coordinator.submit(operation) }

    /// Submits `operation` in a task of its own, and waits until it queues behind the commit in flight (so
    /// operations submitted this way one after the other queue in that order, for one group).
    func submitQueued(_ operation: WriteOperation) async -> Task<WriteOutcome, Never> {
        let queuedBefore = coordinator.queuedCount
        let task = Task { await self.coordinator.submit(operation) }
        #expect(await eventually { self.coordinator.queuedCount == queuedBefore + 1 }, "the write never queued")
        return task
    }
}

/// `POST /items` with `label`.
func createOperation(_ label: String, list: String = "", key: String? = nil, fingerprint: [UInt8] = [1])
    -> WriteOperation
{
    WriteOperation(
        list: list, action: .create(ItemOverrides(label: label)), idempotency: key.map { claim($0, fingerprint) })
}

/// An idempotency claim that records the answer as its description.
func claim(_ key: String, _ fingerprint: [UInt8] = [1]) -> IdempotencyClaim {
    IdempotencyClaim(key: key, fingerprint: fingerprint, record: recorded)
}

/// The bytes a claim made by ``claim(_:_:)`` records for `result`.
@Sendable func recorded(_ result: WriteResult) -> [UInt8] { Array("recorded \(result)".utf8) }

/// The item a `.done(.created(…))` outcome made, or nil.
func createdItem(_ outcome: WriteOutcome) -> Item? {
    if case .done(.created(let item, _)) = outcome { item } else { nil }
}
