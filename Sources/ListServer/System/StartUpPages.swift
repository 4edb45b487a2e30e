import Glibc

/// Hands the code that only start-up ran back to the kernel, as Linux frees its own `__init` sections after boot.
///
/// Start-up (argument parsing by reflection, configuration, the Swift runtime scanning its conformance tables, the
/// loader's relocations) touches code all over the 19 MB binary, and the kernel maps up to 16 neighbouring pages of
/// the file at each such fault: an idle server kept 11 MB of its binary mapped that it would not run again. Once the
/// server listens, ``release()`` drops this process's mappings of the file pages of every read-only mapping of a
/// file (`madvise(MADV_DONTNEED)`); the pages stay in the page cache, and whatever runs later (the request path)
/// maps them again on first use, from memory (unless memory pressure has evicted them since: then from the disk, as
/// after any eviction). What it lowers is the process's RSS; the page cache, which a container's cgroup is charged
/// for too, holds those pages as before until the kernel needs the room.
///
/// Only pages that are the file's own bytes are dropped, in mappings that cannot be written: `/proc/self/pagemap`
/// tells a file page from private memory, so the RELRO part of an object (relocated at load time, then made
/// read-only: private memory the file cannot give back) is never touched. Mappings are read, checked and dropped
/// one after another, so it must run while nothing maps, unmaps or re-protects memory in the meantime: the server
/// calls it once, right after start-up (nothing in this process unmaps a file or makes one writable later).
/// Without `/proc` it does nothing.
enum StartUpPages {
    /// Pages whose pagemap entries are read at a time.
    private static let chunk = 4096

    /// Drops the pages described above; returns how many bytes it dropped.
    @discardableResult
    static func release() -> Int {
        guard let maps = readWhole("/proc/self/maps") else { return 0 }
        let pagemap = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC)
        guard pagemap >= 0 else { return 0 }
        defer { close(pagemap) }
        let page = UInt(sysconf(Int32(_SC_PAGESIZE)))
        var dropped = 0
        for line in maps.split(separator: UInt8(ascii: "\n")) {
            guard let (start, end) = readOnlyFileMapping(line) else { continue }
            dropped += dropFilePages(from: start, to: end, page: page, pagemap: pagemap)
        }
        return dropped
    }

    /// The address range of a `/proc/self/maps` line when it maps a file (a path, not `[vdso]` or `[heap]`) without
    /// write permission.
    private static func readOnlyFileMapping(_ line: ArraySlice<UInt8>) -> (UInt, UInt)? {
        let fields = line.split(separator: UInt8(ascii: " "), maxSplits: 5, omittingEmptySubsequences: true)
        guard fields.count == 6, fields[1].count == 4, fields[1][fields[1].startIndex + 1] == UInt8(ascii: "-"),
            fields[5].first(where: { $0 != UInt8(ascii: " ") }) == UInt8(ascii: "/")
        else { return nil }
        let bounds = fields[0].split(separator: UInt8(ascii: "-"))
        guard bounds.count == 2, let start = hexadecimal(bounds[0]), let end = hexadecimal(bounds[1]) else {
            return nil
        }
        return (start, end)
    }

    /// Drops every run of resident file pages between `start` and `end`, a chunk of pages at a time; returns the
    /// bytes dropped. A pagemap read that comes back short leaves the rest of the mapping alone.
    private static func dropFilePages(from start: UInt, to end: UInt, page: UInt, pagemap: Int32) -> Int {
        var dropped = 0
        var first = start
        var entries = [UInt64](repeating: 0, count: chunk)
        while first < end {
            let count = min(chunk, Int((end - first) / page))
            guard count > 0 else { break }
            let wanted = count * MemoryLayout<UInt64>.size
            let got = entries.withUnsafeMutableBytes { pread(pagemap, $0.baseAddress, wanted, off_t(first / page) * 8) }
            guard got == wanted else { break }
            dropped += dropRuns(of: entries[0..<count], from: first, page: page)
            first += UInt(count) * page
        }
        return dropped
    }

    /// Drops the runs of resident file pages among `entries`, the pagemap entries of the pages from `start`.
    private static func dropRuns(of entries: ArraySlice<UInt64>, from start: UInt, page: UInt) -> Int {
        // Bit 63: present; bit 61: a file page (or shared memory), not private memory.
        let filePage: UInt64 = 1 << 63 | 1 << 61
        var dropped = 0
        var index = 0
        while index < entries.count {
            guard entries[index] & filePage == filePage else {
                index += 1
                continue
            }
            var last = index
            while last + 1 < entries.count, entries[last + 1] & filePage == filePage { last += 1 }
            let address = start + UInt(index) * page
            let length = (last - index + 1) * Int(page)
            if madvise(UnsafeMutableRawPointer(bitPattern: address), length, MADV_DONTNEED) == 0 { dropped += length }
            index = last + 1
        }
        return dropped
    }

    private static func hexadecimal(_ digits: ArraySlice<UInt8>) -> UInt? {
        guard !digits.isEmpty, digits.count <= 16 else { return nil }
        var value: UInt = 0
        for digit in digits {
            switch digit {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = value << 4 | UInt(digit - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): value = value << 4 | UInt(digit - UInt8(ascii: "a") + 10)
            default: return nil
            }
        }
        return value
    }

    /// A `/proc` file read to its end (its size is not known before).
    private static func readWhole(_ path: String) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16384)
        while true {
            let got = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if got < 0, errno == EINTR { continue }
            guard got >= 0 else { return nil }
            if got == 0 { return bytes }
            bytes.append(contentsOf: chunk[0..<got])
        }
    }
}
