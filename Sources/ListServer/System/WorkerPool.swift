import Glibc
import ListDomain
import Synchronization

/// Threads of the operating system's own that run blocking jobs off the event loops and the Swift pool, fed by one
/// FIFO queue: the SQLite store's thread, the PostgreSQL pool's writer and readers, the image workers.
///
/// Each of those was a thread, a queue and a condition variable written by hand; this is the one such type (issue
/// 31), after swift-nio's `NIOThreadPool`, with what every user here needs and `NIOThreadPool` has not: a state per
/// thread (a database connection, a set of codecs), made on the thread as it starts, handed to every job it runs
/// and finished on it as it ends. Threads are named (`top -H`, debuggers) and may run below the loops' priority.
/// They sleep on a condition variable while the queue is empty, which is fine: they are not event loops.
///
/// Jobs run in the order they were submitted, one at a time per thread; a job is let go as soon as it has run, with
/// what it holds (an uploaded file perhaps). The queue may be bounded: ``submit(_:)`` refuses a job past
/// `queueLimit` rather than let a storm grow it. ``stop()`` refuses new jobs, lets the queued ones run, finishes
/// every thread's state and returns when the threads have ended.
///
/// Invariant: each thread's state is touched only on that thread; the queue and the flags are guarded by
/// `condition`, which is why the class is `@unchecked Sendable`.
final class WorkerPool<State>: @unchecked Sendable {
    /// A job: runs on one of the threads with that thread's state.
    typealias Job = (inout State) -> Void

    private let condition = ConditionLock()
    /// Jobs not yet taken; guarded by `condition`.
    private var queue = FIFOQueue<Job>()
    /// Set by ``stop()`` or ``requestStop()``: no more jobs are taken in, and the threads end when the queue is
    /// empty; guarded.
    private var isStopping = false
    /// Threads still running; guarded.
    private var running: Int
    /// Callers of ``stop()`` waiting for every thread to end; guarded.
    private var finishWaiters: [CheckedContinuation<Void, Never>] = []
    /// Each thread's `pthread_self()` while it runs (0 before and after), for ``isWorkerThread``.
    private let threadIDs: [ThreadID]
    /// The most jobs that may wait for a thread.
    let queueLimit: Int

    /// Starts one thread per name.
    ///
    /// - Parameters:
    ///   - names: The threads' names (Linux keeps 15 bytes), e.g. `image-0`, `image-1`; at least one.
    ///   - queueLimit: The most jobs that may wait (at least 1); unbounded by default.
    ///   - niceness: How much nicer than the default the threads run (0...19); nil leaves them at the default.
    ///   - makeState: Makes thread `index`'s state, on that thread, before its first job.
    ///   - finish: Runs on each thread after its last job, with its state (closes a connection).
    init(
        names: [String], queueLimit: Int = .max, niceness: Int32? = nil,
        makeState: @escaping @Sendable (_ index: Int) -> State,
        finish: @escaping @Sendable (inout State) -> Void = { _ in }
    ) {
        precondition(!names.isEmpty && queueLimit >= 1, "a WorkerPool needs a thread and room for a job")
        self.queueLimit = queueLimit
        running = names.count
        threadIDs = names.map { _ in ThreadID() }
        for (index, name) in names.enumerated() {
            OSThread.start(name: name) { [self] in
                if let niceness { ThreadPriority.lower(to: niceness) }
                threadIDs[index].value.store(UInt(pthread_self()), ordering: .releasing)
                var state = makeState(index)
                while let job = next() { job(&state) }
                finish(&state)
                threadIDs[index].value.store(0, ordering: .releasing)  // a later thread may get the same pthread_t
                ended()
            }
        }
    }

    /// Queues `job` for the next free thread; false when `queueLimit` jobs already wait or the pool is stopping.
    func submit(_ job: @escaping Job) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard !isStopping, queue.count < queueLimit else { return false }
        queue.append(job)
        condition.signal()
        return true
    }

    /// Jobs waiting for a thread now.
    var queuedJobs: Int {
        condition.lock()
        defer { condition.unlock() }
        return queue.count
    }

    /// True on one of the pool's threads (a job that calls into the pool would wait on itself).
    var isWorkerThread: Bool {
        let current = UInt(pthread_self())
        return threadIDs.contains { id in
            let value = id.value.load(ordering: .acquiring)
            return value != 0 && pthread_equal(pthread_t(value), pthread_t(current)) != 0
        }
    }

    /// Refuses new jobs, lets the queued ones run, then ends the threads; returns when every thread has ended.
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

    /// ``stop()`` without waiting for the threads to end.
    func requestStop() {
        condition.lock()
        isStopping = true
        condition.broadcast()
        condition.unlock()
    }

    /// The next job, waiting for one; nil once stopping with the queue empty. A pool thread only.
    private func next() -> Job? {
        condition.lock()
        defer { condition.unlock() }
        while queue.isEmpty {
            if isStopping { return nil }
            condition.wait()
        }
        return queue.take()
    }

    /// A thread has ended: the last one resumes the callers of ``stop()``.
    private func ended() {
        condition.lock()
        running -= 1
        let waiters = running == 0 ? finishWaiters : []
        if running == 0 { finishWaiters = [] }
        condition.unlock()
        for waiter in waiters { waiter.resume() }
    }

    /// A thread's id, readable from any thread.
    private final class ThreadID: Sendable {
        let value = Atomic<UInt>(0)
    }
}
