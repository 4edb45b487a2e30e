/// A plain timing harness: runs a body in rounds of many iterations and reports nanoseconds per iteration.
///
/// Each benchmark runs one warm-up round, then `rounds` timed rounds on `ContinuousClock`; the report is the
/// median round (robust against a noisy shared machine) and the fastest one (the least disturbed). The bodies
/// return a value that is folded into ``sink`` so the optimiser cannot drop the work.
struct Harness {
    /// One benchmark's result.
    struct Result {
        let name: String
        let iterations: Int
        let medianNanoseconds: Double
        let minimumNanoseconds: Double
    }

    /// Timed rounds per benchmark (after one warm-up round).
    let rounds: Int
    /// A multiplier on every benchmark's iteration count (`--quick` lowers it).
    let scale: Double
    /// Only benchmarks whose name contains this run (`--only TEXT`); nil runs all. With `--rounds 0` and a small
    /// `--scale`, one benchmark runs just its warm-up round: what `valgrind --tool=callgrind` needs to count it.
    let only: String?
    /// The results so far, in the order run.
    private(set) var results: [Result] = []
    /// Where benchmark bodies fold their results; printed at the end so it is observably used.
    private(set) var sink: UInt64 = 0

    init(rounds: Int, scale: Double, only: String? = nil) {
        self.rounds = rounds
        self.scale = scale
        self.only = only
    }

    /// Whether the benchmark called `name` is to run.
    func selects(_ name: String) -> Bool {
        only.map { name.contains($0) } ?? true
    }

    /// Times `body`, which performs `iterations` operations per call and returns a checksum.
    mutating func measure(_ name: String, iterations: Int, _ body: (Int) throws -> UInt64) rethrows {
        guard selects(name) else { return }
        let count = max(1, Int(Double(iterations) * scale))
        sink &+= try body(count)  // warm-up
        var perOperation: [Double] = []
        let clock = ContinuousClock()
        for _ in 0..<rounds {
            let start = clock.now
            sink &+= try body(count)
            perOperation.append(Self.nanoseconds(start.duration(to: clock.now)) / Double(count))
        }
        record(name, count, perOperation)
    }

    /// Times `body`, an async loop of `iterations` operations per call, from the calling task.
    mutating func measure(_ name: String, iterations: Int, _ body: (Int) async throws -> UInt64) async rethrows {
        guard selects(name) else { return }
        let count = max(1, Int(Double(iterations) * scale))
        sink &+= try await body(count)  // warm-up
        var perOperation: [Double] = []
        let clock = ContinuousClock()
        for _ in 0..<rounds {
            let start = clock.now
            sink &+= try await body(count)
            perOperation.append(Self.nanoseconds(start.duration(to: clock.now)) / Double(count))
        }
        record(name, count, perOperation)
    }

    private mutating func record(_ name: String, _ iterations: Int, _ perOperation: [Double]) {
        let sorted = perOperation.sorted()
        guard !sorted.isEmpty else { return }  // --rounds 0: the warm-up round only, nothing to report
        let result = Result(
            name: name, iterations: iterations, medianNanoseconds: sorted[sorted.count / 2],
            minimumNanoseconds: sorted[0])
        results.append(result)
        print(Self.row(result))
    }

    /// The markdown table header matching ``row(_:)``.
    static let header = "| benchmark | iterations/round | median ns/op | min ns/op |\n|---|---:|---:|---:|"

    /// One result as a markdown table row.
    static func row(_ result: Result) -> String {
        "| \(result.name) | \(result.iterations) | \(format(result.medianNanoseconds)) | "
            + "\(format(result.minimumNanoseconds)) |"
    }

    /// A duration in nanoseconds as a `Double`.
    static func nanoseconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) * 1e9 + Double(attoseconds) / 1e9
    }

    /// `value` with one decimal below 100 and none above (no Foundation formatting needed).
    static func format(_ value: Double) -> String {
        if value >= 100 {
            return String(Int(value.rounded()))
        }
        return String(Double(Int((value * 10).rounded())) / 10)
    }
}
