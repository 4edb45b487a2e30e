/// Looks again and again until what it sees is what a test waits for, and fails loudly when time runs out.
///
/// Every polling wait in these tests goes through here, so none can give up silently and let a test go on as if
/// the wait had succeeded.
///
/// - Parameters:
///   - condition: What is waited for, in words, for the failure message: "the store to start 6 fetches".
///   - timeout: The longest wait. The default, 10 s, is generous on purpose: the machines that run these tests are
///     shared and can be slow, and a wait that succeeds returns as soon as it can.
///   - interval: The pause between looks.
///   - describe: How an observation reads in the failure message; its description by default.
///   - observe: Takes one look.
///   - isDone: Whether an observation is what is waited for.
/// - Returns: The first observation that `isDone` accepts.
/// - Throws: ``TestFailure`` naming `condition`, the time waited and the last observation when time runs out;
///   whatever `observe` throws.
@discardableResult
func waitUntil<Observation>(
    _ condition: String,
    timeout: Duration = .seconds(10),
    every interval: Duration = .milliseconds(10),
    describe: (Observation) -> String = { String(describing: $0) },
    observe: () async throws -> Observation,
    isDone: (Observation) -> Bool
) async throws -> Observation {
    let clock = ContinuousClock()
    let start = clock.now
    while true {
        let observation = try await observe()
        if isDone(observation) {
            return observation
        }
        let waited = start.duration(to: clock.now)
        guard waited < timeout else {
            throw TestFailure(
                "gave up after \(waited) waiting for \(condition); last seen: \(describe(observation))")
        }
        try await Task.sleep(for: interval)
    }
}
