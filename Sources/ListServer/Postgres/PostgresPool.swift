import FoundationEssentials
import Glibc
import ListDomain

/// The threads that make every libpq call of a store (`data.pool_size` of them), each with its own connection,
/// and the queue that feeds them.
///
/// libpq's calls block on the network, so no caller's thread may make them: callers queue a job and suspend on a
/// continuation, which the job resumes from its thread when done. A thread sleeps on a condition variable while
/// the queue is empty, which is fine: it is not an event loop. Each thread takes one job at a time, so a slow read
/// (a large uploaded image, a long change window) holds one connection while the others go on.
///
/// Thread 0 is the writer: the coordinator's calls (``Queue/writer``: begin, idempotency lookups, commit) run
/// there, one after another on one connection, inside the transaction that holds the lists' locks. The other
/// threads (at least one) take the reads, never inside that transaction.
///
/// Invariant: each thread's ``PostgresListTables`` is touched only by that thread, which is why the class is
/// `@unchecked Sendable`; the queues and the flags are guarded by `condition`.
final class PostgresPool: @unchecked Sendable {
    /// Which threads may take a job.
    enum Queue {
        /// Thread 0 only.
        case writer
        /// Any thread but the writer.
        case reader
    }

    private let condition = ConditionLock()
    /// Guarded by `condition`.
    /// Jobs in arrival order; a taken job is let go at once, with what it holds (an uploaded file perhaps).
    private var writerJobs = FIFOQueue<(PostgresListTables) -> Void>()
    private var readerJobs = FIFOQueue<(PostgresListTables) -> Void>()
    /// Set by ``stop()``: no more jobs are taken, and the threads end when the queue is empty.
    private var isStopping = false
    /// Threads still running; guarded by `condition`.
    private var running: Int
    /// Callers of ``stop()`` waiting for every thread to end.
    private var finishWaiters: [CheckedContinuation<Void, Never>] = []

    /// Starts `size` threads (at least 2) named `postgres-0`, `postgres-1`, …, each connecting when its first job
    /// comes.
    init(size: Int, options: PostgresListTables.Options) {
        precondition(size >= 2, "a PostgreSQL pool needs a writer and a reader")
        running = size
        for index in 0..<size {
            let name = "postgres-\(index)"
            OSThread.start(name: name) { [self] in
                work(index: index, with: PostgresListTables(options))
            }
        }
    }

    /// Runs `body` on one of the threads with its tables and returns what it returns; throws `.unavailable`
    /// once the pool is stopping.
    nonisolated(nonsending) func run<T: Sendable>(
        on queue: Queue = .reader, _ body: @escaping @Sendable (PostgresListTables) throws(StoreFailure) -> T
    ) async throws(StoreFailure) -> T {
        let result = await withCheckedContinuation {
            (continuation: CheckedContinuation<Result<T, StoreFailure>, Never>) in
            let queued = enqueue(on: queue) { tables in
                continuation.resume(returning: Result { () throws(StoreFailure) in try body(tables) })
            }
            if !queued { continuation.resume(returning: .failure(Self.closed)) }
        }
        return try result.get()
    }

    /// Lets the queued jobs run, then closes the connections and ends the threads; returns when all have ended.
    func stop() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            condition.lock()
            isStopping = true
            let finished = running == 0
            if !finished { finishWaiters.append(continuation) }
            condition.broadcast()
            condition.unlock()
            if finished { continuation.resume() }
        }
    }

    /// ``stop()`` without waiting, for a store that goes away unclosed.
    func requestStop() {
        condition.lock()
        isStopping = true
        condition.broadcast()
        condition.unlock()
    }

    /// The failure of every call after ``stop()``.
    static let closed = StoreFailure(.unavailable, "the PostgreSQL store is closed")

    /// Queues `job` unless the pool is stopping; returns whether it did.
    private func enqueue(on queue: Queue, _ job: @escaping (PostgresListTables) -> Void) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard !isStopping else { return false }
        switch queue {
        case .writer: writerJobs.append(job)
        case .reader: readerJobs.append(job)
        }
        // Every thread waits on the one condition, and only some may take this job: wake them all (a few).
        condition.broadcast()
        return true
    }

    /// The next job thread `index` may take, if any; `condition` held.
    private func nextJob(for index: Int) -> ((PostgresListTables) -> Void)? {
        index == 0 ? writerJobs.take() : readerJobs.take()
    }

    /// One thread: takes the oldest job it may and runs it, until stopped and the queues are empty.
    private func work(index: Int, with tables: PostgresListTables) {
        while true {
            condition.lock()
            var job = nextJob(for: index)
            while job == nil && !isStopping {
                condition.wait()
                job = nextJob(for: index)
            }
            condition.unlock()
            guard let job else { break }  // stopping, and nothing left for this thread
            job(tables)
        }
        tables.close()
        condition.lock()
        running -= 1
        let waiters = running == 0 ? finishWaiters : []
        if running == 0 { finishWaiters = [] }
        condition.unlock()
        for waiter in waiters { waiter.resume() }
    }
}
