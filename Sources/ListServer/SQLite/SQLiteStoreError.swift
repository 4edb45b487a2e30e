/// Why an SQLite store could not be opened: the one-line message the server stops with at start-up.
///
/// `cannot open the SQLite store at /var/lib/listserver/lists.sqlite: the file is not an SQLite database: …`;
/// it names the file and what is wrong with it (unreadable, not a database or damaged, read-only, a schema newer
/// than this build), then SQLite's own words.
package struct SQLiteStoreError: Error, CustomStringConvertible, Equatable {
    /// The path the store was asked to open.
    package let path: String
    /// What is wrong, in words for the person starting the server.
    package let problem: String

    package init(path: String, problem: String) {
        self.path = path
        self.problem = problem
    }

    package var description: String { "cannot open the SQLite store at \(path): \(problem)" }
}
