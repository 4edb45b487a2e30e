import CPostgres
import Glibc

/// One libpq connection in blocking mode, used by one thread at a time (a ``PostgresPool`` thread or the
/// ``PostgresListener``'s): connect, run a script, run a prepared statement with binary parameters and results, and know when the connection is gone.
///
/// Each distinct SQL text is prepared once per connection (`PQprepare`, named `s0`, `s1`, …) and then run with
/// `PQexecPrepared`, so the server parses and plans a statement once per connection, not once per write.
final class PostgresConnection {
    private let connection: OpaquePointer
    /// The name each SQL text was prepared under.
    private var prepared: [String: String] = [:]
    /// Set when the connection is left in a state no later call can use (a pipeline cut short by a lost
    /// connection, which libpq cannot leave): it counts as broken, and is replaced.
    private var poisoned = false

    /// Connects with `url` (a `postgres://` or `postgresql://` URI, or `key=value` pairs, as libpq takes them).
    ///
    /// `connect_timeout` bounds how long a host that does not answer holds the calling thread (libpq's default is
    /// to wait for the kernel, minutes); TCP keepalives and `tcp_user_timeout` notice a database host that went
    /// away within about 10 s (by default the kernel would take two hours, with a replica's writer, and every
    /// replica waiting for its locks, stuck until then); `application_name` shows the server's connections in
    /// `pg_stat_activity`. libpq processes the keywords in order and keeps the last value of each, so the URI goes
    /// last: one that sets them wins.
    init(url: String, connectTimeoutSeconds: Int = 5) throws(PostgresError) {
        try LibPQ.load()
        let keywords = [
            "connect_timeout", "keepalives", "keepalives_idle", "keepalives_interval", "keepalives_count",
            "tcp_user_timeout", "application_name", "client_encoding", "dbname",
        ]
        let values = [String(connectTimeoutSeconds), "1", "5", "2", "3", "10000", "listserver", "UTF8", url]
        let connection = Self.withCStrings(keywords) { keywords in
            Self.withCStrings(values) { values in
                // expand_dbname = 1: the (first) dbname is read as a URI or key=value string.
                LibPQ.api.connectdbParams(keywords, values, 1)
            }
        }
        guard let connection else { throw PostgresError("libpq could not allocate a connection") }
        guard LibPQ.api.status(connection) == CONNECTION_OK else {
            let error = PostgresError(LibPQ.text(LibPQ.api.errorMessage(connection)), connectionLost: true)
            LibPQ.api.finish(connection)
            throw error
        }
        // libpq prints the server's notices ("relation … already exists, skipping") on standard error by default,
        // which is the server's log stream: they are expected and say nothing an operator needs.
        _ = LibPQ.api.setNoticeProcessor(connection, { _, _ in }, nil)
        self.connection = connection
    }

    deinit { LibPQ.api.finish(connection) }

    /// Whether the connection is unusable: the server went away, or a call found the socket closed.
    var isBroken: Bool { poisoned || LibPQ.api.status(connection) != CONNECTION_OK }

    /// Whether a transaction is open (or failed and not rolled back yet).
    var inTransaction: Bool { LibPQ.api.transactionStatus(connection) != PQTRANS_IDLE }

    /// Waits up to `timeoutMilliseconds` for the socket to have input, then returns the payloads of the
    /// notifications received (`LISTEN`), oldest first; throws when the connection is lost.
    func waitForNotifications(timeoutMilliseconds: Int32) throws(PostgresError) -> [String] {
        // Notifications that came in with an earlier answer are already read: no wait for those.
        let waiting = takeNotifications()
        if !waiting.isEmpty { return waiting }
        var descriptor = pollfd(fd: LibPQ.api.socket(connection), events: Int16(POLLIN), revents: 0)
        guard descriptor.fd >= 0 else { throw PostgresError("the connection has no socket", connectionLost: true) }
        let ready = poll(&descriptor, 1, timeoutMilliseconds)
        if ready < 0 && errno != EINTR {
            throw PostgresError("poll failed: \(String(cString: strerror(errno)))", connectionLost: true)
        }
        guard LibPQ.api.consumeInput(connection) == 1, !isBroken else {
            throw PostgresError(LibPQ.text(LibPQ.api.errorMessage(connection)), connectionLost: true)
        }
        return takeNotifications()
    }

