import Synchronization

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
///
/// Why a class behind a mutex rather than an actor: a lookup is a few dictionary operations, and an actor put two
/// hops to the shared executor's threads into every miss (to the actor, and back to it when the encode was done)
/// on top of the two a miss needs (to an image worker and back to the loop). Benchmarks/images counted that as
/// about a sixth of a 600x400 image's CPU, mostly the kernel switching threads. Here the lookup runs on the
/// caller's thread (`nonisolated(nonsending)`: a plain async method would hop to the shared executor itself), the
/// encode's continuation resumes the caller directly, and joiners wait on the flight.
public final class ImageCache: Sendable {
    /// A fetch in flight: the lookups that joined it wait here for its result.
    private final class Flight: Sendable {
        let readyAt: Duration
        let latency: Duration
        private let state = Mutex<(result: Result<EncodedImage, ImageFailure>?, waiters: [Waiter])>((nil, []))

        typealias Waiter = CheckedContinuation<Result<EncodedImage, ImageFailure>, Never>

        init(readyAt: Duration, latency: Duration) {
            self.readyAt = readyAt
            self.latency = latency
        }

        /// The fetch's result, once its encode is done.
        nonisolated(nonsending) func result() async -> Result<EncodedImage, ImageFailure> {
            await withCheckedContinuation { (continuation: Waiter) in
                let done = state.withLock { state in
                    if state.result == nil { state.waiters.append(continuation) }
                    return state.result
                }
                if let done { continuation.resume(returning: done) }
            }
        }

        /// Hands `result` to every lookup that joined, and to those that come later.
        func finish(_ result: Result<EncodedImage, ImageFailure>) {
            let waiters = state.withLock { state in
                state.result = result
                defer { state.waiters = [] }
                return state.waiters
            }
            for waiter in waiters { waiter.resume(returning: result) }
        }
    }

    /// A cached image.
    private struct Entry {
        let bytes: [UInt8]
        let readyAt: Duration
        let latency: Duration
        let encodeDuration: Duration
    }

    private struct State {
        var entries = LRUTable<ImageKey, Entry>(capacity: Int.max)
        var flights: [ImageKey: Flight] = [:]
        var counters: ImageCacheStatistics
    }

    /// What renders and encodes misses (and checks uploads).
    public let encoder: any ImageEncoding
    private let latency: LatencyDistribution
    private let random: LockedRandomNumberGenerator
    private let stopwatch: @Sendable () -> Duration
    private let state: Mutex<State>

