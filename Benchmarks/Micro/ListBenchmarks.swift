import Foundation  // JSONEncoder, for the contrast benchmark only
import ListDomain
import ListServer

/// ListBenchmarks: ns/op of ListServer's hot paths, in a release build.
///
///     swift run -c release ListBenchmarks [--quick] [--only TEXT] [--rounds N] [--scale X]
///
/// `--only TEXT` runs the benchmarks whose name contains TEXT; `--rounds` and `--scale` override the rounds and the
/// iteration multiplier. Instructions per operation, exactly (the wall clock is noisy here):
///
///     valgrind --tool=callgrind --toggle-collect='*scanOnce*' \
///         .build/release/ListBenchmarks --only 'POST head' --rounds 0 --scale 0.01
///
/// Prints a markdown table: the median of several rounds (and the fastest round) per benchmark.
@main
struct ListBenchmarks {
    /// The catalog the server runs with by default: seed 42, 10,000 items, 500 pages of 20.
    static let catalog = Catalog(seed: 42, count: 10_000)

    static func main() async throws {
        let arguments = Array(CommandLine.arguments.dropFirst())
        func value(_ option: String) -> String? {
            arguments.firstIndex(of: option).flatMap { arguments.indices.contains($0 + 1) ? arguments[$0 + 1] : nil }
        }
        let quick = arguments.contains("--quick")
        var harness = Harness(
            rounds: value("--rounds").flatMap { Int($0) } ?? (quick ? 5 : 11),
            scale: value("--scale").flatMap { Double($0) } ?? (quick ? 0.2 : 1),
            only: value("--only"))
        print(Harness.header)
        try pageBenchmarks(&harness)
        scannerBenchmarks(&harness)
        try bodyBenchmarks(&harness)
        imageBenchmarks(&harness)
        try await cacheBenchmarks(&harness)
        print("\n(\(harness.rounds) timed rounds per benchmark after one warm-up round; checksum \(harness.sink))")
    }

    /// Pages 1...500 in a fixed pseudo-random order, as the load test asks for them.
    static let pageNumbers: [UInt64] = {
        var generator = SplitMix64(seed: 42)
        return (0..<1024).map { _ in 1 + generator.next() % 500 }
    }()

    /// The page path with the hand-written writer and with `JSONEncoder`, and the detail body.
    static func pageBenchmarks(_ harness: inout Harness) throws {
        harness.measure("Catalog.writePage, 20 items (generation + JSON, reused writer)", iterations: 200_000) {
            count in
            var json = JSONWriter(capacity: 8192)
            var checksum: UInt64 = 0
            for index in 0..<count {
                json.reset()
                catalog.writePage(catalog.page(pageNumbers[index & 1023], limit: 20), into: &json)
                checksum &+= UInt64(json.bytes.count)
            }
            return checksum
        }

        // The texts of the messages the chat page load asks for (Benchmarks/chat/pages.lua), alone: the chat page's
        // own work beyond an item page's is mostly these.
        var room = [UInt8](repeating: 0, count: 20 * ChatText.maximumBytes)
        harness.measure("ChatText.write, the texts of a page of 20 messages", iterations: 200_000) { count in
            var checksum: UInt64 = 0
            var span = room.mutableSpan
            var bytes = span.mutableBytes
            for index in 0..<count {
                var at = 0
                let first = UInt64(index &* 37 % 9_900)
                for id in first..<first + 20 {
                    at = ChatText.write(seed: 42, conversation: 0, message: id, into: &bytes, at: at)
                }
                checksum &+= UInt64(at)
            }
            return checksum
        }

        // A page of 20 messages as the chat page load asks for them, against the page of items above.
        let chat = ChatCatalog(seed: 42, conversations: 50, messagesPerConversation: 10_000)
        harness.measure("ChatCatalog.Thread.writeMessage, a page of 20 messages (reused writer)", iterations: 200_000) {
            count in
            var json = JSONWriter(capacity: 8192)
            var checksum: UInt64 = 0
            for index in 0..<count {
                json.reset()
                let thread = chat.thread(0)
                var days = ChatTime.Days()
                let first = UInt64(index &* 37 % 9_900)
                for id in first..<first + 20 { thread.writeMessage(id, days: &days, into: &json) }
                checksum &+= UInt64(json.bytes.count)
            }
            return checksum
        }

        let encoder = JSONEncoder()
        try harness.measure("JSONEncoder, equivalent Codable page (20 items from Catalog.item)", iterations: 10_000) {
            count in
            var checksum: UInt64 = 0
            for index in 0..<count {
                let page = CodablePage(catalog: catalog, page: catalog.page(pageNumbers[index & 1023], limit: 20))
                checksum &+= UInt64(try encoder.encode(page).count)
            }
            return checksum
        }

        harness.measure("ItemDetail.writeJSON (shortest round-trip double)", iterations: 1_000_000) { count in
            var json = JSONWriter(capacity: 64)
            var checksum: UInt64 = 0
            for index in 0..<count {
                json.reset()
                let id = UInt64(index & 1023)
                ItemDetail(id: id, amount: catalog.amount(for: id)).writeJSON(into: &json)
                checksum &+= UInt64(json.bytes.count)
            }
            return checksum
        }
    }

    /// The detail cache as the server calls it (`lookUp`, no waiting): a hit, and a miss with its bookkeeping.
    static func cacheBenchmarks(_ harness: inout Harness) async throws {
        let warm = DetailCache(store: immediateStore(catalog), capacity: 100_000)
        _ = try await warm.detail(for: 7)
        try harness.measure("DetailCache.lookUp, hit (under its mutex, one thread)", iterations: 1_000_000) {
            count in
            var checksum: UInt64 = 0
            for _ in 0..<count {
                checksum &+= try warm.lookUp(7).lookup.detail.id
            }
            return checksum
        }

        // Filled to capacity first, so every timed miss also evicts the least recently used entry.
        let capacity = 100_000
        let cold = DetailCache(
            store: immediateStore(Catalog(seed: 42, count: Catalog.maximumCount)), capacity: capacity)
        var nextID: UInt64 = 0
        _ = try missFresh(cold, next: &nextID, count: capacity)
        try harness.measure(
            "DetailCache.lookUp, miss (latency draw, flight + landing, LRU insert + evict; zero-latency store)",
            iterations: 200_000
        ) { count in
            try missFresh(cold, next: &nextID, count: count)
        }
    }

    /// A slow store that answers at once: cache benchmarks measure the cache, not a timer.
    static func immediateStore(_ catalog: Catalog) -> SlowStore {
        SlowStore(catalog: catalog, latency: .uniform(min: .zero, max: .zero), clock: ImmediateClock())
    }

    /// Lookups of `count` ids never asked for before, from `next` on: every one a miss.
    static func missFresh(_ cache: DetailCache, next: inout UInt64, count: Int) throws -> UInt64 {
        var checksum: UInt64 = 0
        for _ in 0..<count {
            checksum &+= try cache.lookUp(next).lookup.detail.id
            next += 1
        }
        return checksum
    }
}
