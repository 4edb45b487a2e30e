import Glibc

/// A mutex with a condition variable (`pthread_mutex_t` and `pthread_cond_t`), for the threads of ``OSThread`` that
/// sleep until there is work: a ``WorkerPool``'s threads, the PostgreSQL listener. Never used on a loop thread or in
/// a task: waiting here blocks the thread.
///
/// What Foundation's `NSCondition` gave, without Foundation (issue 16). Timed waits use the monotonic clock, so a
/// change of the wall clock neither cuts nor stretches them.
final class ConditionLock: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>

    init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        condition = .allocate(capacity: 1)
        condition.initialize(to: pthread_cond_t())
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(condition)
        condition.deallocate()
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    func lock() { pthread_mutex_lock(mutex) }

    func unlock() { pthread_mutex_unlock(mutex) }

    /// Wakes one waiting thread (call with the lock held).
    func signal() { pthread_cond_signal(condition) }

    /// Wakes every waiting thread (call with the lock held).
    func broadcast() { pthread_cond_broadcast(condition) }

    /// Releases the lock, sleeps until signalled (or woken spuriously: wait in a loop over the condition), and takes
    /// the lock again.
    func wait() { pthread_cond_wait(condition, mutex) }

    /// As ``wait()``, for at most `timeout`; false when the time ran out.
    @discardableResult
    func wait(timeout: Duration) -> Bool {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let (seconds, attoseconds) = min(max(timeout, .zero), .seconds(86_400)).components
        var deadline = timespec(
            tv_sec: now.tv_sec + Int(seconds), tv_nsec: now.tv_nsec + Int(attoseconds / 1_000_000_000))
        if deadline.tv_nsec >= 1_000_000_000 {
            deadline.tv_sec += 1
            deadline.tv_nsec -= 1_000_000_000
        }
        return pthread_cond_timedwait(condition, mutex, &deadline) != ETIMEDOUT
    }
}
