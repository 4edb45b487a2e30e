import Synchronization

/// The bytes of large uploads being received or answered at once, across every loop: what bounds the memory they
/// hold (evhttp keeps a whole body until the request is answered, the route copies it, the store binds it).
///
/// A body over `http.max_body_bytes` is only allowed on `PUT /items/<id>/image` (up to `image.max_upload_bytes`),
/// and such a request takes its bytes from here as they arrive, before the connection passes them on: what a head
/// declares holds nothing until it is sent (eight heads declaring 10 MiB and sending nothing held the whole budget,
/// and every other large upload got 503, for as long as they stayed open). When the budget cannot take bytes that
/// arrive, the upload is answered 503 `image-busy` with `Retry-After` (from the head, if they came with it; else
/// straight on the socket) and its connection closed. What an upload took is returned once the connection has
/// answered (its next head starts), or closes, or its body misses its deadline. Smaller bodies are bounded by
/// `http.max_body_bytes` per connection and do not count. The capacity is ``uploadsInFlight`` uploads of the
/// largest size.
final class UploadBudget: Sendable {
    /// How many uploads of `image.max_upload_bytes` may be in flight at once.
    static let uploadsInFlight = 8

    let capacity: Int
    private let used = Atomic<Int>(0)

    init(limits: HTTPLimits) {
        capacity = Self.uploadsInFlight * limits.maxUploadBytes
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
