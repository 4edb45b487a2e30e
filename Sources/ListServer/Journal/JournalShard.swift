import Synchronization

/// One loop's buffer of entries on their way to the journal (``Journal/Pending``): the loop appends, and whoever collects
/// (the loop itself every ``Journal/collectAfter`` or when the buffer is full, a reader of the journal at any time)
/// takes them all at once.
///
/// A lock that only its own loop takes on the request path (a reader takes it a few times a second at most), so
/// recording a request costs an uncontended lock and an append to storage that is kept between collections.
final class JournalShard: Sendable {
    /// The records a loop holds before it collects them itself.
    static let limit = 1024

    private let records = Mutex<[Journal.Pending]>([])

    init() {
        records.withLock { $0.reserveCapacity(Self.limit) }
    }

    /// Appends `record`; returns how many records the buffer holds now.
    func append(_ record: Journal.Pending) -> Int {
        records.withLock { records in
            records.append(record)
            return records.count
        }
    }

    /// Takes every record, leaving the buffer empty with its storage (swapped for a fresh one of the same size).
    func take() -> [Journal.Pending] {
        guard records.withLock({ !$0.isEmpty }) else { return [] }
        var taken: [Journal.Pending] = []
        taken.reserveCapacity(Self.limit)
        records.withLock { swap(&$0, &taken) }
        return taken
    }
}
