import FoundationEssentials
import Glibc
import ListDomain
import Synchronization

/// The one thread that makes every SQLite call of a store, and the queue that feeds it.
///
/// SQLite blocks (on the disk, on `fsync`, on another process's lock), so no caller's thread may make its calls:
/// callers queue a job and suspend on a continuation, which the job resumes from this thread when it is done. The
/// thread sleeps on a condition variable while the queue is empty, which is fine: it is not an event loop. Jobs run
/// one at a time in the order they were queued, so a commit never overlaps another call (one writer, whose
/// transactions are exactly the batches it is given).
///
/// It is also a task executor: the ``WriteCoordinator`` runs its groups here (``SQLiteStore/preferredExecutor``),
/// and a call made from a job already on the thread (the coordinator's commit) runs at once instead of queueing
/// behind itself; the coordinator yields between groups, so queued jobs still get their turn.
///
/// Invariant: `tables` is touched only on the thread (the jobs run there), which is why the class is
/// `@unchecked Sendable`; the queue and the flags are guarded by `condition`.
final class SQLiteStoreThread: TaskExecutor, @unchecked Sendable {
    /// The connection and its statements, once a job has opened them; store thread only.
    private var tables: SQLiteListTables?

    private let condition = ConditionLock()
    /// Jobs not yet taken by the thread; guarded by `condition`.
    private var queue: [() -> Void] = []
    /// Set by ``stop()``: no more jobs are taken, and the thread ends when the queue is empty.
    private var isStopping = false
    /// Set by the thread as it ends.
    private var hasFinished = false
    /// Callers of ``stop()`` waiting for the thread to end.
    private var finishWaiters: [CheckedContinuation<Void, Never>] = []
    /// The thread's `pthread_self()`, once it runs (0 before).
    private let threadID = Atomic<UInt>(0)

    /// Starts the thread; `name` (at most 15 bytes, Linux's limit) shows in debuggers and `top -H`.
    init(name: String) {
        OSThread.start(name: name) { [self] in
            run()
        }
    }

    /// Opens the database at `path` on the thread with `open`; the other calls fail until this has succeeded.
    func open(path: String, _ open: @escaping @Sendable () throws(SQLiteStoreError) -> SQLiteListTables)
        async throws(SQLiteStoreError)
    {
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<SQLiteStoreError?, Never>) in
            let queued = enqueue { [self] in
                do throws(SQLiteStoreError) {
                    tables = try open()
                    continuation.resume(returning: nil)
                } catch {
                    continuation.resume(returning: error)
                }
            }
            if !queued {
                continuation.resume(
                    returning: SQLiteStoreError(path: path, problem: "the store was closed while it opened"))
            }
        }
        if let result { throw result }
    }

    /// Runs `body` on the thread with the open tables and returns what it returns; throws `.unavailable` when the
    /// store is closed (or never opened).
    nonisolated(nonsending) func run<T: Sendable>(
        _ body: @escaping @Sendable (SQLiteListTables) throws(StoreFailure) -> T
    )
        async throws(StoreFailure) -> T
    {
        // A job of this thread (the coordinator's group): waiting for the queue would be waiting on itself.
        if isOnThread {
            guard let tables else { throw Self.closed }
            return try body(tables)
        }
        let result = await withCheckedContinuation {
            (continuation: CheckedContinuation<Result<T, StoreFailure>, Never>) in
            let queued = enqueue { [self] in
                guard let tables else { return continuation.resume(returning: .failure(Self.closed)) }
                continuation.resume(returning: Result { () throws(StoreFailure) in try body(tables) })
            }
            if !queued { continuation.resume(returning: .failure(Self.closed)) }
        }
        return try result.get()
    }

    /// Lets the queued jobs run, then closes the connection and ends the thread; returns when it has ended.
    /// Later calls fail with `.unavailable`.
    func stop() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            condition.lock()
            isStopping = true
            let finished = hasFinished
            if !finished { finishWaiters.append(continuation) }
            condition.signal()
            condition.unlock()
            if finished { continuation.resume() }
        }
    }

    /// ``stop()`` without waiting, for a store that goes away unclosed.
    func requestStop() {
        condition.lock()
        isStopping = true
        condition.signal()
        condition.unlock()
    }

    // MARK: TaskExecutor

    /// Runs a task's job on the thread; after the thread has stopped, on the global pool (where the task then
    /// finds the store closed).
    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let queued = enqueue { [self] in job.runSynchronously(on: asUnownedTaskExecutor()) }
        if !queued { globalConcurrentExecutor.enqueue(ExecutorJob(job)) }
    }

    /// True on the store's thread.
    private var isOnThread: Bool {
        let id = threadID.load(ordering: .acquiring)
        return id != 0 && pthread_equal(pthread_t(id), pthread_self()) != 0
    }

    /// The failure of every call after ``stop()``.
    static let closed = StoreFailure(.unavailable, "the SQLite store is closed")

    /// Queues `job` unless the thread is stopping; returns whether it did.
    private func enqueue(_ job: @escaping @Sendable () -> Void) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard !isStopping else { return false }
        queue.append(job)
        condition.signal()
        return true
    }

    /// The thread: takes the whole queue at a time and runs it, until stopped and empty.
    private func run() {
        threadID.store(UInt(pthread_self()), ordering: .releasing)
        var running: [() -> Void] = []
        while true {
            condition.lock()
            while queue.isEmpty && !isStopping { condition.wait() }
            swap(&queue, &running)
            condition.unlock()
            if running.isEmpty { break }  // stopping, and nothing left
            for job in running { job() }
            running.removeAll(keepingCapacity: true)
        }
        tables?.close()
        tables = nil
        threadID.store(0, ordering: .releasing)  // a later thread may be given the same pthread_t
        condition.lock()
        hasFinished = true
        let waiters = finishWaiters
        finishWaiters = []
        condition.unlock()
        for waiter in waiters { waiter.resume() }
    }
}
