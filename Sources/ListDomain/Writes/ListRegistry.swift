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
        lists.withLock { $0.updateValue(state, forKey: name) }
    }

    /// The names of the lists that have state (were written to).
    public var names: [String] { lists.withLock { Array($0.keys) } }

    /// A list nobody wrote to.
    func fresh() -> ListState { ListState(seed: seed, count: baseCount) }
}
