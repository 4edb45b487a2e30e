import ListDomain

/// A failed libpq call: PostgreSQL's message, its SQLSTATE when the server sent one, and whether the connection
/// is gone (then the next job reconnects).
struct PostgresError: Error, CustomStringConvertible {
    /// libpq's or the server's message, one line.
    let message: String
    /// The five-character SQLSTATE (`23505`, `53100`, …); nil for errors of the client or the connection.
    let sqlState: String?
    /// Whether the connection is unusable (`PQstatus` is `CONNECTION_BAD`).
    let connectionLost: Bool

    init(_ message: String, sqlState: String? = nil, connectionLost: Bool = false) {
        // libpq's messages end with a newline, some span lines: logs and problem details take one line.
        self.message = message.split(whereSeparator: \.isNewline).joined(separator: " ")
        self.sqlState = sqlState
        self.connectionLost = connectionLost
    }

    var description: String {
        sqlState.map { "\(message) (SQLSTATE \($0))" } ?? message
    }

    /// Class 53 of SQLSTATE is "insufficient resources": 53100 is `disk_full`.
    var isDiskFull: Bool { sqlState == "53100" }

    /// The error as the domain sees it: 507 for a full disk, else 503.
    var storeFailure: StoreFailure {
        StoreFailure(isDiskFull ? .full : .unavailable, "PostgreSQL: \(description)")
    }
}
