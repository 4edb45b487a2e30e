/// Encoded images in front of the slow store, bounded by bytes, with concurrent misses for one image sharing one
/// encode.
///
/// An image fetch is slow twice over: the store's latency (``LatencyDistribution``, `image.latency.*`), drawn as
/// for details, and the encode, which runs on the encoder's threads meanwhile. A lookup:
/// - **hit**: the bytes are cached and ready: answered at once, the entry marked most recently used;
/// - **miss**: one fetch per ``ImageKey`` however many lookups miss on it while it is in flight: the first draws a
///   latency and starts the encode, the others join it and get the same bytes, ready at the same moment. The
///   bytes enter the cache when the encode is done, marked ready when the latency has passed: until then a
///   lookup finds them and waits out the rest of the latency, like a joiner;
/// - **bypass** (`Cache-Control: no-cache`): a fetch of its own, joined by nobody, whose bytes then replace the
///   cached ones.
///
/// The caller holds its response for ``ImageLookup/readyIn`` (the server on a loop timer), so a waiting request
/// costs no task once its bytes exist. When the bytes held pass `capacityBytes`, the least recently used images go;
/// an image larger than the whole capacity is served but not kept.
public actor ImageCache {
    /// A fetch in flight, which misses for its key join.
    private struct Flight {
        let task: Task<Result<EncodedImage, ImageFailure>, Never>
        /// When it is ready, on the clock's timeline.
        let readyAt: Duration
        let latency: Duration
    }

    /// A cached image.
    private struct Entry {
        let bytes: [UInt8]
        let readyAt: Duration
        let latency: Duration
        let encodeDuration: Duration
    }

    private let encoder: any ImageEncoding
    private let latency: LatencyDistribution
    private let random: LockedRandomNumberGenerator
    private let stopwatch: @Sendable () -> Duration
    private var entries = LRUTable<ImageKey, Entry>(capacity: Int.max)
    private var flights: [ImageKey: Flight] = [:]
    private var counters: ImageCacheStatistics

    /// Creates an empty cache.
    ///
    /// - Parameters:
    ///   - encoder: Renders and encodes misses.
    ///   - latency: The store latency of every fetch (`image.latency.*`).
    ///   - capacityBytes: The most encoded bytes kept (`image.cache_bytes`), at least 0 (0 keeps nothing).
    ///   - clock: The clock latencies are measured on; tests inject a manual one.
    ///   - random: The generator latencies are drawn from.
    public init(
        encoder: any ImageEncoding,
        latency: LatencyDistribution,
        capacityBytes: Int,
        clock: any Clock<Duration> = ContinuousClock(),
        random: any RandomNumberGenerator & Sendable = SystemRandomNumberGenerator()
    ) {
        precondition(capacityBytes >= 0, "ImageCache capacity must not be negative")
        self.encoder = encoder
        self.latency = latency
        self.random = LockedRandomNumberGenerator(random)
        stopwatch = SlowStore.stopwatch(on: clock)
        counters = ImageCacheStatistics(capacityBytes: capacityBytes)
    }

    /// The image for `key`: cached, joined or fetched (see the type's description).
    ///
    /// - Throws: The fetch's ``ImageFailure``, for every lookup that made or joined it.
    public func lookUp(_ key: ImageKey, bypassCache: Bool = false) async throws(ImageFailure) -> ImageLookup {
        let now = stopwatch()
        if bypassCache {
            counters.bypasses += 1
        } else if let entry = entries.value(forKey: key) {
            if entry.readyAt <= now {
                counters.hits += 1
                return ImageLookup(bytes: entry.bytes, source: .hit, readyIn: .zero)
            }
            counters.misses += 1
            counters.coalescedWaits += 1
            return ImageLookup(
                bytes: entry.bytes, source: .miss(storeDuration: entry.latency, encodeDuration: entry.encodeDuration),
                readyIn: entry.readyAt - now)
        } else if let flight = flights[key] {
            counters.misses += 1
            counters.coalescedWaits += 1
            let encoded = try await flight.task.value.get()
            return lookup(encoded, readyAt: flight.readyAt, latency: flight.latency)
        }
        if !bypassCache {
            counters.misses += 1
        }
        let drawn = random.withLock { generator in latency.sample(using: &generator) }
        let flight = Flight(
            task: Task { [encoder] in
                do throws(ImageFailure) {
                    return .success(try await encoder.encode(key.spec, as: key.format))
                } catch {
                    return .failure(error)
                }
            },
            readyAt: now + drawn, latency: drawn)
        if !bypassCache {
            flights[key] = flight
        }
        let result = await flight.task.value
        if !bypassCache {
            flights[key] = nil
        }
        switch result {
        case .failure(let failure):
            counters.failures += 1
            throw failure
        case .success(let encoded):
            counters.encodes += 1
            keep(
                Entry(bytes: encoded.bytes, readyAt: flight.readyAt, latency: drawn, encodeDuration: encoded.encodeDuration),
                for: key)
            return lookup(encoded, readyAt: flight.readyAt, latency: drawn)
        }
    }

    /// Forgets every cached image (fetches in flight still answer their waiters, and their bytes are kept).
    public func removeAll() {
        entries = LRUTable(capacity: Int.max)
        counters.entries = 0
        counters.bytes = 0
    }

    /// The counters so far.
    public var statistics: ImageCacheStatistics { counters }

    /// The lookup for a fetch's bytes, ready at `readyAt`.
    private func lookup(_ encoded: EncodedImage, readyAt: Duration, latency: Duration) -> ImageLookup {
        ImageLookup(
            bytes: encoded.bytes, source: .miss(storeDuration: latency, encodeDuration: encoded.encodeDuration),
            readyIn: max(.zero, readyAt - stopwatch()))
    }

    /// Caches `entry` as the most recently used image, then drops the least recently used ones while the bytes
    /// held pass the capacity; an entry larger than the capacity is not kept.
    private func keep(_ entry: Entry, for key: Key) {
        if let replaced = entries.removeValue(forKey: key) {
            counters.bytes -= replaced.bytes.count
        }
        guard entry.bytes.count <= counters.capacityBytes else {
            counters.entries = entries.count
            return
        }
        entries.setValue(entry, forKey: key)
        counters.bytes += entry.bytes.count
        while counters.bytes > counters.capacityBytes, let (_, evicted) = entries.removeLeastRecentlyUsed() {
            counters.bytes -= evicted.bytes.count
            counters.evictions += 1
        }
        counters.entries = entries.count
    }

    private typealias Key = ImageKey
}
