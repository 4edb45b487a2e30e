import Synchronization

/// The lists' change feeds, live: what was just committed goes to every listener at once, and to long-polls
/// waiting for it; older changes come from a small window in memory, or from the store.
///
/// Listeners are the server's event loops (one each), which fan a change out to their own streams: a change is
/// handed over once per loop, whatever the number of subscribers.
public final class ChangeFeed: Sendable {
    /// What a listener is told: the list, its new changes (in order), and whether the list was dropped first. No
    /// changes and dropped: the list was removed with every row (an idle dataset expired), and its feed starts over
    /// from sequence number 0, so a stream of it ends (its client reconnects and is told to reload).
    public typealias Listener = @Sendable (_ list: String, _ changes: [Change], _ dropped: Bool) -> Void
    /// What a listener of signals is told: the list, and someone typing in it (``announce(_:of:)``).
    public typealias SignalListener = @Sendable (_ list: String, _ signal: TypingSignal) -> Void

    private struct Waiter {
        let after: UInt64
        let limit: Int
        let continuation: CheckedContinuation<[Change], Never>
    }

    /// A list's most recent changes, oldest first, and about how many bytes they hold.
    private struct Window {
        var changes: [Change] = []
        var bytes = 0
    }

    private struct State {
        /// The most recent changes of each list: up to twice `recentCapacity`, so that the oldest are dropped (a
        /// move of the rest) once every `recentCapacity` changes instead of on every commit; only the last
        /// `recentCapacity` are the window (``ChangeFeed/recentWindow(_:)``). Kept for the lists committed to most
        /// recently (``windowsKept``), within ``windowBytes`` together; the others' are read from the store.
        var recent: RecencyTable<Window>
        var listeners: [Listener] = []
        var signalListeners: [SignalListener] = []
        /// Long-polls waiting for a change, by list and token.
        var waiters: [String: [UInt64: Waiter]] = [:]
        var nextToken: UInt64 = 0
    }

    /// How many recent changes per list are kept in memory (older ones are read from the store).
    public let recentCapacity: Int
    /// How many lists keep a window of recent changes in memory.
    static let windowsKept = 256
    /// The most bytes the windows hold together (a change holds its item, text included: 256 windows of 2,048
    /// changes with 2,000-byte labels were a gigabyte).
    public let windowBytes: Int
    private let state: Mutex<State>
    private let store: any ListStore
    private let lists: ListRegistry
    private let clock: any Clock<Duration>

    /// - Parameters:
    ///   - recentCapacity: How many recent changes of a list memory answers for.
    ///   - windowBytes: The most the windows of recent changes may hold together; the least recently written
    ///     lists' go first.
    public init(
        store: any ListStore, lists: ListRegistry, recentCapacity: Int = 1024, windowBytes: Int = .max,
        clock: any Clock<Duration> = ContinuousClock()
    ) {
        self.store = store
        self.lists = lists
        self.recentCapacity = recentCapacity
        self.windowBytes = windowBytes
        self.clock = clock
        state = Mutex(
            State(recent: RecencyTable(capacity: Self.windowsKept, maxWeight: windowBytes, weigh: { $0.bytes })))
    }

    /// What the windows of recent changes hold now, about, in bytes.
    public var windowBytesInUse: Int { state.withLock { $0.recent.weight } }

    /// Adds a listener for every list's changes from now on.
    public func addListener(_ listener: @escaping Listener) {
        state.withLock { $0.listeners.append(listener) }
    }

    /// Adds a listener for every list's typing signals from now on.
    public func addSignalListener(_ listener: @escaping SignalListener) {
        state.withLock { $0.signalListeners.append(listener) }
    }

    /// Hands `signal` to the signal listeners (each loop's live streams of `list`) and keeps nothing: a stream that
    /// opens later, or reconnects, never sees it. In this process only: another replica's streams do not hear it.
    public func announce(_ signal: TypingSignal, of list: String) {
        for listener in state.withLock({ $0.signalListeners }) { listener(list, signal) }
    }

    /// Hands committed changes to the listeners and the waiting long-polls; the ``WriteCoordinator`` calls this
    /// after each commit, in commit order.
    func publish(_ changes: [Change], of list: String, dropped: Bool) {
        let (listeners, woken) = state.withLock { state -> ([Listener], [(Waiter, [Change])]) in
            if dropped { state.recent.set(nil, for: list) }
            // In place, and with one lookup of the name (each hashes it): a copy out of the dictionary and back
            // would copy the whole window on every commit.
            if !changes.isEmpty {
                state.recent.modify(list, default: Window()) {
                    Self.append(changes, to: &$0, keeping: recentCapacity)
                }
            }
            var woken: [(Waiter, [Change])] = []
            if !changes.isEmpty, !state.waiters.isEmpty, let waiting = state.waiters.removeValue(forKey: list) {
                for waiter in waiting.values {
                    woken.append((waiter, Array(changes.filter { $0.sequence > waiter.after }.prefix(waiter.limit))))
                }
            }
            return (state.listeners, woken)
        }
        for (waiter, changes) in woken { waiter.continuation.resume(returning: changes) }
        for listener in listeners { listener(list, changes, dropped) }
    }

    /// Appends `changes` to a list's recent ones, dropping the oldest once there are twice `capacity`.
    private static func append(_ changes: [Change], to recent: inout Window, keeping capacity: Int) {
        recent.changes.append(contentsOf: changes)
        recent.bytes += changes.reduce(0) { $0 + $1.approximateBytes }
        if recent.changes.count > 2 * capacity {
            let dropped = recent.changes.count - capacity
            recent.bytes -= recent.changes.prefix(dropped).reduce(0) { $0 + $1.approximateBytes }
            recent.changes.removeFirst(dropped)
        }
    }

