import Synchronization
import Testing

@testable import ListDomain

/// An encoder that counts its calls and, when gated, holds every encode until `release()`.
private final class CountingEncoder: ImageEncoding {
    private struct State {
        var calls = 0
        var held: [CheckedContinuation<Void, Never>] = []
        var gated = false
        var failure: ImageFailure?
    }

    private let state = Mutex(State())

    var calls: Int { state.withLock { $0.calls } }
    var waiting: Int { state.withLock { $0.held.count } }

    init(gated: Bool = false, failure: ImageFailure? = nil) {
        state.withLock {
            $0.gated = gated
            $0.failure = failure
        }
    }

    func release() {
        let held = state.withLock { state in
            defer { state.held = [] }
            state.gated = false
            return state.held
        }
        for continuation in held { continuation.resume() }
    }

    /// Uploads are not this cache's business: the cache only ever encodes.
    nonisolated(nonsending) func inspectUpload(_ bytes: [UInt8], as format: ImageFormat) async throws(UploadRejection)
        -> ImageUpload
    {
        throw .busy
    }

    nonisolated(nonsending) func encode(_ spec: ImageSpec, as format: ImageFormat, from source: [UInt8]?)
        async throws(ImageFailure) -> EncodedImage
    {
        await withCheckedContinuation { continuation in
            let gated = state.withLock { state in
                state.calls += 1
                if state.gated { state.held.append(continuation) }
                return state.gated
            }
            if !gated { continuation.resume() }
        }
        if let failure = state.withLock({ $0.failure }) { throw failure }
        // Bytes that say which image they are: its id, its width, the format, padded to `width` bytes.
        var bytes = [UInt8(truncatingIfNeeded: spec.id), UInt8(truncatingIfNeeded: spec.width), format == .png ? 1 : 0]
        bytes += [UInt8](repeating: 0, count: max(0, spec.width - 3))
        return EncodedImage(bytes: bytes, encodeDuration: .milliseconds(3))
    }
}

private func key(_ id: UInt64, width: Int = 100, format: ImageFormat = .jpeg) -> ImageKey {
    ImageKey(spec: ImageSpec(id: id, width: width, height: 10, color: 0x123456), format: format)
}

/// Polls until `condition` holds (other tasks must get to run first); fails the test after a few seconds.
private func eventually(_ condition: () async -> Bool) async {
    for _ in 0..<2_000 {
        if await condition() { return }
        try? await Task.sleep(for: .milliseconds(1))
    }
    Issue.record("the condition never held")
}

@Suite("ImageCache")
struct ImageCacheTests {
    @Test func aMissWaitsOutTheLatencyThenLaterLookupsHit() async throws {
        let clock = TestClock()
        let encoder = CountingEncoder()
        let cache = ImageCache(encoder: encoder, latency: .fixed(.seconds(1)), capacityBytes: 10_000, clock: clock)
        let miss = try await cache.lookUp(key(7))
        #expect(miss.source == .miss(storeDuration: .seconds(1), encodeDuration: .milliseconds(3)))
        #expect(miss.readyIn == .seconds(1))
        #expect(miss.bytes.prefix(2) == [7, 100])
        // Before the latency has passed the bytes are there, but not ready: a lookup waits out the rest.
        clock.advance(by: .milliseconds(400))
        let early = try await cache.lookUp(key(7))
        #expect(early.readyIn == .milliseconds(600))
        #expect(early.source != .hit)
        clock.advance(by: .milliseconds(600))
        let hit = try await cache.lookUp(key(7))
        #expect(hit.source == .hit && hit.readyIn == .zero && hit.bytes == miss.bytes)
        #expect(encoder.calls == 1)
        let statistics = cache.statistics
        #expect(statistics.hits == 1 && statistics.misses == 2 && statistics.encodes == 1)
        #expect(statistics.entries == 1 && statistics.bytes == 100)
    }

