import Synchronization
import Testing

@testable import ListDomain

/// ``ProfileRegistry``'s network half: rate limits per client, tokens, latency draws and bandwidth, by a clock the
/// test moves.
@Suite("Profiles: rate limits, tokens, latency and bandwidth")
struct ProfileNetworkTests {
    final class ManualClock: Sendable {
        let now = Mutex<Duration>(.seconds(100))
        func advance(_ by: Duration) { now.withLock { $0 += by } }
    }

    let clock = ManualClock()
    let registry: ProfileRegistry

    init() {
        registry = ProfileRegistry(
            now: { [clock] in clock.now.withLock { $0 } }, wallClock: { [clock] in Self.wall(clock) },
            signer: Self.signer)
    }

    /// The wall clock the test moves with the monotonic one: milliseconds since 1970, from late 2023.
    static func wall(_ clock: ManualClock) -> Int64 {
        1_700_000_000_000 + clock.now.withLock { $0 }.milliseconds
    }

    /// A signer for tests: keyed FNV-1a over the name and the expiry (the server's is XXH3, in its Digest room).
    static let signer: ProfileRegistry.TokenSigner = { key, dataset, expiry in
        var hash = UInt64(truncatingIfNeeded: key) ^ UInt64(truncatingIfNeeded: key >> 64) ^ 0xcbf2_9ce4_8422_2325
        for byte in Array(dataset.utf8) + withUnsafeBytes(of: expiry, Array.init) {
            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
        }
        return UInt128(hash) << 64 | UInt128(hash &* 0x9E37_79B9_7F4A_7C15)
    }

    func verdict(
        _ dataset: String = "x", client: String = "a", token: UInt128? = nil, kind: ProfileRequest.Kind = .list
    ) -> ProfileRegistry.Verdict? {
        registry.verdict(dataset) { _ in
            ProfileRequest(method: "GET", route: "/items", query: [], kind: kind, client: client, token: token)
        }
    }

    @Test("a rate limit lets `burst` through at once, then one per 1/rate, per client, with its standing")
    func rateLimit() throws {
        registry.set(DatasetProfile(rateLimit: .init(requests: 3, perSeconds: 10)), for: "x")
        for remaining in [2, 1, 0] {
            let allowed = try #require(verdict())
            #expect(allowed.decision == nil)
            #expect(allowed.rateLimit?.remaining == remaining)
            #expect(allowed.rateLimit?.quota == 3 && allowed.rateLimit?.windowSeconds == 10)
        }
        let refused = try #require(verdict())
        guard case .rateLimited(let retryAfter) = refused.decision else {
            Issue.record("expected a 429, got \(String(describing: refused.decision))")
            return
        }
        // 0.3 a second: the next one in 3.33 s; a full bucket in 10 s.
        #expect(retryAfter > .milliseconds(3300) && retryAfter <= .milliseconds(3334))
        #expect(refused.rateLimit?.remaining == 0 && refused.rateLimit?.resetSeconds == 10)
        #expect(verdict(client: "b")?.decision == nil)  // another client has its own bucket
        clock.advance(.milliseconds(3300))
        #expect(verdict()?.decision != nil)  // not yet (and this attempt counts nothing: the bucket was empty)
        clock.advance(.milliseconds(40))
        #expect(verdict()?.decision == nil)
        #expect(registry.statistics.rateLimited == 2)
    }