    /// The changes of `list` after sequence number `after`, at most `limit`; when there are none yet, waits up to
    /// `wait` for the next ones (a long-poll), then answers with what there is.
    ///
    /// - Returns: The changes, or `.expired` when `after` is older than what is kept (or later than anything
    ///   the list has had): the client must reload the list and continue from ``ChangePage/lastSequence``.
    public func changes(of list: String, after: UInt64, limit: Int, wait: Duration = .zero)
        async throws(StoreFailure) -> ChangePage
    {
        // A list that left memory since the request was routed (the memory budget) would read as unwritten: the
        // client is told to retry, and its route reads the list again.
        guard let state = lists.stateInMemory(of: list) else {
            throw StoreFailure(.unavailable, "dataset \"\(list)\" is being read from the store; retry")
        }
        let last = state.header.lastSequence
        guard after <= last else { return .expired(lastSequence: last) }
        if after < last {
            let page = try await kept(of: list, after: after, limit: limit, last: last)
            // Empty only while the newest commit is installed but not yet published: then wait for it.
            guard case .changes([], _) = page, wait > .zero else { return page }
        }
        guard wait > .zero else { return .changes([], nextSince: after) }
        let changes = await waitForChanges(of: list, after: after, limit: limit, wait: wait)
        return .changes(changes, nextSince: changes.last?.sequence ?? after)
    }

    /// Changes after `after` from memory when the window there reaches back far enough, else from the store.
    private func kept(of list: String, after: UInt64, limit: Int, last: UInt64) async throws(StoreFailure)
        -> ChangePage
    {
        let fromMemory = state.withLock { state -> [Change]? in
            guard let recent = recentWindow(state.recent[list]), let first = recent.first, first.sequence <= after + 1
            else {
                return nil
            }
            return Array(recent.lazy.filter { $0.sequence > after }.prefix(limit))
        }
        if let fromMemory { return .changes(fromMemory, nextSince: fromMemory.last?.sequence ?? after) }
        let window = try await store.changes(of: list, after: after, limit: limit)
        guard let oldest = window.oldestKept, oldest <= after + 1 else { return .expired(lastSequence: last) }
        // Not past `last`: the store may already hold a commit the lists do not show yet, and a client told to go
        // on from there would be "ahead" of the list on its next call (and told to reload).
        let shown = window.changes.prefix { $0.sequence <= last }
        return .changes(Array(shown), nextSince: shown.last?.sequence ?? after)
    }

    /// The last `recentCapacity` of a list's recent changes: what memory answers for (never more than the store
    /// keeps, which is at least `recentCapacity`).
    private func recentWindow(_ recent: Window?) -> ArraySlice<Change>? {
        recent?.changes.suffix(recentCapacity)
    }

    /// Waits for the next changes of `list` after `after`, or `wait`, whichever comes first.
    private func waitForChanges(of list: String, after: UInt64, limit: Int, wait: Duration) async -> [Change] {
        let token = state.withLock { state in
            defer { state.nextToken += 1 }
            return state.nextToken
        }
        let clock = self.clock
        var timeout: Task<Void, Never>?
        let changes = await withCheckedContinuation { continuation in
            let missed = state.withLock { state -> [Change]? in
                // A commit between the check and now: answer with it at once, if the window holds every change
                // since `after`; else (the window was let go for its bytes, and started again) at once with none,
                // and the client's next poll reads them from the store.
                if let recent = recentWindow(state.recent[list]), let newest = recent.last, newest.sequence > after {
                    guard let first = recent.first, first.sequence <= after + 1 else { return [] }
                    return Array(recent.filter { $0.sequence > after }.prefix(limit))
                }
                if (lists.loadedState(of: list)?.header.lastSequence ?? 0) > after { return [] }
                state.waiters[list, default: [:]][token] = Waiter(
                    after: after, limit: limit, continuation: continuation)
                return nil
            }
            if let missed {
                continuation.resume(returning: missed)
                return
            }
            // The timer starts only once the poll is among the waiters: started before, it could fire first, find
            // no waiter to end, and leave the poll waiting for the list's next commit, however long that takes.
            timeout = Task {
                try? await clock.sleep(for: wait)
                self.expire(token, of: list)
            }
        }
        timeout?.cancel()
        return changes
    }

    /// Ends a long-poll whose wait is over, with no changes (unless a publish answered it first).
    private func expire(_ token: UInt64, of list: String) {
        let waiter = state.withLock { state in state.waiters[list]?.removeValue(forKey: token) }
        waiter?.continuation.resume(returning: [])
    }

    /// Answers every waiting long-poll now, with the changes it has (none): at shutdown, so the drain does not wait
    /// for them.
    public func endWaits() {
        let waiting = state.withLock { state in
            defer { state.waiters = [:] }
            return state.waiters.values.flatMap(\.values)
        }
        for waiter in waiting { waiter.continuation.resume(returning: []) }
    }

    /// How many long-polls are waiting (for tests and metrics).
    public var waitingCount: Int { state.withLock { $0.waiters.values.reduce(0) { $0 + $1.count } } }
}

/// An answer of the change feed.
public enum ChangePage: Sendable, Equatable {
    /// Changes in order (maybe none), and the position to ask from next: the last one's sequence number, or the
    /// position asked from when there are none.
    case changes([Change], nextSince: UInt64)
    /// The position asked for is not kept (or not known): reload, then continue from `lastSequence`.
    case expired(lastSequence: UInt64)
}