    @Test func concurrentMissesForOneImageShareOneEncode() async throws {
        let encoder = CountingEncoder(gated: true)
        let cache = ImageCache(encoder: encoder, latency: .none, capacityBytes: 10_000, clock: TestClock())
        let lookups = (0..<8).map { _ in Task { try await cache.lookUp(key(3)) } }
        await eventually { encoder.waiting == 1 }
        await eventually { cache.statistics.coalescedWaits == 7 }
        encoder.release()
        var results: [[UInt8]] = []
        for lookup in lookups { results.append(try await lookup.value.bytes) }
        #expect(Set(results).count == 1)
        #expect(encoder.calls == 1)
        // Another format or size is another image.
        _ = try await cache.lookUp(key(3, format: .png))
        _ = try await cache.lookUp(key(3, width: 50))
        #expect(encoder.calls == 3)
    }

    @Test func bypassingEncodesAfreshAndReplacesTheCachedBytes() async throws {
        let encoder = CountingEncoder()
        let cache = ImageCache(encoder: encoder, latency: .none, capacityBytes: 10_000, clock: TestClock())
        _ = try await cache.lookUp(key(1))
        #expect(try await cache.lookUp(key(1)).source == .hit)
        let fresh = try await cache.lookUp(key(1), bypassCache: true)
        #expect(fresh.source != .hit)
        #expect(encoder.calls == 2)
        #expect(try await cache.lookUp(key(1)).source == .hit)
        let statistics = cache.statistics
        #expect(statistics.bypasses == 1 && statistics.entries == 1 && statistics.bytes == 100)
    }

    @Test func theLeastRecentlyUsedImagesGoWhenTheBytesPassTheCapacity() async throws {
        let encoder = CountingEncoder()
        let cache = ImageCache(encoder: encoder, latency: .none, capacityBytes: 250, clock: TestClock())
        _ = try await cache.lookUp(key(1))  // 100 bytes
        _ = try await cache.lookUp(key(2))  // 200
        _ = try await cache.lookUp(key(1))  // a hit: 1 is now the most recently used
        _ = try await cache.lookUp(key(3))  // 300 > 250: 2 goes
        var statistics = cache.statistics
        #expect(statistics.evictions == 1 && statistics.bytes == 200 && statistics.entries == 2)
        #expect(try await cache.lookUp(key(1)).source == .hit)
        #expect(try await cache.lookUp(key(2)).source != .hit)
        // An image larger than the whole cache is served, not kept.
        let large = try await cache.lookUp(key(9, width: 300))
        #expect(large.bytes.count == 300)
        statistics = cache.statistics
        #expect(statistics.bytes <= 250)
        #expect(try await cache.lookUp(key(9, width: 300)).source != .hit)
    }

    @Test func aFailedEncodeFailsEveryLookupThatJoinedItAndIsNotCached() async throws {
        let encoder = CountingEncoder(gated: true, failure: .busy)
        let cache = ImageCache(encoder: encoder, latency: .none, capacityBytes: 10_000, clock: TestClock())
        let lookups = (0..<3).map { _ in
            Task { () async throws(ImageFailure) -> ImageLookup in try await cache.lookUp(key(5)) }
        }
        await eventually { encoder.waiting == 1 }
        await eventually { cache.statistics.coalescedWaits == 2 }
        encoder.release()
        for lookup in lookups {
            await #expect(throws: ImageFailure.busy) { try await lookup.value }
        }
        let statistics = cache.statistics
        #expect(statistics.failures == 1 && statistics.entries == 0)
    }
}

@Suite("ImageCache: answering hits at once")
struct ImageCacheReadyHitTests {
    @Test func onlyAReadyCachedImageIsAHitAndItCountsAsOne() async throws {
        let clock = TestClock()
        let cache = ImageCache(
            encoder: CountingEncoder(), latency: .fixed(.seconds(1)), capacityBytes: 10_000, clock: clock)
        #expect(cache.readyHit(key(4)) == nil)
        _ = try await cache.lookUp(key(4))
        #expect(cache.readyHit(key(4)) == nil, "encoded, but the store latency has not passed")
        clock.advance(by: .seconds(1))
        let hit = try #require(cache.readyHit(key(4)))
        #expect(hit.source == .hit && hit.readyIn == .zero && hit.bytes.prefix(2) == [4, 100])
        #expect(cache.statistics.hits == 1 && cache.statistics.misses == 1)
    }
}