    @Test("a burst above the rate: `burst` at once, refilled at requests/per_s")
    func burst() {
        registry.set(DatasetProfile(rateLimit: .init(requests: 1, perSeconds: 1, burst: 5)), for: "x")
        for _ in 0..<5 { #expect(verdict()?.decision == nil) }
        #expect(verdict()?.decision != nil)
        clock.advance(.seconds(1))
        #expect(verdict()?.decision == nil)
        #expect(verdict()?.decision != nil)
    }

    @Test("past the bound, new names share one bucket until some bucket is full again: renaming escapes nothing")
    func clientBound() {
        registry.set(DatasetProfile(rateLimit: .init(requests: 2, perSeconds: 60)), for: "x")
        #expect(verdict(client: "hammer")?.decision == nil)
        #expect(verdict(client: "hammer")?.decision == nil)
        #expect(verdict(client: "hammer")?.decision != nil)
        for index in 1..<ProfileRegistry.maximumClients {
            #expect(verdict(client: "c\(index)")?.decision == nil)
        }
        // The table is full and no bucket is full again: new names share one bucket of 2.
        let rotated = (0..<10).map { verdict(client: "new-\($0)")?.decision == nil }
        #expect(rotated == [true, true] + Array(repeating: false, count: 8))
        #expect(verdict(client: "hammer")?.decision != nil)
        // A minute on, every bucket is full again: a new name takes one of their places.
        clock.advance(.seconds(60))
        #expect(verdict(client: "late")?.decision == nil)
        #expect(verdict(client: "late")?.decision == nil)
        #expect(verdict(client: "late")?.decision != nil)  // its own bucket, not the shared one
        let bytes = registry.entry(of: "x").map { $0.entry.bytes("x") } ?? 0
        #expect(bytes < 200 * ProfileRegistry.maximumClients)
    }

    @Test("a client's rate limit is one across loops: its requests on any loop draw on the same bucket")
    func rateLimitAcrossLoops() throws {
        registry.set(DatasetProfile(rateLimit: .init(requests: 4, perSeconds: 60)), for: "x")
        let request = ProfileRequest(method: "GET", route: "/items", query: [], client: "a")
        let decisions = (0..<6).map { loop in registry.verdict("x", loop: loop) { _ in request }?.decision }
        #expect(decisions.prefix(4).allSatisfy { $0 == nil })
        #expect(decisions.suffix(2).allSatisfy { if case .rateLimited = $0 { true } else { false } })
        clock.advance(.seconds(15))  // one request's worth refilled, whichever loop asks
        #expect(registry.verdict("x", loop: 7) { _ in request }?.decision == nil)
        #expect(registry.verdict("x", loop: 3) { _ in request }?.decision != nil)
    }

    @Test("the longest limits a profile may set count without overflow: a burst of a million at one a day is cut")
    func extremeLimit() {
        registry.set(DatasetProfile(rateLimit: .init(requests: 1, perSeconds: 86_400, burst: 1_000_000)), for: "x")
        #expect(verdict()?.decision == nil)
        // Counted up to ~31 years ahead (10^18 ns): a burst of 11,575 at one a day, and the fields say so.
        #expect(verdict()?.rateLimit?.remaining == 11_573)
        registry.set(DatasetProfile(rateLimit: .init(requests: 1, perSeconds: 86_400, burst: 1)), for: "y")
        #expect(verdict("y")?.decision == nil)
        guard case .rateLimited(let retryAfter) = verdict("y")?.decision else {
            Issue.record("the second request within a day should be refused")
            return
        }
        #expect(retryAfter > .seconds(86_000) && retryAfter <= .seconds(86_400))
    }

    @Test("a new rate limit starts every bucket full; the same one set again keeps them; client keys are cut")
    func newLimitResetsBuckets() throws {
        registry.set(DatasetProfile(rateLimit: .init(requests: 1, perSeconds: 3600)), for: "x")
        #expect(verdict()?.decision == nil)
        #expect(verdict()?.decision != nil)
        registry.set(
            DatasetProfile(outage: .init(forMs: 1, everyMs: 1000), rateLimit: .init(requests: 1, perSeconds: 3600)),
            for: "x")
        clock.advance(.milliseconds(5))
        #expect(verdict()?.decision != nil)  // same limit: the empty bucket stays empty
        registry.set(DatasetProfile(rateLimit: .init(requests: 100, perSeconds: 1)), for: "x")
        #expect(verdict()?.decision == nil)  // looser limit: the client starts with a full bucket
        // A client's name is cut to 128 bytes, in the loop's cells as in the registry's.
        let long = String(repeating: "c", count: 10_000)
        #expect(verdict(client: long + "1")?.decision == nil)
        #expect(verdict(client: long + "2")?.rateLimit?.remaining == 98)  // the same bucket as the first
        let keys = registry.shards[0].state.withLock { $0.entries["x"]?.cells.keys.map(\.utf8.count) ?? [] }
        #expect(!keys.isEmpty && keys.allSatisfy { $0 <= ProfileRegistry.maximumClientKeyBytes })
    }

    @Test("a dataset with auth refuses a missing, unknown or expired token, and takes one it issued")
    func tokens() throws {
        #expect(registry.issue(for: "x") == nil)  // no profile: no key to sign with
        registry.set(DatasetProfile(auth: .init(tokenTTLSeconds: 30)), for: "x", tokenKey: 7)
        #expect(verdict()?.decision == .unauthorized(.missing))
        #expect(TokenRefusal.missing.description.contains("carries none") && !TokenRefusal.missing.carried)
        #expect(verdict(token: 0xDEAD)?.decision == .unauthorized(.unknown))
        let issued = try #require(registry.issue(for: "x"))
        #expect(issued.expiresIn == 30)
        #expect(verdict(token: issued.token)?.decision == nil)
        // The expiry is in the token, signed: one moved later is not the dataset's.
        #expect(verdict(token: issued.token + (1 << 80))?.decision == .unauthorized(.unknown))
        clock.advance(.seconds(29))
        #expect(verdict(token: issued.token)?.decision == nil)
        clock.advance(.seconds(1))
        #expect(verdict(token: issued.token)?.decision == .unauthorized(.expired))
        #expect(registry.statistics.unauthorized == 4)
    }

    @Test("a token is the dataset's: another dataset with the same key refuses it, another server with it takes it")
    func tokensAcrossDatasetsAndServers() throws {
        registry.set(DatasetProfile(auth: .init(tokenTTLSeconds: 60)), for: "x", tokenKey: 7)
        registry.set(DatasetProfile(auth: .init(tokenTTLSeconds: 60)), for: "y", tokenKey: 7)
        let token = try #require(registry.issue(for: "x")).token
        #expect(verdict("y", token: token)?.decision == .unauthorized(.unknown))
        // A second server, told of the same stored profile: nothing about the token was shared but the key.
        let other = ProfileRegistry(
            now: { .zero }, wallClock: { [clock] in Self.wall(clock) }, signer: Self.signer)
        other.set(DatasetProfile(auth: .init(tokenTTLSeconds: 60)), for: "x", tokenKey: 7)
        let request = ProfileRequest(method: "GET", route: "/items", query: [], token: token)
        #expect(other.verdict("x") { _ in request }?.decision == nil)
        other.set(DatasetProfile(auth: .init(tokenTTLSeconds: 60)), for: "x", tokenKey: 8)
        #expect(other.verdict("x") { _ in request }?.decision == .unauthorized(.unknown))
    }

    @Test("tokens survive a new profile with the same key, and a new key (a revoke) refuses them all")
    func revoke() throws {
        registry.set(DatasetProfile(auth: .init(tokenTTLSeconds: 60)), for: "x", tokenKey: 7)
        let first = try #require(registry.issue(for: "x")).token
        let second = try #require(registry.issue(for: "x")).token
        registry.set(
            DatasetProfile(outage: .init(forMs: 1, everyMs: 1000), auth: .init(tokenTTLSeconds: 60)), for: "x",
            tokenKey: 7)
        clock.advance(.milliseconds(5))
        #expect(verdict(token: second)?.decision == nil)
        #expect(registry.setTokenKey(9, for: "x"))
        #expect(verdict(token: first)?.decision == .unauthorized(.unknown))
        #expect(verdict(token: second)?.decision == .unauthorized(.unknown))
        #expect(registry.entry(of: "x")?.entry.tokenKey == 9)
        #expect(!registry.setTokenKey(9, for: "none"))
    }

    @Test("an outage comes before the rate limit, the rate limit before the token, the token before the script")
    func order() {
        let step = DatasetProfile.Step(match: .init(), answer: .init(status: 500), times: 1)
        registry.set(
            DatasetProfile(
                outage: .init(forMs: 100), script: [step], rateLimit: .init(requests: 1, perSeconds: 60),
                auth: .init(tokenTTLSeconds: 60)), for: "x")
        #expect(verdict()?.decision == .outage(remaining: .milliseconds(100)))
        clock.advance(.milliseconds(100))
        guard case .unauthorized = verdict()?.decision else {
            Issue.record("the first request after the outage has no token")
            return
        }
        guard case .rateLimited = verdict()?.decision else {
            Issue.record("the second is over the limit")
            return
        }
        // Neither used the step.
        #expect(registry.entry(of: "x")?.entry.left == [1])
    }

    @Test("latency is drawn by the kind of route, reproducibly from the profile's seed; bandwidth skips streams")
    func latencyAndBandwidth() {
        let profile = DatasetProfile(
            faults: .init(rate: 0, seed: 7),
            latency: .init(
                list: .fixed(.milliseconds(300)), image: .uniform(min: .milliseconds(10), max: .milliseconds(90))),
            bandwidth: .init(kbps: 64, firstByteMs: 5))
        registry.set(profile, for: "x")
        #expect(verdict()?.latency == .milliseconds(300))
        #expect(verdict(kind: .detail)?.latency == .zero)
        let draws = (0..<20).map { _ in verdict(kind: .image)?.latency ?? .zero }
        #expect(draws.allSatisfy { $0 >= .milliseconds(10) && $0 <= .milliseconds(90) })
        #expect(Set(draws).count > 10)
        registry.set(profile, for: "x")  // set again: the same seed, the same draws
        _ = verdict()
        _ = verdict(kind: .detail)
        #expect((0..<20).map { _ in verdict(kind: .image)?.latency ?? .zero } == draws)
        #expect(verdict()?.bandwidth == .init(kbps: 64, firstByteMs: 5))
        #expect(verdict(kind: .stream)?.bandwidth == nil)
        #expect(DatasetProfile.Bandwidth(kbps: 64).bytesPerSecond == 8000)
    }
}
