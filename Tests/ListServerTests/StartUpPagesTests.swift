import Glibc
import Testing

@testable import ListServer

/// Handing start-up's pages back, in this test process: its binary is mapped like the server's.
@Suite("Start-up pages")
struct StartUpPagesTests {
    /// Whether this kernel lets a process read its own pagemap (gVisor and some sandboxes do not: there `release()`
    /// does nothing, by design, and there is nothing to check).
    static let hasPagemap = access("/proc/self/pagemap", R_OK) == 0

    @Test(
        "the read-only pages of every loaded file are dropped from the process, and everything runs on after",
        .enabled(if: hasPagemap, "needs /proc/self/pagemap"))
    func release() throws {
        let before = try #require(fileBackedKiB())
        let dropped = StartUpPages.release()
        let after = try #require(fileBackedKiB())
        #expect(dropped >= 1 << 20, "dropped \(dropped) bytes")
        #expect(after + 1024 <= before, "file-backed RSS \(before) kB before, \(after) kB after")
        // Code, metadata and relocated data used after the drop: a page of private memory dropped by mistake (the
        // RELRO part of an object, relocated at load time) would bring back the file's unrelocated bytes and crash
        // here, or in any test running beside this one.
        var json = JSONWriter()
        json.append(raw: "{\"dropped\":")
        json.append(integer: dropped)
        json.append(raw: "}")
        #expect(String(decoding: json.bytes, as: UTF8.self) == "{\"dropped\":\(dropped)}")
        #expect(try #require(fileBackedKiB()) > 0)
    }

    /// `RssFile` of `/proc/self/status`, in kB.
    private func fileBackedKiB() -> Int? {
        guard let file = fopen("/proc/self/status", "r") else { return nil }
        defer { fclose(file) }
        var line = [CChar](repeating: 0, count: 256)
        while fgets(&line, Int32(line.count), file) != nil {
            let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if text.hasPrefix("RssFile:") { return Int(text.dropFirst(8).filter(\.isNumber)) }
        }
        return nil
    }
}
