import Synchronization

/// What a server has heard other servers commit, ahead of its copies: so that a read of a list another server
/// has just written to can wait the moment it takes this server to catch up, instead of answering with the list
/// before the write (read-your-writes across replicas: a client that got a 201 from one replica and reads from
/// another sees its write).
///
/// A shared store's listener calls ``hear(_:sequence:)`` for each notification; installing a state that reaches
/// the sequence number forgets it. Readers ask ``isBehind(_:)``: with nothing heard ahead (every server that
/// writes alone, and nearly always with replicas), one atomic load.
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
            let new = heard[name] == nil
            if new { heardCount.add(1, ordering: .releasing) }
            heard[name] = max(heard[name] ?? 0, sequence)
            return new
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
        guard let target = heard.withLock({ $0[name] }) else { return false }
        return (loadedState(of: name)?.header.lastSequence ?? 0) < target
    }

    /// Forgets what was heard of list `name` (its catch-up failed for good: reads no longer wait for it).
    public func forgetHeard(_ name: String) {
        heard.withLock { heard in
            if heard.removeValue(forKey: name) != nil { heardCount.subtract(1, ordering: .releasing) }
        }
    }

    /// Forgets what was heard of list `name` up to `sequence`, now that a copy that far is installed.
    func caughtUp(_ name: String, at sequence: UInt64) {
        heard.withLock { heard in
            if let target = heard[name], target <= sequence {
                heard[name] = nil
                heardCount.subtract(1, ordering: .releasing)
            }
        }
    }
}
