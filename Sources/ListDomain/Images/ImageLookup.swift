/// Which image a lookup asks for: the pixels (a pure function of the spec) and the encoding.
public struct ImageKey: Hashable, Sendable {
    public let spec: ImageSpec
    public let format: ImageFormat

    public init(spec: ImageSpec, format: ImageFormat) {
        self.spec = spec
        self.format = format
    }
}

/// What ``ImageCache/lookUp(_:bypassCache:uploads:)`` found, and how long until it may be served.
public struct ImageLookup: Sendable {
    /// How the bytes were found.
    public enum Source: Sendable, Equatable {
        /// In the cache, ready.
        case hit
        /// From the slow store: the latency drawn for the fetch this lookup made or joined, and how long the
        /// encode took.
        case miss(storeDuration: Duration, encodeDuration: Duration)
    }

    /// The encoded image.
    public let bytes: [UInt8]
    /// How the bytes were found.
    public let source: Source
    /// How long from now the answer is ready: zero for a hit, what is left of the store latency for a miss.
    public let readyIn: Duration
}

/// Counters of an ``ImageCache`` (for `/metrics`).
public struct ImageCacheStatistics: Sendable, Equatable {
    /// The most bytes the cache keeps.
    public let capacityBytes: Int
    /// Lookups answered from the cache.
    public var hits: UInt64 = 0
    /// Lookups that were not (each made or joined a fetch).
    public var misses: UInt64 = 0
    /// Misses that joined a fetch in flight instead of making their own.
    public var coalescedWaits: UInt64 = 0
    /// Lookups that skipped the cache (`Cache-Control: no-cache`).
    public var bypasses: UInt64 = 0
    /// Images encoded.
    public var encodes: UInt64 = 0
    /// Fetches that failed (the encoder was busy or refused).
    public var failures: UInt64 = 0
    /// Images dropped to stay within the capacity.
    public var evictions: UInt64 = 0
    /// Images held now.
    public var entries: Int = 0
    /// Bytes held now.
    public var bytes: Int = 0

    public init(capacityBytes: Int) {
        self.capacityBytes = capacityBytes
    }
}
