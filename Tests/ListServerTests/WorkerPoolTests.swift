import Foundation
import Glibc
import Synchronization
import Testing

@testable import ListServer

/// The one pool of blocking threads (the SQLite thread, the PostgreSQL pool, the image workers): order, state per
/// thread, the bound, names, priority, and a stop that drains. No sleeping: each test waits on what it awaits.
@Suite("WorkerPool")
struct WorkerPoolTests {
    /// Submits `job` and waits for what it returns.
    static func run<State, T: Sendable>(
        _ pool: WorkerPool<State>, _ job: @escaping @Sendable (inout State) -> T
    ) async -> T? {
        await withCheckedContinuation { (continuation: CheckedContinuation<T?, Never>) in
            let queued = pool.submit { state in continuation.resume(returning: job(&state)) }
            if !queued { continuation.resume(returning: nil) }
        }
    }

    /// A pool whose one thread is held in a job until `gate` is opened, so jobs queue up behind it.
    static func heldPool(queueLimit: Int = .max) async -> (WorkerPool<[Int]>, ThreadGate) {
        let pool = WorkerPool<[Int]>(names: ["test-held"], queueLimit: queueLimit, makeState: { _ in [] })
        return (pool, await hold(pool))
    }

    /// Submits a job that holds the pool's thread until the gate returned is opened; returns once it runs, so that
    /// every job submitted after it waits in the queue.
    static func hold<State>(_ pool: WorkerPool<State>) async -> ThreadGate {
        let gate = ThreadGate()
        await withCheckedContinuation { (started: CheckedContinuation<Void, Never>) in
            #expect(
                pool.submit { _ in
                    started.resume()
                    gate.wait()  // on the pool's thread
                })
        }
        return gate
    }

    @Test("one thread runs its jobs in the order they were submitted, with its state kept between them")
    func fifoWithState() async {
        let (pool, gate) = await Self.heldPool()
        for value in 1...50 { #expect(pool.submit { $0.append(value) }) }
        #expect(pool.queuedJobs == 50)
        gate.open()
        #expect(await Self.run(pool) { $0 } == Array(1...50))
        await pool.stop()
    }

    @Test("past queueLimit waiting jobs a submit is refused, and accepted again once the queue has room")
    func bounded() async {
        let (pool, gate) = await Self.heldPool(queueLimit: 3)
        let state = await withCheckedContinuation { (read: CheckedContinuation<[Int], Never>) in
            #expect(pool.submit { $0.append(0) } && pool.submit { $0.append(1) })
            #expect(pool.submit { read.resume(returning: $0) })  // the third: the queue is full
            #expect(!pool.submit { $0.append(99) })
            #expect(pool.queuedJobs == 3)
            gate.open()
        }
        #expect(state == [0, 1], "the refused job never ran")
        #expect(await Self.run(pool) { $0 } == [0, 1], "the queue has room again")
        await pool.stop()
    }

    @Test("stop refuses new jobs, runs the queued ones, then finishes each thread's state and ends")
    func stopDrains() async {
        let finished = Mutex<[[Int]]>([])
        let pool = WorkerPool<[Int]>(
            names: ["test-stop"], makeState: { _ in [] },
            finish: { state in finished.withLock { $0.append(state) } })
        let gate = await Self.hold(pool)
        for value in 1...5 { #expect(pool.submit { $0.append(value) }) }
        pool.requestStop()
        #expect(!pool.submit { $0.append(6) }, "a stopping pool takes no job")
        gate.open()
        await pool.stop()  // returns once the thread has ended
        #expect(finished.withLock { $0 } == [[1, 2, 3, 4, 5]])
        await pool.stop()  // again: returns at once
    }

    @Test("each thread has its own state, made on it; its name and niceness are set; isWorkerThread tells it apart")
    func threads() async {
        let pool = WorkerPool<Int>(names: ["test-a", "test-b"], niceness: 7, makeState: { index in index })
        #expect(!pool.isWorkerThread)
        // Two jobs held at once: each thread has one, so both states are seen.
        let seen = Mutex<[Int: String]>([:])
        let release = ThreadGate()
        await withCheckedContinuation { (both: CheckedContinuation<Void, Never>) in
            for _ in 0..<2 {
                #expect(
                    pool.submit { index in
                        let name = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? "?"
                        let nice = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
                        let count = seen.withLock {
                            $0[index] = "\(name.trimmingCharacters(in: .newlines)) nice \(nice) \(pool.isWorkerThread)"
                            return $0.count
                        }
                        if count == 2 { both.resume() }
                        release.wait()  // on the pool's thread, so the other job goes to the other thread
                    })
            }
        }
        release.open()
        #expect(seen.withLock { $0 } == [0: "test-a nice 7 true", 1: "test-b nice 7 true"])
        await pool.stop()
    }
}

/// A one-shot latch for a pool's threads (never a task's): ``wait()`` blocks until ``open()``.
final class ThreadGate: @unchecked Sendable {
    private var isOpen = false  // guarded by `condition`
    private let condition = ConditionLock()

    func open() {
        condition.lock()
        isOpen = true
        condition.broadcast()
        condition.unlock()
    }

    func wait() {
        condition.lock()
        while !isOpen { condition.wait() }
        condition.unlock()
    }
}
