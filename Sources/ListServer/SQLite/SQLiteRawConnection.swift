/// A plain SQLite connection to a store's file from outside the store, for tests: to hold a lock the store must
/// wait for, to set a `user_version` from the future, to look at the rows as they are.
///
/// It blocks the calling thread (no store thread here), which is why only tests use it.
package final class SQLiteRawConnection {
    private let connection: SQLiteConnection
    private let path: String

    /// Opens `path` for reading and writing, waiting at most `busyTimeout` for another connection's lock.
    package init(path: String, busyTimeout: Duration = .zero) throws(SQLiteStoreError) {
        self.path = path
        do {
            connection = try SQLiteConnection(path: path, mode: .readWriteCreate)
            try connection.setBusyTimeout(busyTimeout)
        } catch {
            throw SQLiteStoreError(path: path, problem: "\(error)")
        }
    }

    /// Runs `sql` (one or more statements, rows ignored); the error is SQLite's message.
    package func execute(_ sql: String) throws(SQLiteStoreError) {
        do {
            try connection.execute(sql)
        } catch {
            throw SQLiteStoreError(path: path, problem: "\(error)")
        }
    }

    /// The first column of the first row of `sql` as an integer, nil when there is no row.
    package func integer(_ sql: String) throws(SQLiteStoreError) -> Int64? {
        do {
            return try connection.integer(sql)
        } catch {
            throw SQLiteStoreError(path: path, problem: "\(error)")
        }
    }

    /// Closes the connection (which releases its locks).
    package func close() {
        connection.close()
    }
}
