import Synchronization

/// What other servers committed to one list beyond this server's copy, and the reads waiting for the copy.
struct HeardAhead {
    /// The highest sequence number heard.
    var sequence: UInt64
    /// The reads waiting for the copy to reach it (``ListRegistry/waitUntilLevel(_:timeout:clock:)``), by number.
    var waiters: [UInt64: Waiter] = [:]

    /// A read waiting, and the task that lets it go at its timeout (cancelled when the copy comes first).
    struct Waiter {
        let continuation: CheckedContinuation<Void, Never>
        var timer: Task<Void, Never>?

        func resume() {
            timer?.cancel()
            continuation.resume()
        }
    }
}

/// What a server has heard other servers commit, ahead of its copies: so that a read of a list another server
/// has just written to can wait the moment it takes this server to catch up, instead of answering with the list
/// before the write (read-your-writes across replicas: a client that got a 201 from one replica and reads from
/// another sees its write).
///
/// A shared store's listener calls ``hear(_:sequence:)`` for each notification; installing a state that reaches
/// the sequence number forgets it and resumes the reads waiting for it (``waitUntilLevel(_:timeout:clock:)``).
/// Readers ask ``isBehind(_:)``: with nothing heard ahead (every server that writes alone, and nearly always with
/// replicas), one atomic load.
extension ListRegistry {
    /// Notes that list `name` reached change `sequence` elsewhere; returns true when this starts a wait (the copy
    /// is behind, and nothing was heard ahead of it before): then the caller catches the copy up
    /// (``WriteCoordinator/refresh(_:)``) until ``isBehind(_:)`` says it is level, however many notifications
    /// come meanwhile (they only raise what it waits for).
    ///
    /// A list stored but not in memory is left as it is: it is read whole on its first use (after a reconnection
    /// the listener tells every list, and catching each up would load them all at start).
    public func hear(_ name: String, sequence: UInt64) -> Bool {
        guard !needsLoading(name) else { return false }
        guard (loadedState(of: name)?.header.lastSequence ?? 0) < sequence else { return false }
        let started = heard.withLock { heard in
            guard heard[name] != nil else {
                heardCount.add(1, ordering: .releasing)
                heard[name] = HeardAhead(sequence: sequence)
                return true
            }
            heard[name]!.sequence = max(heard[name]!.sequence, sequence)
            return false
        }
        // Caught up meanwhile (the install came between the look and the note): not behind after all.
        caughtUp(name, at: loadedState(of: name)?.header.lastSequence ?? 0)
        return started && isBehind(name)
    }

    /// Whether anything is heard ahead of any list (one atomic load: readers ask this first).
    public var hasHeardAhead: Bool { heardCount.load(ordering: .acquiring) > 0 }

    /// Whether another server is known to have committed to list `name` beyond this server's copy.
    public func isBehind(_ name: String) -> Bool {
        guard hasHeardAhead else { return false }
        guard let target = heard.withLock({ $0[name]?.sequence }) else { return false }
        return (loadedState(of: name)?.header.lastSequence ?? 0) < target
    }

    /// Returns once list `name` is not behind (a copy that far is installed, or what was heard is forgotten), or
    /// once `timeout` has passed on `clock`, whichever comes first; at once when it is not behind. No thread waits
    /// and nothing polls: the install that catches the list up resumes the read.
    public func waitUntilLevel<C: Clock<Duration>>(_ name: String, timeout: Duration, clock: C) async {
        guard isBehind(name) else { return }
        let number = nextWaiter.add(1, ordering: .relaxed).newValue
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            // Registered only while still heard: an install between the look above and here forgot the list, and
            // then there is nothing to wait for.
            let registered = heard.withLock { heard in
                guard heard[name] != nil else { return false }
                heard[name]!.waiters[number] = HeardAhead.Waiter(continuation: continuation)
                return true
            }
            guard registered else { return continuation.resume() }
            let timer = Task { [self] in
                try? await clock.sleep(for: timeout)
                let late = heard.withLock { $0[name]?.waiters.removeValue(forKey: number) }
                late?.continuation.resume()
            }
            let armed = heard.withLock { heard in
                guard heard[name]?.waiters[number] != nil else { return false }
                heard[name]!.waiters[number]!.timer = timer
                return true
            }
            if !armed { timer.cancel() }  // resumed already: the timer has nothing to do
        }
    }

    /// Forgets what was heard of list `name` (its catch-up failed for good: reads no longer wait for it).
    public func forgetHeard(_ name: String) {
        let entry = heard.withLock { heard in
            let entry = heard.removeValue(forKey: name)
            if entry != nil { heardCount.subtract(1, ordering: .releasing) }
            return entry
        }
        if let entry {
            for waiter in entry.waiters.values { waiter.resume() }
        }
    }

    /// Forgets what was heard of list `name` up to `sequence`, now that a copy that far is installed, and resumes
    /// the reads that waited for it.
    func caughtUp(_ name: String, at sequence: UInt64) {
        let entry = heard.withLock { heard -> HeardAhead? in
            guard let entry = heard[name], entry.sequence <= sequence else { return nil }
            heard[name] = nil
            heardCount.subtract(1, ordering: .releasing)
            return entry
        }
        if let entry {
            for waiter in entry.waiters.values { waiter.resume() }
        }
    }
}