    /// Creates an empty cache.
    ///
    /// - Parameters:
    ///   - encoder: Renders and encodes misses.
    ///   - latency: The store latency of every fetch (`image.latency.*`).
    ///   - capacityBytes: The most encoded bytes kept, at least 0 (0 keeps nothing).
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
        state = Mutex(State(counters: ImageCacheStatistics(capacityBytes: capacityBytes)))
    }

    /// What a lookup does once it has looked: answer, wait for a fetch in flight, or make one.
    private enum Step {
        case answer(ImageLookup)
        case join(Flight)
        case fetch(Flight)
    }

    /// The image for `key`: cached, joined or fetched (see the type's description).
    ///
    /// - Parameter uploads: The store that keeps uploaded files, which a miss on an upload reads from (the one
    ///   the writes that stored it went to).
    /// - Throws: The fetch's ``ImageFailure``, for every lookup that made or joined it.
    public nonisolated(nonsending) func lookUp(
        _ key: ImageKey, bypassCache: Bool = false, uploads: (any ListStore)? = nil
    ) async throws(ImageFailure) -> ImageLookup {
        let now = stopwatch()
        let step = state.withLock { state -> Step in
            if bypassCache {
                state.counters.bypasses += 1
            } else if let entry = state.entries.value(forKey: key) {
                if entry.readyAt <= now {
                    state.counters.hits += 1
                    return .answer(ImageLookup(bytes: entry.bytes, source: .hit, readyIn: .zero))
                }
                // Encoded, but the store latency has not passed yet: wait out the rest, like a joiner.
                state.counters.misses += 1
                state.counters.coalescedWaits += 1
                let source = ImageLookup.Source.miss(storeDuration: entry.latency, encodeDuration: entry.encodeDuration)
                return .answer(ImageLookup(bytes: entry.bytes, source: source, readyIn: entry.readyAt - now))
            } else if let flight = state.flights[key] {
                state.counters.misses += 1
                state.counters.coalescedWaits += 1
                return .join(flight)
            } else {
                state.counters.misses += 1
            }
            let drawn = random.withLock { generator in latency.sample(using: &generator) }
            let flight = Flight(readyAt: now + drawn, latency: drawn)
            if !bypassCache {
                state.flights[key] = flight
            }
            return .fetch(flight)
        }
        switch step {
        case .answer(let lookup):
            return lookup
        case .join(let flight):
            return lookup(try await flight.result().get(), of: flight)
        case .fetch(let flight):
            let result: Result<EncodedImage, ImageFailure>
            do throws(ImageFailure) {
                result = .success(try await encode(key, uploads: uploads))
            } catch {
                result = .failure(error)
            }
            state.withLock { state in
                if state.flights[key] === flight { state.flights[key] = nil }
                switch result {
                case .failure:
                    state.counters.failures += 1
                case .success(let encoded):
                    state.counters.encodes += 1
                    Self.keep(
                        Entry(
                            bytes: encoded.bytes, readyAt: flight.readyAt, latency: flight.latency,
                            encodeDuration: encoded.encodeDuration),
                        for: key, in: &state)
                }
            }
            flight.finish(result)
            return lookup(try result.get(), of: flight)
        }
    }

    /// Makes the bytes of a miss: the encoder draws a generated image; an upload is read from the store first, and
    /// served as stored when asked for as stored (``ImageSpec/isStoredUpload(as:)``), else decoded and re-encoded.
    private nonisolated(nonsending) func encode(_ key: ImageKey, uploads: (any ListStore)?) async throws(ImageFailure)
        -> EncodedImage
    {
        guard let upload = key.spec.upload else {
            return try await encoder.encode(key.spec, as: key.format, from: nil)
        }
        guard let uploads else { throw .uploadUnavailable("this server keeps no uploads") }
        let stored: [UInt8]?
        do throws(StoreFailure) {
            stored = try await uploads.image(of: upload.list, id: key.spec.id, digest: upload.image.digest)
        } catch {
            throw .uploadUnavailable("the store could not read it (\(error.message))")
        }
        guard let stored else { throw .uploadUnavailable("it was replaced or removed while it was read") }
        if key.spec.isStoredUpload(as: key.format) { return EncodedImage(bytes: stored, encodeDuration: .zero) }
        return try await encoder.encode(key.spec, as: key.format, from: stored)
    }

    /// The image for `key` if it is cached and ready, counted as a hit; nil otherwise (nothing counted: the caller
    /// goes on to ``lookUp(_:bypassCache:uploads:)``). Synchronous, so that a server can answer a hit without a task.
    public func readyHit(_ key: ImageKey) -> ImageLookup? {
        let now = stopwatch()
        return state.withLock { state in
            guard let entry = state.entries.peekValue(forKey: key), entry.readyAt <= now else { return nil }
            _ = state.entries.value(forKey: key)  // most recently used
            state.counters.hits += 1
            return ImageLookup(bytes: entry.bytes, source: .hit, readyIn: .zero)
        }
    }

    /// Forgets every cached image (fetches in flight still answer their waiters, and their bytes are kept).
    public func removeAll() {
        state.withLock { state in
            state.entries = LRUTable(capacity: Int.max)
            state.counters.entries = 0
            state.counters.bytes = 0
        }
    }

    /// The counters so far.
    public var statistics: ImageCacheStatistics { state.withLock { $0.counters } }

    /// The lookup for a fetch's bytes.
    private func lookup(_ encoded: EncodedImage, of flight: Flight) -> ImageLookup {
        ImageLookup(
            bytes: encoded.bytes, source: .miss(storeDuration: flight.latency, encodeDuration: encoded.encodeDuration),
            readyIn: max(.zero, flight.readyAt - stopwatch()))
    }

    /// Caches `entry` as the most recently used image, then drops the least recently used ones while the bytes
    /// held pass the capacity; an entry larger than the capacity is not kept.
    private static func keep(_ entry: Entry, for key: ImageKey, in state: inout State) {
        if let replaced = state.entries.removeValue(forKey: key) {
            state.counters.bytes -= replaced.bytes.count
        }
        if entry.bytes.count <= state.counters.capacityBytes {
            state.entries.setValue(entry, forKey: key)
            state.counters.bytes += entry.bytes.count
            while state.counters.bytes > state.counters.capacityBytes,
                let (_, evicted) = state.entries.removeLeastRecentlyUsed()
            {
                state.counters.bytes -= evicted.bytes.count
                state.counters.evictions += 1
            }
        }
        state.counters.entries = state.entries.count
    }
}