    /// The payloads of the notifications libpq has read, oldest first.
    private func takeNotifications() -> [String] {
        var payloads: [String] = []
        while let notification = LibPQ.api.notifies(connection) {
            payloads.append(String(cString: notification.pointee.extra))
            LibPQ.api.freemem(notification)
        }
        return payloads
    }

    /// Runs `sql`, which may hold several statements and no parameters (migrations, `BEGIN`, `SET …`).
    func script(_ sql: String) throws(PostgresError) {
        _ = try check(LibPQ.api.exec(connection, sql), sql: sql)
    }

    /// Runs the single statement `sql` with `parameters` (`$1`, `$2`, …), prepared on first use; the rows it
    /// returned (none for most writes).
    @discardableResult
    func execute(_ sql: String, _ parameters: [PostgresValue] = []) throws(PostgresError) -> PostgresRows {
        let name = try preparedName(sql, parameters)
        let result = Self.withParameters(parameters) { values, lengths, formats in
            LibPQ.api.execPrepared(connection, name, Int32(parameters.count), values, lengths, formats, 1)
        }
        return try check(result, sql: sql)
    }

    /// One statement of a ``pipeline(_:)``.
    struct Statement {
        let sql: String
        let parameters: [PostgresValue]

        init(_ sql: String, _ parameters: [PostgresValue] = []) {
            self.sql = sql
            self.parameters = parameters
        }
    }

    /// Runs `statements` in libpq's pipeline mode: all of them sent, then one sync, then every result read, so
    /// the whole list costs one round trip to the server rather than one each (a group commit of 64 writes is
    /// some 200 statements: measured here, 8.5 µs a statement pipelined against 70-80 µs one by one, BENCHMARKS.md
    /// "Choosing the PostgreSQL client"). Returns each statement's rows, in order.
    ///
    /// The first statement that fails throws its error; PostgreSQL skips the rest (up to the sync), so a
    /// transaction the list opened is left open and failed, for the caller to roll back. Statements are sent in
    /// chunks of at most 256, each with its sync, so that results never pile up unread: in blocking mode a
    /// client that only writes while the server's answers fill the socket would wait forever.
    @discardableResult
    func pipeline(_ statements: [Statement]) throws(PostgresError) -> [PostgresRows] {
        // Preparing is a round trip of its own, needed once per statement and connection: done before, not in,
        // the pipeline.
        var names: [String] = []
        names.reserveCapacity(statements.count)
        for statement in statements { names.append(try preparedName(statement.sql, statement.parameters)) }
        guard LibPQ.api.enterPipelineMode(connection) == 1 else {
            throw PostgresError(LibPQ.text(LibPQ.api.errorMessage(connection)), connectionLost: isBroken)
        }
        defer {
            // Fails when results are still pending: only when the connection broke half-way.
            if LibPQ.api.exitPipelineMode(connection) != 1 { poisoned = true }
        }
        var rows: [PostgresRows] = []
        rows.reserveCapacity(statements.count)
        var start = 0
        while start < statements.count {
            let end = min(start + 256, statements.count)
            for index in start..<end {
                let statement = statements[index]
                let sent = Self.withParameters(statement.parameters) { values, lengths, formats in
                    LibPQ.api.sendQueryPrepared(
                        connection, names[index], Int32(statement.parameters.count), values, lengths, formats, 1)
                }
                guard sent == 1 else { throw poison() }
            }
            guard LibPQ.api.pipelineSync(connection) == 1 else { throw poison() }
            var failure: PostgresError?
            for index in start..<end {
                // Each statement's result, then a null that ends it.
                let result = LibPQ.api.getResult(connection)
                guard let result else {
                    // No result where one is owed: the connection is gone, and what follows is out of step.
                    throw poison()
                }
                if LibPQ.api.resultStatus(result) == PGRES_PIPELINE_ABORTED {
                    LibPQ.api.clear(result)
                } else if failure == nil {
                    do throws(PostgresError) {
                        rows.append(try check(result, sql: statements[index].sql))
                    } catch {
                        failure = error
                    }
                } else {
                    LibPQ.api.clear(result)
                }
                while let extra = LibPQ.api.getResult(connection) { LibPQ.api.clear(extra) }
            }
            // The sync's own result.
            guard let sync = LibPQ.api.getResult(connection) else { throw poison() }
            LibPQ.api.clear(sync)
            if let failure { throw failure }
            start = end
        }
        return rows
    }

