import Synchronization

/// Whether a PostgreSQL store's database answered last (`/readyz` says it): set false by any of its connections
/// that fails to connect or finds its connection gone, true again by the next that connects.
final class PostgresReachability: Sendable {
    private let reachable = Atomic(true)

    var isReachable: Bool { reachable.load(ordering: .relaxed) }

    func set(_ value: Bool) { reachable.store(value, ordering: .relaxed) }
}
