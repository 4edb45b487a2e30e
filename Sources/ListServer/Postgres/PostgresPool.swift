import Foundation
import ListDomain

/// The threads that make every libpq call of a store (`data.pool_size` of them), each with its own connection,
/// and the queue that feeds them.
///
/// libpq's calls block on the network, so no caller's thread may make them: callers queue a job and suspend on a
/// continuation, which the job resumes from its thread when done. A thread sleeps on a condition variable while
/// the queue is empty, which is fine: it is not an event loop. Each thread takes one job at a time, so a slow read
/// (a large uploaded image, a long change window) holds one connection while the others go on.
///
/// Invariant: each thread's ``PostgresListTables`` is touched only by that thread, which is why the class is
/// `@unchecked Sendable`; the queue and the flags are guarded by `condition`.
final class PostgresPool: @unchecked Sendable {
    private let condition = NSCondition()
    /// Jobs from `queueHead` on are not taken yet (those before it are nil: a taken job is let go at once, with
    /// what it holds, an uploaded file perhaps); guarded by `condition`.
    private var queue: [((PostgresListTables) -> Void)?] = []
    private var queueHead = 0
    /// Set by ``stop()``: no more jobs are taken, and the threads end when the queue is empty.
    private var isStopping = false
    /// Threads still running; guarded by `condition`.
    private var running: Int
    /// Callers of ``stop()`` waiting for every thread to end.
    private var finishWaiters: [CheckedContinuation<Void, Never>] = []

    /// Starts `size` threads named `postgres-0`, `postgres-1`, …, each connecting when its first job comes.
    init(size: Int, options: PostgresListTables.Options) {
        running = size
        for index in 0..<size {
            let name = "postgres-\(index)"
            let thread = Thread { [self] in
                ThreadName.set(name)  // Foundation's `Thread.name` does not reach the kernel on Linux
                work(with: PostgresListTables(options))
            }
            thread.name = name
            thread.stackSize = 1 << 20
            thread.start()
        }
    }

    /// Runs `body` on one of the threads with its tables and returns what it returns; throws `.unavailable`
    /// once the pool is stopping.
    nonisolated(nonsending) func run<T: Sendable>(
        _ body: @escaping @Sendable (PostgresListTables) throws(StoreFailure) -> T
    ) async throws(StoreFailure) -> T {
        let result = await withCheckedContinuation {
            (continuation: CheckedContinuation<Result<T, StoreFailure>, Never>) in
            let queued = enqueue { tables in
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
    private func enqueue(_ job: @escaping (PostgresListTables) -> Void) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard !isStopping else { return false }
        queue.append(job)
        condition.signal()
        return true
    }

    /// One thread: takes the oldest job and runs it, until stopped and the queue is empty.
    private func work(with tables: PostgresListTables) {
        while true {
            condition.lock()
            while queueHead == queue.count && !isStopping { condition.wait() }
            guard queueHead < queue.count else {
                condition.unlock()
                break  // stopping, and nothing left
            }
            let job = queue[queueHead]
            queue[queueHead] = nil
            queueHead += 1
            if queueHead == queue.count {
                queue.removeAll(keepingCapacity: true)
                queueHead = 0
            } else if queueHead >= 64 && queueHead * 2 >= queue.count {
                queue.removeFirst(queueHead)  // a queue that never empties still stays as long as its backlog
                queueHead = 0
            }
            condition.unlock()
            job?(tables)
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
