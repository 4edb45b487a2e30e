import Foundation
import Testing

/// The `ListServer` executable itself: start-up logging, bad configuration, signals.
@Suite("End to end: the ListServer process")
struct EndToEndProcessTests {
    /// Runs the executable and collects its exit code and standard error.
    private func run(_ arguments: [String], environment: [String: String] = [:]) async throws -> (Int32, String) {
        try await ListServerProcess.run(arguments, environment: environment, collecting: .standardError)
    }

    @Test(
        "invalid configuration stops start-up with one line naming the key",
        arguments: [
            (["--latency-min-ms", "3000"], [:], "store.latency.min_ms"),
            (["--port", "70000"], [:], "http.port"),
            ([], ["LISTSERVER_CACHE_CAPACITY": "-1"], "cache.capacity"),
            ([], ["LISTSERVER_ITEM_COUNT": "abc"], "items.count"),
            (["--config", "/nonexistent/listserver.json"], [:], "/nonexistent/listserver.json"),
        ])
    func invalidConfiguration(arguments: [String], environment: [String: String], key: String) async throws {
        // Flags given later win, so the test's own come after the safe defaults.
        let (status, stderr) = try await run(
            ["--host", "127.0.0.1", "--port", "0"] + arguments, environment: environment)
        #expect(status != 0)
        let errorLines = stderr.split(separator: "\n").filter { $0.hasPrefix("Error:") }
        #expect(errorLines.count == 1, "stderr: \(stderr)")
        #expect(errorLines.first?.contains(key) == true, "stderr: \(stderr)")
    }

    @Test("the loops, the SQLite thread and the image workers carry their names where top -H, ps -L and perf look")
    func threadNames() async throws {
        try await withServer { _ in
            // Other tests' servers may run in this process too: these names must be there, whoever owns them. Each
            // thread names itself as it begins, which on a busy machine can come a little after the server has
            // started: a new thread gets its name within the wait, or the test fails naming what it saw.
            let expected: Set<String> = ["loop-0", "loop-1", "sqlite-store", "image-0", "image-1"]
            _ = try await waitUntil(
                "every thread of the server to carry its name",
                describe: { (names: Set<String>) in "\(names.sorted())" },
                observe: { try Set(Self.niceValuesByThreadName().keys) },
                isDone: { (names: Set<String>) in names.isSuperset(of: expected) })
        }
    }

    @Test("image workers run at nice 10, below the loops, which keep the default")
    func imageWorkersYieldToLoops() async throws {
        try await withServer { _ in
            // A worker lowers its priority as it begins, which on a busy machine can come a little after the server
            // has started: wait for it, and fail naming what was seen if it never comes.
            _ = try await waitUntil(
                "image workers at nice 10 and loops at 0", observe: Self.niceValuesByThreadName,
                isDone: Self.workersBelowLoops)
        }
    }

    /// Whether every image worker runs at nice 10 and every loop at 0.
    private static func workersBelowLoops(_ nice: [String: Set<Int>]) -> Bool {
        let workers: Set<Int> = [10]
        let loops: Set<Int> = [0]
        return nice["image-0"] == workers && nice["image-1"] == workers && nice["loop-0"] == loops
            && nice["loop-1"] == loops
    }

    /// The nice values of this process's threads, by thread name (a thread without a name yet counts too).
    private static func niceValuesByThreadName() throws -> [String: Set<Int>] {
        let tasks = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")
        var nice: [String: Set<Int>] = [:]
        for task in tasks {
            guard let name = try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8),
                let stat = try? String(contentsOfFile: "/proc/self/task/\(task)/stat", encoding: .utf8),
                let afterName = stat.range(of: ") ")
            else { continue }
            // Field 19 of stat is the nice value; fields are counted from after the name in parentheses.
            let fields = stat[afterName.upperBound...].split(separator: " ")
            if let value = Int(fields[16]) {
                nice[name.trimmingCharacters(in: .newlines), default: []].insert(value)
            }
        }
        return nice
    }

    @Test("start-up logs the port actually bound; SIGTERM stops the server with exit 0")
    func logsBoundPortAndStopsOnSIGTERM() async throws {
        let result = try await offPool { () -> (Int32, String, Int?) in
            let process = Process()
            process.executableURL = ListServerProcess.executable
            process.arguments = ["--host", "127.0.0.1", "--port", "0", "--threads", "2"]
            let output = Pipe()
            process.standardOutput = output
            process.standardError = output
            try process.run()
            DispatchQueue.global().asyncAfter(deadline: .now() + 10) { if process.isRunning { process.interrupt() } }
            // Read until the start-up line arrives (bounded by the pipe closing if the server dies).
            var text = ""
            while !text.contains("\n") {
                let chunk = output.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                text += String(decoding: chunk, as: UTF8.self)
            }
            let port = text.split(separator: " ").first { $0.hasPrefix("127.0.0.1:") }
                .flatMap { Int($0.dropFirst("127.0.0.1:".count)) }
            if let port {
                let connection = try RawHTTPConnection(port: port)
                try connection.request("GET", "/items/1")
                _ = try connection.readResponse()
            }
            process.terminate()  // SIGTERM
            process.waitUntilExit()
            return (process.terminationStatus, text, port)
        }
        let (status, log, port) = result
        #expect(port != nil && port != 0, "log: \(log)")
        #expect(log.contains("items.count=10000"), "log: \(log)")
        #expect(status == 0)
    }
}
