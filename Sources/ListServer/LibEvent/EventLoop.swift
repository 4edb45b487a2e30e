// swift-format-ignore-file: OrderedImports
import Glibc  // before CEvent
import CEvent
import Synchronization

/// One libevent `event_base` running on a thread of its own, which is also a Swift executor.
///
/// Tasks started with this loop as their executor preference (and actors whose executor it is) run
/// on the loop thread, so request handling can start synchronously inside an evhttp callback and
/// reply from the same thread after an `await`, with no lock around libevent. Other threads hand
/// work over through a mutex-guarded queue and wake the loop with an `eventfd` (the memcached
/// worker-thread pattern); the loop never blocks on anything but `epoll_wait`.
///
/// Invariant: `base` and everything created on it are touched only on the loop thread (or before
/// the thread starts), which is why the class is `@unchecked Sendable`.
final class EventLoop: SerialExecutor, TaskExecutor, @unchecked Sendable {
    /// Work handed to the loop from any thread.
    private enum Work {
        case job(UnownedJob)
        case closure(@Sendable () -> Void)
    }

    /// The loop's `event_base`; loop thread only.
    let base: OpaquePointer
    /// A short name for logs and the thread ("loop-0").
    let name: String

    /// Work waiting for the loop, and whether the loop is running queued work now.
    private struct Queue {
        var work: [Work] = []
        /// Set while the loop runs a batch and will look at the queue again before it polls: a push then needs
        /// no wake-up.
        var draining = false
    }

    private let wakeFD: Int32
    private var wakeEvent: OpaquePointer?
    private let queue = Mutex(Queue())
    /// The batch being run; kept to reuse its storage.
    private var running: [Work] = []
    private let threadID = Mutex<pthread_t?>(nil)
    private let finished = Mutex<[CheckedContinuation<Void, Never>]>([])
    private let hasFinished = Atomic<Bool>(false)

    /// How many event callbacks libevent runs before it polls again and the queued jobs get their turn.
    ///
    /// 64 rather than 16: as little memory in benchmark scenario 3, and fewer `epoll_wait` calls (server CPU
    /// there about 115 ticks against 140); cached details cost the same either way.
    static let callbacksBetweenDrains: Int32 = 64

    /// Creates the `event_base`: precise timers, no internal locking (one thread owns it), and epoll changes
    /// batched until the next poll.
    ///
    /// The change list: evhttp stops reading a connection while it answers a request and reads again once the
    /// answer is written, an `epoll_ctl` each (DEL, then ADD). Answers are written on the same turn of the loop
    /// as their requests are read (`LoopServer+Flush.swift`), so with the changes batched the two become one MOD
    /// at the next poll: 4 system calls a page instead of 5, and about 4 µs less CPU a request on one loop under
    /// 64 and 256 connections (issue 32). libevent warns that it is unsafe with descriptors cloned by `dup`;
    /// ListServer hands libevent none.
    init(name: String) throws(EventError) {
        self.name = name
        let config = event_config_new()
        defer { event_config_free(config) }
        let flags =
            EVENT_BASE_FLAG_PRECISE_TIMER.rawValue | EVENT_BASE_FLAG_NOLOCK.rawValue
            | EVENT_BASE_FLAG_EPOLL_USE_CHANGELIST.rawValue
        event_config_set_flag(config, Int32(flags))
        // Back to epoll after every `callbacksBetweenDrains` callbacks, where the wake-up event (priority 0,
        // ahead of the sockets at 1) runs the jobs queued so far: see `drain`.
        event_config_set_max_dispatch_interval(config, nil, Self.callbacksBetweenDrains, 0)
        guard let base = event_base_new_with_config(config) else {
            throw EventError.call("event_base_new_with_config", errno: cevent_errno())
        }
        event_base_priority_init(base, 2)
        self.base = base
        wakeFD = cevent_eventfd()
        guard wakeFD >= 0 else {
            event_base_free(base)
            throw EventError.call("eventfd", errno: cevent_errno())
        }
        let context = Unmanaged.passUnretained(self).toOpaque()
        wakeEvent = event_new(base, wakeFD, Int16(EV_READ | EV_PERSIST), eventLoopWakeCallback, context)
        event_priority_set(wakeEvent, 0)
        try EventError.check(event_add(wakeEvent, nil), "event_add(wake)")
    }

    deinit {
        if let wakeEvent { event_free(wakeEvent) }
        close(wakeFD)
        event_base_free(base)
    }

    // MARK: Running

    /// Starts the loop on a new thread; the thread keeps the loop alive until `stop()` ends it.
    func start() {
        OSThread.start(name: name) { [self] in
            threadID.withLock { $0 = pthread_self() }
            event_base_loop(base, 0)
            drain()  // jobs queued while stopping still run, on this thread
            hasFinished.store(true, ordering: .releasing)
            for waiter in finished.withLock({ w in
                defer { w = [] }; return w
            }) { waiter.resume() }
        }
    }

    /// Ends the loop after the work already queued; safe from any thread.
    func stop() {
        execute { [self] in event_base_loopexit(base, nil) }
    }

