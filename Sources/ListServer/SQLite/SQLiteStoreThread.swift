import ListDomain

/// The one thread that makes every SQLite call of a store: a ``WorkerPool`` of one, whose state is the open tables.
///
/// SQLite blocks (on the disk, on `fsync`, on another process's lock), so no caller's thread may make its calls:
/// callers queue a job and suspend on a continuation, which the job resumes from this thread when it is done. Jobs
/// run one at a time in the order they were queued, so a commit never overlaps another call (one writer, whose
/// transactions are exactly the batches it is given).
///
/// It is also a task executor: the ``WriteCoordinator`` runs its groups here (``SQLiteStore/preferredExecutor``),
/// and a call made from a job already on the thread (the coordinator's commit) runs at once instead of queueing
/// behind itself; the coordinator yields between groups, so queued jobs still get their turn.
final class SQLiteStoreThread: TaskExecutor, Sendable {
    /// The thread, whose state is ``tables``.
    private let pool: WorkerPool<Tables>
    /// The connection and its statements, once a job has opened them: the thread's state, kept here too for a call
    /// made on the thread itself (``run(_:)``).
    private let tables: Tables

    /// The open tables; store thread only, which is why the box is `@unchecked Sendable`.
    private final class Tables: @unchecked Sendable {
        var open: SQLiteListTables?
    }

    /// Starts the thread; `name` (at most 15 bytes, Linux's limit) shows in debuggers and `top -H`.
    init(name: String) {
        let tables = Tables()
        self.tables = tables
        pool = WorkerPool(
            names: [name], makeState: { _ in tables },
            finish: { tables in
                tables.open?.close()
                tables.open = nil
            })
    }

    /// Opens the database at `path` on the thread with `open`; the other calls fail until this has succeeded.
    func open(path: String, _ open: @escaping @Sendable () throws(SQLiteStoreError) -> SQLiteListTables)
        async throws(SQLiteStoreError)
    {
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<SQLiteStoreError?, Never>) in
            let queued = pool.submit { tables in
                do throws(SQLiteStoreError) {
                    tables.open = try open()
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
        if pool.isWorkerThread {
            guard let open = tables.open else { throw Self.closed }
            return try body(open)
        }
        let result = await withCheckedContinuation {
            (continuation: CheckedContinuation<Result<T, StoreFailure>, Never>) in
            let queued = pool.submit { tables in
                guard let open = tables.open else { return continuation.resume(returning: .failure(Self.closed)) }
                continuation.resume(returning: Result { () throws(StoreFailure) in try body(open) })
            }
            if !queued { continuation.resume(returning: .failure(Self.closed)) }
        }
        return try result.get()
    }

    /// Lets the queued jobs run, then closes the connection and ends the thread; returns when it has ended.
    /// Later calls fail with `.unavailable`.
    func stop() async {
        await pool.stop()
    }

    /// ``stop()`` without waiting, for a store that goes away unclosed.
    func requestStop() {
        pool.requestStop()
    }

    // MARK: TaskExecutor

    /// Runs a task's job on the thread; after the thread has stopped, on the global pool (where the task then
    /// finds the store closed).
    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let queued = pool.submit { [self] _ in job.runSynchronously(on: asUnownedTaskExecutor()) }
        if !queued { globalConcurrentExecutor.enqueue(ExecutorJob(job)) }
    }

    /// The failure of every call after ``stop()``.
    static let closed = StoreFailure(.unavailable, "the SQLite store is closed")
}
