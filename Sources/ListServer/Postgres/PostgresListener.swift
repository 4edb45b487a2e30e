import CPostgres
import FoundationEssentials
import Glibc
import ListDomain
import Synchronization

/// Hears the other servers' commits: a thread with a connection of its own in `LISTEN`, which calls ``onChange``
/// with each list another server (or this one) committed to and the sequence number it reached.
///
/// After every connection (the first, and each after the database was lost) it also reads every list's last
/// sequence number from the table and calls ``onChange`` for each, so nothing committed while it was not
/// listening is missed: notifications are a wake-up, the rows are the truth (``ListStore/beginCommit(_:)``).
///
/// It also holds, while it can, the session lock that makes its server the one that grows the default list
/// (``SettingKey/growEveryMs``, ``isGrowing``): with several servers on one database each would otherwise add its own
/// items. The lock goes with the connection, so when that server stops or loses the database another takes over
/// within a second.
///
/// The thread waits in `poll` on the connection's socket (at most 250 ms, to see ``stop()``), and between
/// connection attempts on a condition variable, with a backoff from 100 ms to 5 s: it is not an event loop. Nor is
/// it a ``WorkerPool``: it runs one job, this loop, for its whole life, and a queue in front of it would hold nothing.
final class PostgresListener: @unchecked Sendable {
    /// Told `(list, sequence)` for every change notification and every list after a (re)connection; the sequence
    /// is nil when the list was removed (an idle dataset expired on some server).
    private let onChange: @Sendable (String, UInt64?) -> Void
    /// Told a list whose profile changed, and nil after each (re)connection (every profile may have).
    private let onProfile: @Sendable (String?) -> Void
    /// Told once, when ``stop()`` is called.
    private let onStop: @Sendable () -> Void
    private let url: PostgresURL
    private let schema: String?
    private let reachability: PostgresReachability?
    private let stopped = Atomic(false)
    private let growing = Atomic(false)
    private let wakeUp = ConditionLock()

    /// - Parameter reachability: Set false when the connection is lost or cannot be made (the listener is the
    ///   first to notice a database that went away, within 250 ms), true when it is back.
    init(
        url: PostgresURL, schema: String? = nil, reachability: PostgresReachability? = nil,
        onProfile: @escaping @Sendable (String?) -> Void = { _ in }, onStop: @escaping @Sendable () -> Void = {},
        onChange: @escaping @Sendable (String, UInt64?) -> Void
    ) {
        self.onStop = onStop
        self.url = url
        self.schema = schema
        self.reachability = reachability
        self.onChange = onChange
        self.onProfile = onProfile
        OSThread.start(name: "postgres-listen") { [self] in
            run()
        }
    }

    /// Ends the thread (within 250 ms) and closes its connection.
    func stop() {
        guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        onStop()
        wakeUp.lock()
        wakeUp.broadcast()
        wakeUp.unlock()
    }

    private var isStopped: Bool { stopped.load(ordering: .acquiring) }

    /// Whether this server holds the growth lock: it alone grows the default list.
    var isGrowing: Bool { growing.load(ordering: .acquiring) }

    /// The session-level advisory lock of the server that grows the default list ("Grow" in ASCII), taken with the
    /// hash of the schema as its second key: advisory locks are the database's, and servers of two schemas (two
    /// deployments, or two test runs, sharing a database) each grow their own list. With the lock as the only key,
    /// one schema's server kept the other's from ever growing.
    static let growthLock: Int32 = 0x4772_6F77

    private func run() {
        var backoff = Duration.zero
        while !isStopped {
            do throws(PostgresError) {
                let connection = try listen()
                reachability?.set(true)
                backoff = .zero
                try hear(on: connection)
            } catch {
                growing.store(false, ordering: .releasing)
                reachability?.set(false)
                backoff = min(max(backoff * 2, .milliseconds(100)), .seconds(5))
                wakeUp.lock()
                if !isStopped {
                    wakeUp.wait(timeout: backoff)
                }
                wakeUp.unlock()
            }
        }
    }

    /// A connection listening on this schema's channel, after telling every list's position as of now.
    private func listen() throws(PostgresError) -> PostgresConnection {
        let connection = try PostgresConnection(url: url.value)
        if let schema {
            try connection.script("SET search_path TO \(PostgresSchema.quoted(schema))")
        }
        let channel = try connection.execute("SELECT \(PostgresNotification.channel)").text(0, 0) ?? ""
        try connection.script("LISTEN \(PostgresSchema.quoted(channel))")
        let lists = try connection.execute("SELECT name, last_sequence FROM lists")
        for row in 0..<lists.count {
            onChange(lists.text(row, 0) ?? "", lists.uint64(row, 1))
        }
        onProfile(nil)
        return connection
    }

    /// Hands each notification to ``onChange`` until the connection breaks (throws) or the listener stops.
    private func hear(on connection: PostgresConnection) throws(PostgresError) {
        var lastTry = ContinuousClock.now - .seconds(1)
        while !isStopped {
            if !isGrowing && ContinuousClock.now - lastTry >= .seconds(1) {
                lastTry = ContinuousClock.now
                let taken = try connection.execute(
                    "SELECT pg_try_advisory_lock(\(Self.growthLock), hashtext(current_schema()))::int::bigint")
                growing.store(taken.int64(0, 0) == 1, ordering: .releasing)
            }
            for payload in try connection.waitForNotifications(timeoutMilliseconds: 250) {
                if let notification = PostgresNotification(payload: payload) {
                    if notification.profile {
                        onProfile(notification.list)
                    } else {
                        onChange(notification.list, notification.sequence)
                    }
                }
            }
        }
    }
}
