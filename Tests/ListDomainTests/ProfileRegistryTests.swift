import Foundation  // Thread: the two sets race on threads of their own
import Synchronization
import Testing

@testable import ListDomain

/// ``ProfileRegistry``: scripts used up in order, exactly `times` each; outages by a clock the test moves.
@Suite("Profiles: scripts and outages")
struct ProfileRegistryTests {
    /// A clock the test sets.
    final class ManualClock: Sendable {
        let now = Mutex<Duration>(.zero)
        func advance(_ by: Duration) { now.withLock { $0 += by } }
    }

    let clock = ManualClock()
    var registry: ProfileRegistry {
        ProfileRegistry(
            now: { [clock] in clock.now.withLock { $0 } }, wallClock: { 0 }, signer: ProfileNetworkTests.signer)
    }

    func request(_ method: String = "GET", _ route: String = "/items", _ query: [(String, String)] = [])
        -> ProfileRequest
    {
        ProfileRequest(method: method, route: route, query: query.map { .init(name: $0.0, value: $0.1) })
    }

    @Test("no profile: nothing is decided, and the registry says it is empty")
    func empty() {
        let registry = self.registry
        #expect(registry.isEmpty)
        #expect(registry.decide("x", { request() }) == nil)
        registry.set(DatasetProfile(outage: .init(forMs: 100)), for: "x")
        #expect(!registry.isEmpty)
        #expect(registry.decide("y", { request() }) == nil)
        registry.set(nil, for: "x")
        #expect(registry.isEmpty)
        #expect(registry.decide("x", { request() }) == nil)
    }