    /// Returns when the loop thread has left its event loop.
    func waitUntilFinished() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resumeNow = finished.withLock { waiters -> Bool in
                if hasFinished.load(ordering: .acquiring) { return true }
                waiters.append(continuation)
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }

    /// True on the loop's own thread.
    var inLoop: Bool {
        guard let id = threadID.withLock({ $0 }) else { return false }
        return pthread_equal(id, pthread_self()) != 0
    }

    /// Runs `body` on the loop thread: queued, never inline, so callers may hold their own state.
    func execute(_ body: @escaping @Sendable () -> Void) {
        push(.closure(body))
    }

    // MARK: Executor

    func enqueue(_ job: consuming ExecutorJob) {
        push(.job(UnownedJob(job)))
    }

    func checkIsolated() {
        precondition(inLoop, "expected to run on event loop \(name)")
    }

    private func push(_ work: Work) {
        let needsWake = queue.withLock { queue in
            queue.work.append(work)
            return queue.work.count == 1 && !queue.draining
        }
        // Only the first job of a batch needs a wake-up, and none while the loop is draining (it looks again):
        // a commit resumes its writers one by one, and each woke its loop once before (1.3 eventfd writes and
        // reads per write under 64 writing clients, against 0.25 for a C server handing over a whole group).
        if needsWake { wake() }
    }

    private func wake() {
        var one: UInt64 = 1
        _ = write(wakeFD, &one, 8)
    }

    /// Runs the queued jobs; called on the loop thread when the eventfd fires.
    ///
    /// Batch after batch until the queue is empty (what was queued, then what was queued meanwhile, which needed
    /// no wake-up of its own), and the jobs do not wait for every socket: libevent polls again after
    /// ``callbacksBetweenDrains`` callbacks, and the wake-up event outranks the sockets (priority 0 against 1),
    /// so a burst of requests is worked off a few dozen at a time instead of first becoming one task per request
    /// queued for the detail cache, each holding about 2 kB of task allocator slabs. With 5,000 slow details
    /// arriving together (benchmark scenario 3) peak RSS is 46–48 MB this way against about 55 MB, and each
    /// lookup, with its wait for the store, starts sooner after its request arrives (Benchmarks/HISTORY.md, "Memory per
    /// waiting request", has how the figure was reached).
    ///
    /// The price of the priority: libevent runs no socket in a round that ran the wake-up event, so while jobs
    /// keep coming the sockets wait. Every job here belongs to a request and each request's chain is short (a
    /// cache lookup, a resumption), so the queue empties and the sockets get their turn; a task that re-enqueued
    /// itself on a loop forever would hold that loop's sockets off, and none does.
    fileprivate func drain() {
        var counter: UInt64 = 0
        _ = read(wakeFD, &counter, 8)
        while true {
            let more = queue.withLock { queue in
                swap(&queue.work, &running)
                queue.draining = !running.isEmpty
                return queue.draining
            }
            guard more else { return }
            for work in running {
                switch work {
                case .job(let job):
                    job.runSynchronously(isolatedTo: asUnownedSerialExecutor(), taskExecutor: asUnownedTaskExecutor())
                case .closure(let body):
                    body()
                }
            }
            running.removeAll(keepingCapacity: true)
        }
    }
}

/// The eventfd read callback: C calling convention, captures nothing, the loop comes in `context`.
private func eventLoopWakeCallback(_ fd: Int32, _ events: Int16, _ context: UnsafeMutableRawPointer?) {
    guard let context else { return }
    Unmanaged<EventLoop>.fromOpaque(context).takeUnretainedValue().drain()
}

extension EventLoop {
    /// Runs `body` once on the loop thread after `delay` (a libevent timer; precise, see init),
    /// unless the returned timer is cancelled first. Loop thread only.
    @discardableResult
    func schedule(after delay: Duration, _ body: @escaping () -> Void) -> LoopTimer {
        let timer = LoopTimer(body)
        let context = Unmanaged.passRetained(timer).toOpaque()  // released when it fires or is cancelled
        timer.event = event_new(base, -1, 0, loopTimerCallback, context)
        var time = delay.timeval
        event_add(timer.event, &time)
        return timer
    }
}

/// A closure and its one-shot libevent timer. Loop thread only.
final class LoopTimer {
    fileprivate let body: () -> Void
    fileprivate var event: OpaquePointer?

    fileprivate init(_ body: @escaping () -> Void) { self.body = body }

    /// Stops the timer if it has not fired yet.
    func cancel() {
        guard let event else { return }
        event_free(event)  // also removes it from the base
        self.event = nil
        Unmanaged.passUnretained(self).release()
    }

    fileprivate func fire() {
        guard let event else { return }
        event_free(event)
        self.event = nil
        body()
        Unmanaged.passUnretained(self).release()
    }
}

private func loopTimerCallback(_ fd: Int32, _ events: Int16, _ context: UnsafeMutableRawPointer?) {
    guard let context else { return }
    Unmanaged<LoopTimer>.fromOpaque(context).takeUnretainedValue().fire()
}