    /// Marks the connection unusable (a pipeline it cannot finish) and returns libpq's error, as lost.
    private func poison() -> PostgresError {
        poisoned = true
        return PostgresError(LibPQ.text(LibPQ.api.errorMessage(connection)), connectionLost: true)
    }

    /// Calls `body` with the binary form of `parameters` as libpq takes them: values (null pointers for NULL),
    /// lengths and formats (all binary).
    private static func withParameters<T>(
        _ parameters: [PostgresValue],
        _ body: ([UnsafePointer<CChar>?], [Int32], [Int32]) -> T
    ) -> T {
        var bytes: [UInt8] = []
        var lengths: [Int32] = []
        var offsets: [Int?] = []
        lengths.reserveCapacity(parameters.count)
        offsets.reserveCapacity(parameters.count)
        for parameter in parameters {
            let start = bytes.count
            let length = parameter.append(to: &bytes)
            offsets.append(length.map { _ in start })
            lengths.append(Int32(length ?? 0))
        }
        let formats = [Int32](repeating: 1, count: parameters.count)
        return bytes.withUnsafeBufferPointer { buffer in
            let base = UnsafeRawPointer(buffer.baseAddress ?? UnsafePointer(bitPattern: 1)!)
            let values: [UnsafePointer<CChar>?] = offsets.map { offset in
                offset.map { (base + $0).assumingMemoryBound(to: CChar.self) }
            }
            return body(values, lengths, formats)
        }
    }

    /// The name `sql` is prepared under on this connection, preparing it now if it is new.
    private func preparedName(_ sql: String, _ parameters: [PostgresValue]) throws(PostgresError) -> String {
        if let name = prepared[sql] { return name }
        let name = "s\(prepared.count)"
        let types = parameters.map(\.typeOID)
        let result = LibPQ.api.prepare(connection, name, sql, Int32(types.count), types)
        _ = try check(result, sql: sql)
        prepared[sql] = name
        return name
    }

    /// `result` when the statement succeeded, else the error it carries (and the result cleared either way).
    private func check(_ result: OpaquePointer?, sql: String) throws(PostgresError) -> PostgresRows {
        guard let result else {
            // Out of memory, or the connection could not send the query.
            throw PostgresError(LibPQ.text(LibPQ.api.errorMessage(connection)), connectionLost: isBroken)
        }
        switch LibPQ.api.resultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY:
            return PostgresRows(result)  // owns the result from here
        default:
            // Read before the result is cleared.
            let state = LibPQ.api.resultErrorField(result, Int32(UInt8(ascii: "C"))).map { String(cString: $0) }
            var message = LibPQ.text(LibPQ.api.resultErrorMessage(result))
            LibPQ.api.clear(result)
            if message.isEmpty { message = LibPQ.text(LibPQ.api.errorMessage(connection)) }
            let statement = sql.split(whereSeparator: \.isWhitespace).prefix(6).joined(separator: " ")
            throw PostgresError("\(message) [in: \(statement) ...]", sqlState: state, connectionLost: isBroken)
        }
    }

    /// Calls `body` with `strings` as a NULL-terminated array of C strings (what `PQconnectdbParams` takes).
    private static func withCStrings<T>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> T)
        -> T
    {
        let copies = strings.map { strdup($0) }
        defer { copies.forEach { free($0) } }
        let pointers = copies.map { UnsafePointer($0) } + [nil]
        return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
    }
}
