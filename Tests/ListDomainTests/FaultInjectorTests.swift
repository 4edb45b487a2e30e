import ListDomain
import Testing

/// `count` decisions of `injector` at `rate` over `mix`.
private func draws(_ injector: FaultInjector, _ count: Int, rate: Double, mix: FaultMix = .all) -> [FaultKind?] {
    (0..<count).map { _ in injector.draw(rate: rate, mix: mix) }
}

@Suite("FaultInjector")
struct FaultInjectorTests {
    @Test func faultsAtTheConfiguredRate() {
        let faults = draws(FaultInjector(seed: 1), 10_000, rate: 0.3).compactMap { $0 }.count
        #expect((2_800...3_200).contains(faults))
    }

    @Test func rateZeroNeverFaultsAndDoesNotAdvanceTheSequence() {
        let injector = FaultInjector(seed: 2)
        #expect(draws(injector, 1_000, rate: 0).allSatisfy { $0 == nil })
        #expect(draws(injector, 10, rate: -1).allSatisfy { $0 == nil })
        #expect(draws(injector, 10, rate: .nan).allSatisfy { $0 == nil })
        #expect(draws(injector, 200, rate: 0.5) == draws(FaultInjector(seed: 2), 200, rate: 0.5))
    }

    @Test func rateOneAlwaysFaults() {
        #expect(draws(FaultInjector(seed: 3), 1_000, rate: 1).allSatisfy { $0 != nil })
        #expect(draws(FaultInjector(seed: 3), 1_000, rate: 7).allSatisfy { $0 != nil })
    }

    @Test func kindsFollowTheMixWeights() throws {
        let mix = try FaultMix(parsing: "503:3,500")
        let kinds = draws(FaultInjector(seed: 4), 10_000, rate: 1, mix: mix)
        let unavailable = kinds.filter { $0 == .unavailable }.count
        #expect((7_200...7_800).contains(unavailable))
        #expect(kinds.allSatisfy { $0 == .unavailable || $0 == .internalError })

        let single = draws(FaultInjector(seed: 4), 100, rate: 1, mix: try FaultMix(parsing: "reset"))
        #expect(single.allSatisfy { $0 == .reset })
        let every = Set(draws(FaultInjector(seed: 4), 1_000, rate: 1).compactMap { $0 })
        #expect(every == Set(FaultKind.allCases))
    }

    @Test func theKindDoesNotDependOnWhetherItFaults() throws {
        // Two independent hashes: the kinds of the faults that happen are spread as the mix says.
        let mix = try FaultMix(parsing: "500,503")
        let kinds = draws(FaultInjector(seed: 5), 10_000, rate: 0.2, mix: mix).compactMap { $0 }
        let errors = kinds.filter { $0 == .internalError }.count
        #expect(abs(Double(errors) / Double(kinds.count) - 0.5) < 0.05)
    }

    @Test func theSameSeedReplaysTheSameDecisions() {
        let first = draws(FaultInjector(seed: 6), 1_000, rate: 0.4)
        #expect(first == draws(FaultInjector(seed: 6), 1_000, rate: 0.4))
        #expect(first != draws(FaultInjector(seed: 7), 1_000, rate: 0.4))
    }

    @Test func attemptsAreCountedPerClientAndResource() {
        let injector = FaultInjector(seed: 8)
        #expect(injector.attempt(client: "a", resource: "/items/1") == 1)
        #expect(injector.attempt(client: "a", resource: "/items/1") == 2)
        #expect(injector.attempt(client: "b", resource: "/items/1") == 1)
        #expect(injector.attempt(client: "a", resource: "/items/2") == 1)
        #expect(injector.attempt(client: "a", resource: "/items/1") == 3)
    }

    @Test func theLeastRecentlySeenPairIsForgottenWhenFull() {
        let injector = FaultInjector(seed: 8, failFirstCapacity: 2)
        _ = injector.attempt(client: "a", resource: "x")
        _ = injector.attempt(client: "b", resource: "x")
        _ = injector.attempt(client: "a", resource: "x")
        _ = injector.attempt(client: "c", resource: "x")  // forgets b
        #expect(injector.attempt(client: "a", resource: "x") == 3)
        #expect(injector.attempt(client: "b", resource: "x") == 1)
    }

    @Test func resetRestartsTheSequenceAndTheCounts() {
        let injector = FaultInjector(seed: 9)
        let first = draws(injector, 100, rate: 0.5)
        _ = injector.attempt(client: "a", resource: "x")
        _ = injector.attempt(client: "a", resource: "y")
        #expect(injector.reset() == 2)
        #expect(injector.attempt(client: "a", resource: "x") == 1)
        #expect(draws(injector, 100, rate: 0.5) == first)
        #expect(injector.reset(seed: 10) == 1)
        #expect(draws(injector, 100, rate: 0.5) == draws(FaultInjector(seed: 10), 100, rate: 0.5))
    }
}