    @Test(
        "a step's query conditions read the same from the query as sent (nothing escaped) as from its parameters",
        arguments: [
            ("page=2", true), ("limit=5&page=2", true), ("page=2&limit=5", true), ("page=20", false),
            ("xpage=2", false), ("page=", false), ("page", false), ("a=1&&page=2&", true), ("page=3&page=2", true),
            ("", false), ("page=2=", false), ("&page=2", true),
        ])
    func plainQuery(query: String, matches: Bool) {
        let parameters = query.split(separator: "&").map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            return DatasetProfile.Match.Parameter(
                name: String(parts[0]), value: parts.count > 1 ? String(parts[1]) : "")
        }
        let decoded = ProfileRequest(method: "GET", route: "/items", query: parameters)
        let plain = ProfileRequest(method: "GET", route: "/items", query: [], plainQuery: Substring(query))
        let page2 = DatasetProfile.Match(query: [.init(name: "page", value: "2")])
        #expect(page2.matches(decoded) == matches)
        #expect(page2.matches(plain) == matches)
        // A bare name, or one with `=` and nothing after it, is that name with an empty value.
        let empty = DatasetProfile.Match(query: [.init(name: "page", value: "")])
        #expect(empty.matches(plain) == empty.matches(decoded))
    }

    @Test("steps apply in order, each to exactly `times` matching requests; others pass untouched")
    func scriptInOrder() {
        let registry = self.registry
        let page2 = DatasetProfile.Match(method: "GET", route: "/items", query: [.init(name: "page", value: "2")])
        let detail = DatasetProfile.Match(route: "/items/{id}/detail")
        registry.set(
            DatasetProfile(script: [
                .init(match: page2, answer: .init(status: 503, retryAfterSeconds: 2), times: 2),
                .init(match: detail, answer: .init(kind: .reset), times: 1),
            ]), for: "x")
        // The detail step waits for the first step to be used up.
        #expect(registry.decide("x", { request("GET", "/items/{id}/detail") }) == nil)
        #expect(registry.decide("x", { request("GET", "/items", [("page", "1")]) }) == nil)
        #expect(registry.decide("x", { request("POST", "/items", [("page", "2")]) }) == nil)
        let first = registry.decide("x", { request("GET", "/items", [("limit", "5"), ("page", "2")]) })
        #expect(first == .scripted(.init(status: 503, retryAfterSeconds: 2), step: 0, left: 1))
        #expect(registry.entry(of: "x")?.entry.left == [1, 1])
        #expect(registry.decide("x", { request("GET", "/items", [("page", "2")]) })?.step == 0)
        #expect(registry.decide("x", { request("GET", "/items", [("page", "2")]) }) == nil)
        #expect(
            registry.decide("x", { request("GET", "/items/{id}/detail") })
                == .scripted(.init(kind: .reset), step: 1, left: 0))
        #expect(registry.decide("x", { request("GET", "/items/{id}/detail") }) == nil)
        #expect(registry.entry(of: "x")?.entry.left == [0, 0])
    }

    @Test("two sets that race: the observers are told last the profile as it stands")
    func racingSetsTellTheLatestLast() {
        let registry = self.registry
        let (first, second) = (Self.scripted(500), Self.scripted(503))
        let flags = Mutex(RaceFlags())
        // Telling the first set takes until the test says so: the second set is stored meanwhile.
        registry.onSet { _, entry in
            if entry?.profile == first {
                flags.withLock { $0.firstHeld = true }
                _ = Self.until(flags) { $0.released }
            }
            flags.withLock { $0.told = entry }
        }
        let firstThread = Thread { registry.set(first, for: "raced") }
        firstThread.start()
        #expect(Self.until(flags) { $0.firstHeld })
        let secondThread = Thread { registry.set(second, for: "raced") }
        secondThread.start()
        let stored = ContinuousClock.now + .seconds(5)
        while registry.entry(of: "raced")?.entry.profile != second, ContinuousClock.now < stored { sched_yield() }
        // Told side by side, the second set's telling lands now; told in turn, it waits for the first.
        _ = Self.until(flags, within: .milliseconds(200)) { $0.told?.profile == second }
        flags.withLock { $0.released = true }
        #expect(Self.until(flags) { $0.told?.profile == second && !firstThread.isExecuting })
        #expect(Self.until(flags) { _ in !secondThread.isExecuting })
        #expect(flags.withLock { $0.told } == registry.entry(of: "raced")?.entry)
    }

    struct RaceFlags {
        var told: ProfileRegistry.Entry?
        var firstHeld = false
        var released = false
    }

    static func scripted(_ status: Int) -> DatasetProfile {
        DatasetProfile(script: [.init(match: .init(), answer: .init(status: status), times: 1)])
    }

    /// Waits (a bounded spin on the calling thread) until `condition` holds of `flags`; false after `limit`.
    static func until(
        _ flags: borrowing Mutex<RaceFlags>, within limit: Duration = .seconds(5), _ condition: (RaceFlags) -> Bool
    ) -> Bool {
        let deadline = ContinuousClock.now + limit
        while !flags.withLock({ condition($0) }) {
            if ContinuousClock.now > deadline { return false }
            sched_yield()
        }
        return true
    }

    @Test("a profile set again starts its script over")
    func setAgain() {
        let registry = self.registry
        let profile = DatasetProfile(script: [.init(match: .init(), answer: .init(status: 500), times: 1)])
        registry.set(profile, for: "x")
        #expect(registry.decide("x", { request() }) != nil)
        #expect(registry.decide("x", { request() }) == nil)
        registry.set(profile, for: "x")
        #expect(registry.decide("x", { request() }) != nil)
    }

    @Test("an outage lasts for_ms from when it was set, and comes back every every_ms")
    func outages() {
        let registry = self.registry
        clock.advance(.seconds(5))  // set some time after the clock's origin
        registry.set(DatasetProfile(outage: .init(forMs: 300)), for: "once")
        registry.set(DatasetProfile(outage: .init(forMs: 100, everyMs: 1000)), for: "again")
        #expect(registry.decide("once", { request() }) == .outage(remaining: .milliseconds(300)))
        clock.advance(.milliseconds(99))
        #expect(registry.decide("again", { request() }) == .outage(remaining: .milliseconds(1)))
        clock.advance(.milliseconds(1))
        #expect(registry.decide("again", { request() }) == nil)
        clock.advance(.milliseconds(199))
        #expect(registry.decide("once", { request() }) == .outage(remaining: .milliseconds(1)))
        clock.advance(.milliseconds(1))
        #expect(registry.decide("once", { request() }) == nil)
        clock.advance(.milliseconds(700))  // 1,000 ms after it was set: the second outage
        #expect(registry.decide("again", { request() }) == .outage(remaining: .milliseconds(100)))
        #expect(registry.decide("once", { request() }) == nil)
        clock.advance(.seconds(3600))
        #expect(registry.decide("once", { request() }) == nil)
    }

    @Test("during an outage a script step is not used")
    func outageBeforeScript() {
        let registry = self.registry
        registry.set(
            DatasetProfile(
                outage: .init(forMs: 50), script: [.init(match: .init(), answer: .init(status: 500), times: 1)]),
            for: "x")
        #expect(registry.decide("x", { request() }) == .outage(remaining: .milliseconds(50)))
        clock.advance(.milliseconds(50))
        #expect(registry.decide("x", { request() })?.step == 0)
    }

    @Test("the filter of profiled names never hides a profile, however names come and go (600 names, 256 bits)")
    func nameFilter() {
        let registry = self.registry
        let profile = DatasetProfile(outage: .init(forMs: 1000))
        for index in 0..<600 { registry.set(profile, for: "run-\(index)") }
        for index in 0..<600 where index % 3 != 0 { registry.set(nil, for: "run-\(index)") }
        for index in 0..<600 {
            let decided = registry.decide("run-\(index)", { request() })
            #expect((decided != nil) == (index % 3 == 0), "run-\(index)")
        }
        registry.set(profile, for: "run-1")
        #expect(registry.decide("run-1", { request() }) != nil)
    }

    @Test("the uses a server records for idle profiles to expire: when each was last met, each once, to the second")
    func unrecordedUses() {
        let clock = clock
        let registry = ProfileRegistry(
            now: { [clock] in clock.now.withLock { $0 } },
            wallClock: { [clock] in 1_000_000 + Int64(clock.now.withLock { $0 } / .milliseconds(1)) },
            signer: ProfileNetworkTests.signer)
        let profile = DatasetProfile(outage: .init(forMs: 1, everyMs: 86_400_000))
        registry.set(profile, for: "met")
        registry.set(profile, for: "left")
        #expect(registry.unrecordedUses().uses.isEmpty, "set is not met")
        clock.advance(.seconds(3))
        _ = registry.decide("met", { request() })
        _ = registry.verdict("met", loop: 5) { _ in request() }
        var (uses, through) = registry.unrecordedUses()
        #expect(uses == ["met": WallTime(milliseconds: 1_003_000)] && through == .seconds(3))
        // Not recorded (the store failed): offered again.
        #expect(registry.unrecordedUses().uses == uses)
        registry.usesRecorded(through: through)
        // Offered again while within the overlap (a request that read the clock before the record may note its
        // use after it), and no longer after.
        #expect(ProfileRegistry.recordOverlap == .seconds(2))
        clock.advance(.milliseconds(1500))
        #expect(registry.unrecordedUses().uses == ["met": WallTime(milliseconds: 1_003_000)])
        clock.advance(.milliseconds(500))
        (uses, through) = registry.unrecordedUses()
        registry.usesRecorded(through: through)
        #expect(registry.unrecordedUses().uses.isEmpty, "past the overlap")
        _ = registry.decide("met", { request() })
        clock.advance(.milliseconds(500))
        _ = registry.decide("met", { request() })
        #expect(registry.unrecordedUses().uses == ["met": WallTime(milliseconds: 1_005_000)], "noted once a second")
        clock.advance(.seconds(1))
        _ = registry.decide("met", { request() })
        (uses, through) = registry.unrecordedUses()
        #expect(uses == ["met": WallTime(milliseconds: 1_006_500)] && through == .milliseconds(6500))
        registry.set(nil, for: "met")
        #expect(registry.unrecordedUses().uses.isEmpty, "a cleared profile has no uses to record")
    }

    @Test("loops judge on shards of their own, yet a step answers exactly `times` requests and a change reaches all")
    func shards() {
        let registry = self.registry
        let step = DatasetProfile.Step(match: .init(route: "/items"), answer: .init(status: 503), times: 5)
        let second = DatasetProfile.Step(match: .init(route: "/items"), answer: .init(status: 500), times: 1)
        registry.set(DatasetProfile(script: [step, second]), for: "x")
        // Eight loops, each with a copy made before any step was used; their requests in turn.
        var answered: [Int] = []
        for round in 0..<3 {
            for loop in 0..<8 {
                let decision = registry.verdict("x", loop: loop) { _ in self.request() }?.decision
                if case .scripted(let answer, _, _) = decision { answered.append(answer.status ?? 0) }
                _ = round
            }
        }
        #expect(answered == [503, 503, 503, 503, 503, 500])  // each step exactly its times, in order
        #expect(registry.entry(of: "x")?.entry.left == [0, 0])
        // A new profile, set while every loop holds a copy of the old one: each loop's next request meets it.
        registry.set(DatasetProfile(outage: .init(forMs: 60_000)), for: "x")
        for loop in 0..<8 {
            guard case .outage = registry.verdict("x", loop: loop, { _ in self.request() })?.decision else {
                Issue.record("loop \(loop) still judged by the old profile")
                continue
            }
        }
        registry.set(nil, for: "x")
        // Cleared: no loop keeps a copy, even one that never meets the dataset again.
        #expect(registry.shards.allSatisfy { shard in shard.state.withLock { $0.entries["x"] == nil } })
        #expect((0..<8).allSatisfy { registry.verdict("x", loop: $0) { _ in self.request() } == nil })
        #expect(registry.statistics.scripted == 6 && registry.statistics.outages == 8)
    }

    @Test("at most `capacity` datasets have a profile; replacing one still works when full")
    func capacity() {
        let registry = self.registry
        let profile = DatasetProfile(outage: .init(forMs: 1))
        for index in 0..<ProfileRegistry.capacity { #expect(registry.set(profile, for: "d\(index)")) }
        #expect(!registry.set(profile, for: "one-more"))
        #expect(registry.entry(of: "one-more") == nil)
        #expect(registry.set(DatasetProfile(), for: "d0"))
        registry.set(nil, for: "d1")
        #expect(registry.set(profile, for: "one-more"))
    }
}

extension ProfileRegistry.Decision {
    fileprivate var step: Int? {
        if case .scripted(_, let step, _) = self { step } else { nil }
    }
}

extension ProfileRegistry {
    /// The decision alone, as the script and outage tests look at it.
    fileprivate func decide(_ dataset: String, _ request: () -> ProfileRequest) -> Decision? {
        verdict(dataset) { _ in request() }?.decision
    }
}
