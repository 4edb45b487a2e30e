import ListDomain
import Testing

@testable import ListServer
@testable import ListServerFuzz

/// Property tests on seeded random input: the scanner never traps, its result does not depend on how the bytes are
/// split, and whatever it answers keeps its promises (bounded memory, exact head ends, valid error responses).
@Suite("Request head scanner: random input")
struct RequestHeadFuzzTests {
    /// Small limits, so random input reaches them.
    static let limits = HeadScanProperties.smallLimits

    /// Fragments that random heads are built from: valid pieces, near misses and troublemakers.
    static let fragments: [[UInt8]] =
        [
            "GET", "HEAD", "POST", "CONNECT", "get", "FOO", " ", "  ", "\t", "/", "/items?page=1", "http://h/", "*",
            "HTTP/1.1", "HTTP/1.0", "HTTP/2.0", "HTTP/1.x", "\r\n", "\n", "\r", "\r\n\r\n", "Host", "host", ": ", ":",
            "x", "Content-Length", "content-length", "Transfer-Encoding", "chunked", "gzip", "5", "00", "99999999999",
            "+", ",", "X-A", "value", "\u{7F}", "\u{0}", "\u{1}", "é",
        ].map { Array($0.utf8) } + [[0x80], [0xFF], [0x0B]]

    /// A few valid heads to mutate.
    static let seeds: [[UInt8]] = [
        "GET /items?page=2&limit=20 HTTP/1.1\r\nHost: localhost:8080\r\nAccept: */*\r\n\r\n",
        "POST /items HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello",
        "\r\nHEAD / HTTP/1.0\nUser-Agent: t\n\n",
    ].map { Array($0.utf8) }

    /// Checks everything the scanner promises for `bytes` (``HeadScanProperties``, which the fuzzer checks too),
    /// offered in random chunks and, one time in eight, byte by byte.
    static func check(_ bytes: [UInt8], random: inout SplitMix64) {
        var chunks = SplitMix64(seed: UInt64(bytes.count))
        let broken = HeadScanProperties.brokenPromises(of: bytes, limits: limits) { _ in Int(chunks.next() % 17) }
        #expect(broken.isEmpty, "\(bytes): \(broken)")
        if random.next() % 8 == 0 {
            let byteByByte = HeadScanProperties.brokenPromises(of: bytes, limits: limits) { _ in 1 }
            #expect(byteByByte.isEmpty, "\(bytes): \(byteByByte)")
        }
    }

    @Test("uniformly random bytes never trap and agree however they are split")
    func randomBytes() {
        var random = SplitMix64(seed: 20_240_604)
        for _ in 0..<1500 {
            let count = Int(random.next() % 400)
            let bytes = (0..<count).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            Self.check(bytes, random: &random)
        }
    }

    /// One of `choices`, mostly the first: the usual case first, then the troublemakers.
    static func pick(_ choices: [String], _ random: inout SplitMix64) -> [UInt8] {
        let index = random.next() % 3 == 0 ? Int(random.next() % UInt64(choices.count)) : 0
        return Array(choices[index].utf8)
    }

    /// One of `usual` (equally likely), or one of `odd` one time in ten.
    static func any(_ usual: [String], odd: [String], _ random: inout SplitMix64) -> [UInt8] {
        let choices = random.next() % 10 == 0 ? odd : usual
        return Array(choices[Int(random.next() % UInt64(choices.count))].utf8)
    }

    /// A head built from the grammar with random choices, near misses among them, sometimes with a random fragment
    /// spliced in.
    static func grammarHead(_ random: inout SplitMix64) -> [UInt8] {
        let lineEnds = ["\r\n", "\n", "\r", "\r\r\n", " \r\n"]
        var bytes: [UInt8] = random.next() % 8 == 0 ? pick(["\r\n", "\n", "\r\n\r\n\r\n\r\n\r\n"], &random) : []
        bytes += pick(["GET", "POST", "HEAD", "CONNECT", "FOO", "get", "G(T", "DELETE"], &random)
        bytes += pick([" ", "  ", "\t"], &random)
        bytes += pick(
            ["/items?page=2", "http://h/x", "*", "/a\u{7F}", String(repeating: "/a", count: 40), "h"], &random)
        bytes += pick([" ", "  "], &random)
        bytes += pick(["HTTP/1.1", "HTTP/1.0", "HTTP/2.0", "HTTP/1.x", "http/1.1", "HTTP/1.1 "], &random)
        bytes += pick(lineEnds, &random)
        let names = ["X-A", "X-B", "Accept", "Content-Length", "Transfer-Encoding", "X-C", "X-D"]
        let oddNames = ["host", "X A", "", " X", "X\u{1}"]
        let values = ["x", "5", "99999", "chunked", "gzip", " v\tw "]
        let oddValues = ["5, 5", "+5", "", "a\u{0}b", "\u{FF}"]
        if random.next() % 4 != 0 {
            bytes += Array("Host: x\r\n".utf8)
        }
        for _ in 0..<Int(random.next() % 10) {
            bytes += any(names, odd: oddNames, &random) + pick([": ", ":", " :", ":\t"], &random)
            bytes += any(values, odd: oddValues, &random)
            bytes += pick(lineEnds, &random)
        }
        bytes += pick(lineEnds, &random)
        if random.next() % 4 == 0 {
            let fragment = fragments[Int(random.next() % UInt64(fragments.count))]
            bytes.insert(contentsOf: fragment, at: Int(random.next() % UInt64(bytes.count + 1)))
        }
        return bytes
    }

