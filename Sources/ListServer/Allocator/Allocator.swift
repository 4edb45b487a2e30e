import CJemalloc

/// The process's memory allocator: jemalloc, linked into the server so that every `malloc` and `free` (Swift's,
/// libevent's, SQLite's, the codecs') goes to it rather than to glibc's; this room alone imports it, to read its
/// statistics.
///
/// Why not glibc's malloc: the server's work crosses threads (a write is parsed on a loop, committed on the store's
/// thread, answered on the loop again), so memory allocated on one thread is freed on another, and the items a list
/// keeps are long-lived small blocks among short-lived ones. glibc's per-thread caches hold 7 blocks per size, the
/// rest goes through locked arenas, and its heap fragments as the written items accumulate: on one binary, the
/// server's CPU per write rose from 42 to 62 µs over 420,000 writes with glibc (wrk, 64 clients,
/// `synchronous=normal`), 41 to 48 µs with jemalloc preloaded, 43 to 54 µs with mimalloc 2.0 (Debian's), and pages
/// cost 21 µs instead of 23 (`Benchmarks/writes/growth.sh`; Benchmarks/HISTORY.md, issue 12 in session 11). jemalloc
/// is Debian's package (5.3), which Redis and Valkey ship for the same reasons; it costs about 2 MB of idle memory.
enum Allocator {
    /// What the allocator holds, in bytes, as of now.
    struct Statistics: Sendable, Equatable {
        /// Bytes in blocks the program holds.
        var allocated: Int
        /// Bytes of physical memory in the allocator's pages (the allocator's share of the resident set).
        var resident: Int
    }

    /// The allocator's version, e.g. `5.3.0-0-g54eaed1d8b56b1aa528be3bdd1877e59c56fa90c`; nil when jemalloc is not
    /// the library answering (it always is when linked).
    static var version: String? {
        var pointer: UnsafePointer<CChar>?
        var size = MemoryLayout<UnsafePointer<CChar>?>.size
        guard mallctl("version", &pointer, &size, nil, 0) == 0, let pointer else { return nil }
        return String(cString: pointer)
    }

    /// The current statistics (jemalloc refreshes them when told a new epoch); nil if it cannot give them.
    static func statistics() -> Statistics? {
        var epoch: UInt64 = 1
        guard mallctl("epoch", nil, nil, &epoch, MemoryLayout<UInt64>.size) == 0,
            let allocated = sizeValue("stats.allocated"), let resident = sizeValue("stats.resident")
        else { return nil }
        return Statistics(allocated: allocated, resident: resident)
    }

    /// Gives the pages of freed blocks back to the system now, in every arena, rather than over jemalloc's decay
    /// time (10 s): once, after start-up, whose transient memory (the store's check of its file, its page cache)
    /// would otherwise stay resident for a while. False if jemalloc refused.
    @discardableResult
    static func releaseFreedPages() -> Bool {
        // MALLCTL_ARENAS_ALL (4096): every arena.
        mallctl("arena.4096.purge", nil, nil, nil, 0) == 0
    }

    /// Whether `malloc` itself is jemalloc's (not only that the library is loaded): the bytes jemalloc has handed
    /// out to this thread grow by a block `malloc` just returned.
    static var servesMalloc: Bool {
        guard let before = threadAllocated() else { return false }
        guard let block = malloc(4096) else { return false }
        defer { free(block) }
        guard let after = threadAllocated() else { return false }
        return after &- before >= 4096
    }

    /// Bytes jemalloc has handed out to the calling thread since it started.
    private static func threadAllocated() -> UInt64? {
        var value: UInt64 = 0
        var size = MemoryLayout<UInt64>.size
        return mallctl("thread.allocated", &value, &size, nil, 0) == 0 ? value : nil
    }

    /// A `size_t` statistic by its mallctl name.
    private static func sizeValue(_ name: String) -> Int? {
        var value = 0
        var size = MemoryLayout<Int>.size
        return mallctl(name, &value, &size, nil, 0) == 0 ? value : nil
    }
}
