/// The request journal's bounds and the report card's hint (``SettingKey/journalCapacity``,
/// ``SettingKey/journalMaxBytes``, ``SettingKey/journalMaxInFlightHint``).
struct JournalSettings: Sendable, Equatable {
    /// ``SettingKey/journalCapacity``: the entries kept per dataset; 0 records nothing.
    var capacity = 10_000
    /// ``SettingKey/journalMaxBytes``: what every dataset's journal together may take.
    var maxBytes = 67_108_864
    /// ``SettingKey/journalMaxInFlightHint``: more details or images than this in flight at once from one client is
    /// an `overfetch` finding.
    var maxInFlightHint = 16
    /// The most datasets with a journal at once: ``SettingKey/maxDatasets`` and the default list (a client can name
    /// datasets at will; the journal added to longest ago goes first).
    var maxDatasets = 10_001
}
