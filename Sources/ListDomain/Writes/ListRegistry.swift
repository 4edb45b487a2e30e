import Synchronization

/// Every list the server serves, by name: the shared default (`""`) and the datasets clients name.
///
/// A list nobody wrote to is not stored anywhere: reading it gives the generated list of the configured seed and
/// count. Readers take a copy of a list's state (``state(of:)``, one uncontended lock and a few retains) and answer
/// from it; only the ``WriteCoordinator`` installs new states, after their commit.
public final class ListRegistry: Sendable {
    /// The name of the shared default list, which requests without `X-Dataset` use.
    public static let defaultList = ""

    /// The seed and count of a list nobody wrote to.
    public let seed: UInt64
    public let baseCount: UInt64
    private let lists: Mutex<[String: ListState]>
    /// With a store other servers write to: the sequence numbers they reached in lists this server's copy has not
    /// caught up with yet (`ListRegistry+Heard.swift`), and how many such lists there are (0: the common case,
    /// one atomic load for a reader to know it).
    let heard = Mutex<[String: UInt64]>([:])
    let heardCount = Atomic<Int>(0)

    /// A registry of lists with `count` generated items from `seed`, and the stored lists loaded at start.
    public init(seed: UInt64, count: UInt64, stored: [String: StoredList] = [:]) {
        precondition(count <= Catalog.maximumCount, "Catalog count \(count) exceeds 2^53")
        self.seed = seed
        baseCount = count
        lists = Mutex(stored.mapValues(ListState.init))
    }

    /// The list's state as of now.
    public func state(of name: String) -> ListState {
        lists.withLock { $0[name] } ?? fresh()
    }

    /// Installs a committed state, and returns the one it replaces (nil for a list that had none).
    func install(_ state: ListState, as name: String) -> ListState? {
        let replaced = lists.withLock { $0.updateValue(state, forKey: name) }
        if heardCount.load(ordering: .acquiring) > 0 { caughtUp(name, at: state.header.lastSequence) }
        return replaced
    }

    /// The names of the lists that have state (were written to).
    public var names: [String] { lists.withLock { Array($0.keys) } }

    /// A list nobody wrote to.
    func fresh() -> ListState { ListState(seed: seed, count: baseCount) }
}
