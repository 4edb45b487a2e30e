import Foundation
import ListDomain
import Testing

@testable import ListServer

/// Datasets on a real server over a real file: read on first use after a restart, listed, capped, expired.
@Suite("End to end: the life of a dataset")
struct EndToEndDatasetLifecycleTests {
    /// `POST /items` of `label` to `dataset`; the new item's id.
    static func create(_ port: Int, _ dataset: String, _ label: String) async throws -> RawHTTPConnection.Response {
        try await send(
            port: port, "POST", "/items", json: #"{"label":"\#(label)"}"#, headers: ["X-Dataset: \(dataset)"])
    }

    /// The labels of the items after id 9999 (the written ones) of `dataset`.
    static func written(_ port: Int, _ dataset: String) async throws -> [String] {
        let page = try await fetch(port: port, "/items?after=9999&limit=100", headers: ["X-Dataset: \(dataset)"])
        return (try page.jsonObject()["items"] as? [[String: Any]] ?? []).compactMap { $0["label"] as? String }
    }

    @Test("after a restart nothing is read until a request names a dataset; then it is all there, streams included")
    func firstUseAfterRestart() async throws {
        try await withTemporaryFolder { folder in
            let configure: @Sendable (inout Settings) -> Void = { $0.dataPath = folder + "/lists.sqlite" }
            try await withServer(configure: configure) { app throws in
                for name in ["run-1", "run-2", "run-3"] {
                    #expect(try await Self.create(app.port, name, "in \(name)").status == 201)
                }
            }
            try await withServer(configure: configure) { app throws in
                let lists = app.writes.lists
                #expect(lists.needsLoading("run-1") && lists.needsLoading("run-2") && lists.needsLoading("run-3"))
                #expect(try await Self.written(app.port, "run-1") == ["in run-1"])
                #expect(!lists.needsLoading("run-1") && lists.needsLoading("run-2"))
                // An event stream naming a dataset not read yet: it is read first, then the stream is live.
                let stream = try RawHTTPConnection(port: app.port)
                try stream.request("GET", "/items/events?dataset=run-2")
                #expect(try await offPool { try stream.readStreamHead() }.status == 200)
                #expect(try await Self.create(app.port, "run-2", "live").status == 201)
                let events = try await offPool { try stream.readEvents(1) }
                #expect(events.first?["event"] == "created" && events.first?["id"] == "2")
                // A write reads its dataset first too: its id goes on after the stored one.
                let third = try await Self.create(app.port, "run-3", "second")
                #expect(try third.jsonObject()["id"] as? Int == 10_001)
                #expect(!lists.hasUnloaded)
            }
        }
    }

    @Test("GET /admin/datasets lists what each dataset holds, by pages; past data.max_datasets a write is 507")
    func listAndCap() async throws {
        try await withServer(configure: { $0.maxDatasets = 3 }) { app throws in
            let port = app.port
            for name in ["c", "a", "b"] { #expect(try await Self.create(port, name, "x").status == 201) }
            #expect(try await Self.create(port, "a", "y").status == 201)
            let refused = try await Self.create(port, "d", "one too many")
            #expect(refused.status == 507)
            #expect(refused.header("Content-Type") == "application/problem+json")
            let problem = try refused.jsonObject()
            #expect(problem["type"] as? String == "urn:listserver:problem:dataset-limit")
            #expect((problem["detail"] as? String)?.contains("data.max_datasets") == true)
            let toDefault = try await send(
                port: port, "POST", "/items", json: #"{"label":"the default list is no dataset"}"#)
            #expect(toDefault.status == 201)

            let listed = try await fetch(port: port, "/admin/datasets").jsonObject()
            let datasets = try #require(listed["datasets"] as? [[String: Any]])
            #expect(datasets.map { $0["name"] as? String } == ["a", "b", "c"])
            #expect(datasets.first?["items"] as? Int == 10_002 && datasets.first?["written"] as? Int == 2)
            #expect((datasets.first?["bytes"] as? Int ?? 0) > 0)
            #expect(listed["count"] as? Int == 3 && listed["max_datasets"] as? Int == 3)
            #expect(listed["next_after"] is NSNull)
            let page = try await fetch(port: port, "/admin/datasets?after=a&limit=1").jsonObject()
            #expect((page["datasets"] as? [[String: Any]])?.map { $0["name"] as? String } == ["b"])
            #expect(page["next_after"] as? String == "b")
            // Dropping one makes room (its header row stays, for its tags and feed positions, but it holds nothing).
            #expect(try await send(port: port, "DELETE", "/admin/datasets/c", contentType: nil).status == 204)
            #expect(try await Self.create(port, "d", "now it fits").status == 201)
        }
    }

    @Test("a dataset idle for data.dataset_ttl_s goes, with its rows; one in use stays")
    func expiry() async throws {
        try await withTemporaryFolder { folder in
            let configure: @Sendable (inout Settings) -> Void = {
                $0.dataPath = folder + "/lists.sqlite"
                // Swept every second; idle for 3 to 4 s, it goes.
                $0.datasetTTLSeconds = 2
            }
            try await withServer(configure: configure) { app throws in
                let port = app.port
                #expect(try await Self.create(port, "idle", "forgotten").status == 201)
                #expect(try await Self.create(port, "busy", "kept").status == 201)
                // A profile goes with its dataset.
                let profile = #"{"script":[{"respond":{"status":503},"times":5}]}"#
                #expect(try await send(port: port, "PUT", "/admin/datasets/idle/profile", json: profile).status == 200)
                // Busy is read every 0.2 s from a thread of its own: a test task on the cooperative pool can be
                // held for seconds when a full parallel run's CPU-bound suites take both of its threads (seen in CI:
                // busy went idle for its TTL and expired), and the server's loops answer whatever the pool does.
                let reader = BusyReader(port: port, dataset: "busy")
                let clock = ContinuousClock()
                let start = clock.now
                while clock.now - start < .seconds(12), app.writes.lists.exists("idle") {
                    try await Task.sleep(for: .milliseconds(200))
                }
                let (reads, wrong) = try await offPool { reader.stop() }  // its wait is off the pool too
                #expect(reads > 0 && wrong == 0, "\(wrong) of \(reads) reads of busy were not [kept]")
                #expect(!app.writes.lists.exists("idle"), "still there after 12 s")
                #expect(
                    try await fetch(port: port, "/admin/datasets/idle/profile").text
                        == #"{"dataset":"idle","script":[]}"#)
                #expect(try await Self.written(port, "idle").isEmpty)
                #expect(try await Self.written(port, "busy") == ["kept"])
                let listed = try await fetch(port: port, "/admin/datasets").jsonObject()
                #expect((listed["datasets"] as? [[String: Any]])?.map { $0["name"] as? String } == ["busy"])
            }
            // Durably: a restart finds only the one in use.
            try await withServer(configure: configure) { app throws in
                #expect(try await Self.written(app.port, "idle").isEmpty)
                #expect(try await Self.written(app.port, "busy") == ["kept"])
            }
        }
    }

    @Test("a dataset at data.max_dataset_bytes is 507 dataset-full; past data.max_memory_bytes datasets leave memory")
    func memoryBounds() async throws {
        let configure: @Sendable (inout Settings) -> Void = {
            $0.maxDatasetBytes = 65_536
            $0.maxMemoryBytes = 1_048_576
        }
        try await withServer(configure: configure) { app throws in
            let port = app.port
            let lists = app.writes.lists
            let long = String(repeating: "😀", count: 475)  // 1,900 bytes of UTF-8 in 475 characters
            // Twenty datasets filled to their bound: 1.3 MB in all, over the memory budget.
            var labels: [String: [String]] = [:]
            for dataset in (0..<20).map({ "full-\($0)" }) {
                while true {
                    let label = "\(labels[dataset, default: []].count) \(long)"
                    let response = try await Self.create(port, dataset, label)
                    guard response.status == 201 else {
                        #expect(response.status == 507)
                        #expect(response.header("Content-Type") == "application/problem+json")
                        let problem = try response.jsonObject()
                        #expect(problem["type"] as? String == "urn:listserver:problem:dataset-full")
                        #expect((problem["detail"] as? String)?.contains("data.max_dataset_bytes") == true)
                        break
                    }
                    labels[dataset, default: []].append(label)
                }
                #expect(labels[dataset, default: []].count >= 10, "\(dataset) took only a few items")
            }
            // Nothing used since the clock's last move but one may leave: move it twice, then write once more.
            let now = lists.clockNow.milliseconds
            lists.advanceClock(to: WallTime(milliseconds: now + 1_000))
            lists.advanceClock(to: WallTime(milliseconds: now + 2_000))
            #expect(try await Self.create(port, "another", "short").status == 201)
            #expect(lists.memoryInUse <= 1_048_576)
            let left = labels.keys.filter { lists.needsLoading($0) }.sorted()
            #expect(left.count >= 2, "only \(left) left memory")
            let metrics = try await EndToEndMetricsTests.scrape(port)
            #expect(metrics["listserver_datasets_evictions_total"] == Double(left.count))
            #expect(metrics["listserver_datasets_out_of_memory"] == Double(left.count))
            #expect(metrics["listserver_datasets_in_memory"] == Double(21 - left.count), "the full ones and another")
            #expect(metrics["listserver_datasets_memory_bytes"] == Double(lists.memoryInUse))
            #expect(metrics["listserver_datasets_memory_budget_bytes"] == 1_048_576)
            // A write reads its dataset again first, and finds it full.
            let away = try #require(left.first)
            #expect(try await Self.create(port, away, "still full").status == 507)
            #expect(!lists.needsLoading(away))
            // Every dataset reads back as written, from memory or read again from the store.
            for (dataset, written) in labels {
                #expect(try await Self.written(port, dataset) == written, "\(dataset)")
            }
        }
    }
}

/// Reads a dataset's written labels every 0.2 s on a thread of its own until stopped; counts the reads and those
/// that did not see exactly `["kept"]`.
private final class BusyReader: @unchecked Sendable {
    private let lock = NSLock()
    private var running = true
    private var reads = 0
    private var wrong = 0
    private let done = DispatchSemaphore(value: 0)

    init(port: Int, dataset: String) {
        Thread { [self] in
            while lock.withLock({ running }) {
                let labels = try? Self.written(port: port, dataset: dataset)
                lock.withLock {
                    reads += 1
                    if labels != ["kept"] { wrong += 1 }
                }
                usleep(200_000)
            }
            done.signal()
        }.start()
    }

    /// Stops the thread; the reads made and how many were wrong.
    func stop() -> (reads: Int, wrong: Int) {
        lock.withLock { running = false }
        done.wait()
        return lock.withLock { (reads, wrong) }
    }

    private static func written(port: Int, dataset: String) throws -> [String] {
        let connection = try RawHTTPConnection(port: port)
        try connection.request("GET", "/items?after=9999&limit=100", headers: ["X-Dataset: \(dataset)"])
        let page = try connection.readResponse()
        let object = try JSONSerialization.jsonObject(with: Data(page.body)) as? [String: Any]
        return (object?["items"] as? [[String: Any]] ?? []).compactMap { $0["label"] as? String }
    }
}
