/// The network half of a ``DatasetProfile``: how slow its answers are (``Latency``, ``Bandwidth``), how many a
/// client may ask for (``RateLimit``), and whether a client needs a token first (``Auth``).
extension DatasetProfile {
    /// A latency drawn for each answer, by the kind of route it answers: added to whatever else holds it.
    public struct Latency: Sendable, Equatable {
        /// The pages, items, writes and the change feed.
        public var list: LatencyDistribution?
        /// The slow details (`/items/{id}/detail`).
        public var detail: LatencyDistribution?
        /// The image bytes, the generated ones, uploads and Picsum's.
        public var image: LatencyDistribution?

        public init(
            list: LatencyDistribution? = nil, detail: LatencyDistribution? = nil, image: LatencyDistribution? = nil
        ) {
            self.list = list
            self.detail = detail
            self.image = image
        }

        /// The distribution for requests of `kind`; nil for none (and for streams, which have no one answer).
        public func distribution(for kind: ProfileRequest.Kind) -> LatencyDistribution? {
            switch kind {
            case .list: list
            case .detail: detail
            case .image: image
            case .stream: nil
            }
        }
    }

    /// Answers go out at `kbps` kilobits a second (1,000 bits), after `firstByteMs`.
    public struct Bandwidth: Sendable, Equatable {
        public var kbps: Int
        public var firstByteMs: Int

        public init(kbps: Int, firstByteMs: Int = 0) {
            self.kbps = kbps
            self.firstByteMs = firstByteMs
        }

        /// The bytes a second.
        public var bytesPerSecond: Int { max(1, kbps * 1000 / 8) }
    }

    /// At most `requests` every `perSeconds` per client, with bursts of up to `burst` (default `requests`): a token
    /// bucket that holds `burst` and refills at `requests / perSeconds` a second.
    public struct RateLimit: Sendable, Equatable {
        public var requests: Int
        public var perSeconds: Int
        public var burst: Int?

        public init(requests: Int, perSeconds: Int, burst: Int? = nil) {
            self.requests = requests
            self.perSeconds = perSeconds
            self.burst = burst
        }

        /// How many requests the bucket holds.
        public var capacity: Int { burst ?? requests }
        /// How many come back a second.
        public var refillPerSecond: Double { Double(requests) / Double(perSeconds) }
    }

    /// The dataset wants `Authorization: Bearer <token>`, tokens issued by `POST …/auth/token` living
    /// `tokenTTLSeconds`.
    public struct Auth: Sendable, Equatable {
        public var tokenTTLSeconds: Int

        public init(tokenTTLSeconds: Int) {
            self.tokenTTLSeconds = tokenTTLSeconds
        }
    }
}
