/// How hard SQLite works to make an acknowledged write durable: the ``SettingKey/dataSynchronous`` key.
///
/// The raw values are the config names, read in any case, and SQLite's own names for `PRAGMA synchronous` (the
/// store runs in WAL mode, where the two differ only in when the log is synced to disk).
enum DataSynchronous: String, CaseIterable, Sendable {
    /// The log is synced at every commit: an acknowledged write survives power loss (the default).
    case full
    /// The log is synced at checkpoints only: an acknowledged write survives a crash of the server process, but the
    /// last ones may be lost when the machine loses power.
    case normal
}
