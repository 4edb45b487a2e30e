import Synchronization

/// The bytes of request bodies over ``freeBodyBytes`` (and of uploads, over ``SettingKey/maxBodyBytes``) being received
/// or answered at once, across every loop: what
/// bounds the memory they hold (evhttp keeps a whole body until the request is answered, the route copies it, the
/// store binds it).
///
/// Such a request takes its body's bytes from here as they arrive, before the connection passes them on: what a
/// head declares holds nothing until it is sent (eight heads declaring 10 MiB and sending nothing held the whole
/// budget, and every other large upload got 503, for as long as they stayed open). When the budget cannot take bytes
/// that arrive, the request is answered 503 (`image-busy` for an upload, `server-busy` for another body) with
/// `Retry-After` (from the head, if they came with it; else straight on the socket) and its connection closed. What
/// a request took is returned once the connection has answered (its next head starts), or closes, or its body
/// misses its deadline. The bodies of nearly every write (JSON of a few hundred bytes) are under ``freeBodyBytes``
/// and do not count: each connection holds at most that many bytes of them. Before smaller bodies counted, 10,000
/// connections sending 64 KiB bodies slowly could hold 640 MB. The capacity is ``uploadsInFlight`` uploads of the
/// largest size (the largest body, should ``SettingKey/maxBodyBytes`` be the larger).
final class UploadBudget: Sendable {
    /// How many uploads of ``SettingKey/imageMaxUploadBytes`` may be in flight at once.
    static let uploadsInFlight = 8
    /// The largest body that does not count (nor costs an atomic operation).
    static let freeBodyBytes = 8_192

    let capacity: Int
    private let used = Atomic<Int>(0)

    init(limits: HTTPLimits) {
        capacity = Self.uploadsInFlight * limits.largestBody
    }

    /// Takes `bytes` from the budget; false (nothing taken) when that would pass the capacity.
    func reserve(_ bytes: Int) -> Bool {
        var current = used.load(ordering: .relaxed)
        while true {
            guard current + bytes <= capacity else { return false }
            let (exchanged, original) = used.compareExchange(
                expected: current, desired: current + bytes, ordering: .acquiringAndReleasing)
            if exchanged { return true }
            current = original
        }
    }

    /// Gives back what ``reserve(_:)`` took.
    func release(_ bytes: Int) {
        used.subtract(bytes, ordering: .acquiringAndReleasing)
    }

    /// The bytes reserved now.
    var inUse: Int { used.load(ordering: .relaxed) }
}
