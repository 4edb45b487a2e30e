import Logging
import NIOCore
import NIOPosix
import PostgresNIO

#if canImport(Glibc)
    import Glibc
#endif

func cpuMicros() -> Int64 {
    var ru = rusage()
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &ru)
    return Int64(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1_000_000 + Int64(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec)
}
func wallMicros() -> Int64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Int64(ts.tv_sec) * 1_000_000 + Int64(ts.tv_nsec) / 1000
}
func threadCount() -> Int {
    guard let d = opendir("/proc/self/task") else { return -1 }
    defer { closedir(d) }
    var n = 0
    while let e = readdir(d) {
        let name = withUnsafePointer(to: e.pointee.d_name) {
            String(cString: UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self))
        }
        if name != "." && name != ".." { n += 1 }
    }
    return n
}
func threadNames() -> String {
    guard let d = opendir("/proc/self/task") else { return "?" }
    defer { closedir(d) }
    var names: [String] = []
    while let e = readdir(d) {
        let tid = withUnsafePointer(to: e.pointee.d_name) {
            String(cString: UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self))
        }
        if tid == "." || tid == ".." { continue }
        guard let f = fopen("/proc/self/task/\(tid)/comm", "r") else { continue }
        var buf = [CChar](repeating: 0, count: 64)
        if fgets(&buf, 64, f) != nil { names.append(String(String(cString: buf).filter { $0 != "\n" })) }
        fclose(f)
    }
    return names.joined(separator: ",")
}
func statusLine(_ key: String) -> String {
    guard let f = fopen("/proc/self/status", "r") else { return "?" }
    defer { fclose(f) }
    var buf = [CChar](repeating: 0, count: 512)
    while fgets(&buf, 512, f) != nil {
        let s = String(cString: buf)
        if s.hasPrefix(key) { return String(s.dropFirst(key.count).filter { !$0.isWhitespace }) }
    }
    return "?"
}

let N = 20_000
let TX = 64
var logger = Logger(label: "bench")
logger.logLevel = .error

func makeBody(_ id: Int) -> ByteBuffer {
    var b = ByteBufferAllocator().buffer(capacity: 40)
    for i in 0..<40 { b.writeInteger(UInt8(truncatingIfNeeded: id &+ i)) }
    return b
}
func makeLabel(_ id: Int) -> String {
    let s = String(id)
    return "label-" + String(repeating: "0", count: max(0, 14 - s.count)) + s  // 20 chars
}

func insert(_ c: PostgresConnection, _ id: Int) async throws {
    let label = makeLabel(id)
    let body = makeBody(id)
    try await c.query("INSERT INTO t (id, label, body) VALUES (\(Int64(id)), \(label), \(body))", logger: logger)
}

func report(_ name: String, _ w0: Int64, _ c0: Int64) {
    let w = wallMicros() - w0, c = cpuMicros() - c0
    print(
        "nio \(name): wall_us/insert=\(String(format2(Double(w) / Double(N)))) cpu_us/insert=\(String(format2(Double(c) / Double(N)))) threads=\(threadCount())"
    )
}
func format2(_ x: Double) -> String {
    let r = (x * 100).rounded() / 100
    return "\(r)"
}

if getenv("NIO_GLOBAL_EXEC") != nil {
    print(
        "installing NIO event loop as global executor:",
        NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor())
}
let config = PostgresConnection.Configuration(
    host: "127.0.0.1", port: 55432, username: "postgres", password: nil, database: "postgres", tls: .disable)
let conn = try await PostgresConnection.connect(configuration: config, id: 1, logger: logger)
print("nio threads after connect=\(threadCount())")
try await conn.query("TRUNCATE t", logger: logger)
// warm-up (not timed): 500 inserts
for i in 0..<500 { try await insert(conn, 900_000 + i) }

// (a) autocommit
var w0 = wallMicros(), c0 = cpuMicros()
for i in 0..<N { try await insert(conn, 1 + i) }
report("a_autocommit", w0, c0)

// (b) tx of 64, awaited one by one
w0 = wallMicros(); c0 = cpuMicros()
var id = 100_001
var done = 0
while done < N {
    let k = min(TX, N - done)
    try await conn.query("BEGIN", logger: logger)
    for _ in 0..<k { try await insert(conn, id); id += 1 }
    try await conn.query("COMMIT", logger: logger)
    done += k
}
report("b_tx64", w0, c0)

try await conn.close().get()
print("nio exit threads=\(threadCount()) VmHWM=\(statusLine("VmHWM:")) VmRSS=\(statusLine("VmRSS:"))")
print("nio thread names: \(threadNames())")
