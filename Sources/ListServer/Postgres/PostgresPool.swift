import ListDomain

/// The threads that make every libpq call of a store (``SettingKey/dataPoolSize`` of them), each with its own
/// connection: two ``WorkerPool``s, the writer's thread and the readers'.
///
/// libpq's calls block on the network, so no caller's thread may make them: callers queue a job and suspend on a
/// continuation, which the job resumes from its thread when done. Each thread takes one job at a time, so a slow
/// read (a large uploaded image, a long change window) holds one connection while the others go on.
///
/// Thread `postgres-0` is the writer: the coordinator's calls (``Queue/writer``: begin, idempotency lookups, commit)
/// run there, one after another on one connection, inside the transaction that holds the lists' locks. The other
/// threads (at least one) take the reads, never inside that transaction. Each connection is made when its thread's
/// first job needs it, and closed as the thread ends.
final class PostgresPool: Sendable {
    /// Which threads may take a job.
    enum Queue {
        /// Thread 0 only.
        case writer
        /// Any thread but the writer.
        case reader
    }

    private let writer: WorkerPool<PostgresListTables>
    private let readers: WorkerPool<PostgresListTables>

    /// Starts `size` threads (at least 2) named `postgres-0`, `postgres-1`, …, each connecting when its first job
    /// comes.
    init(size: Int, options: PostgresListTables.Options) {
        precondition(size >= 2, "a PostgreSQL pool needs a writer and a reader")
        let make: @Sendable (Int) -> PostgresListTables = { _ in PostgresListTables(options) }
        let close: @Sendable (inout PostgresListTables) -> Void = { $0.close() }
        writer = WorkerPool(names: ["postgres-0"], makeState: make, finish: close)
        readers = WorkerPool(names: (1..<size).map { "postgres-\($0)" }, makeState: make, finish: close)
    }

    /// Runs `body` on one of the threads with its tables and returns what it returns; throws `.unavailable`
    /// once the pool is stopping.
    nonisolated(nonsending) func run<T: Sendable>(
        on queue: Queue = .reader, _ body: @escaping @Sendable (PostgresListTables) throws(StoreFailure) -> T
    ) async throws(StoreFailure) -> T {
        let result = await withCheckedContinuation {
            (continuation: CheckedContinuation<Result<T, StoreFailure>, Never>) in
            let queued = (queue == .writer ? writer : readers).submit { tables in
                continuation.resume(returning: Result { () throws(StoreFailure) in try body(tables) })
            }
            if !queued { continuation.resume(returning: .failure(Self.closed)) }
        }
        return try result.get()
    }

    /// Lets the queued jobs run, then closes the connections and ends the threads; returns when all have ended.
    func stop() async {
        requestStop()  // both refuse new jobs at once
        await writer.stop()
        await readers.stop()
    }

    /// ``stop()`` without waiting, for a store that goes away unclosed.
    func requestStop() {
        writer.requestStop()
        readers.requestStop()
    }

    /// The failure of every call after ``stop()``.
    static let closed = StoreFailure(.unavailable, "the PostgreSQL store is closed")
}