    @Test("random heads built from the grammar, near misses included, never trap and agree however they are split")
    func grammarHeads() {
        var random = SplitMix64(seed: 7)
        var outcomes: [Int: Int] = [:]
        for _ in 0..<4000 {
            let bytes = Self.grammarHead(&random)
            Self.check(bytes, random: &random)
            switch HeadFeeder.allAtOnce(bytes, limits: Self.limits) {
            case .needMore: outcomes[0, default: 0] += 1
            case .complete: outcomes[200, default: 0] += 1
            case .reject(let rejection): outcomes[rejection.status, default: 0] += 1
            }
        }
        // The generator reaches every outcome, so the properties are not checked on rejections alone.
        #expect(Set(outcomes.keys) == [0, 200, 400, 405, 411, 413, 414, 431, 501, 505], "\(outcomes)")
    }

    @Test("valid heads with random bytes changed, inserted or removed never trap and agree however they are split")
    func mutatedHeads() {
        var random = SplitMix64(seed: 99)
        var completes = 0
        for _ in 0..<3000 {
            var bytes = Self.seeds[Int(random.next() % UInt64(Self.seeds.count))]
            for _ in 0..<Int(1 + random.next() % 3) {
                let index = Int(random.next() % UInt64(bytes.count))
                let byte = UInt8(truncatingIfNeeded: random.next())
                switch random.next() % 3 {
                case 0: bytes[index] = byte
                case 1: bytes.insert(byte, at: index)
                default: bytes.remove(at: index)
                }
            }
            Self.check(bytes, random: &random)
            if case .complete = HeadFeeder.allAtOnce(bytes, limits: Self.limits) {
                completes += 1
            }
        }
        #expect(completes > 0)
    }

    @Test("the unmodified seed heads are complete")
    func seedsAreValid() {
        for seed in Self.seeds {
            guard case .complete = HeadFeeder.allAtOnce(seed, limits: Self.limits) else {
                Issue.record("\(String(decoding: seed, as: UTF8.self).debugDescription) is not complete")
                continue
            }
        }
    }
}

/// Limits outside the configured ranges (tests and future callers may build any `HTTPLimits`) must not trap either.
@Suite("Request head scanner: extreme limits")
struct RequestHeadExtremeLimitsTests {
    @Test("limits of Int.max, zero or negative never trap and still agree however the bytes are split")
    func extremeLimits() {
        let huge = HTTPLimits(maxRequestLineBytes: .max, maxHeaderBytes: .max, maxHeaderCount: .max, maxBodyBytes: .max)
        let zero = HTTPLimits(maxRequestLineBytes: 0, maxHeaderBytes: 0, maxHeaderCount: 0, maxBodyBytes: 0)
        let negative = HTTPLimits(maxRequestLineBytes: -1, maxHeaderBytes: -1, maxHeaderCount: -1, maxBodyBytes: -1)
        var random = SplitMix64(seed: 3)
        let heads = RequestHeadFuzzTests.seeds + (0..<300).map { _ in RequestHeadFuzzTests.grammarHead(&random) }
        for limits in [huge, zero, negative] {
            for bytes in heads {
                let whole = HeadFeeder.allAtOnce(bytes, limits: limits)
                #expect(HeadFeeder.growing(bytes, limits: limits) { _ in 1 }.0 == whole)
            }
        }
        #expect(HeadFeeder.allAtOnce(RequestHeadFuzzTests.seeds[0], limits: zero) == .reject(.headTooLarge(limit: 0)))
        guard case .complete = HeadFeeder.allAtOnce(RequestHeadFuzzTests.seeds[0], limits: huge) else {
            Issue.record("a valid head under huge limits was not complete")
            return
        }
    }
}
