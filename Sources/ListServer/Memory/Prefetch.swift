import CBuiltins

/// Memory asked into the CPU's caches ahead of a write, without waiting for it.
///
/// Why: the request journal writes each request's slot to the end of its loop's buffer, memory last written a
/// collection ago and gone cold meanwhile (on a CPU shared with other servers, even from the L2 cache). The slot's
/// stores then waited for their cache lines at the shard's unlock, a locked instruction that drains the store buffer:
/// 70 % of the record's own samples (perf, `Benchmarks/journal/cost.sh`'s load). Fetched when the request arrives,
/// the lines are there by its answer.
enum Prefetch {
    /// Asks for the cache lines of the `bytes` bytes at `address` (a bit pattern: a stale or invalid address costs a
    /// wasted fetch, never a fault).
    @inline(__always)
    static func forWriting(_ address: UInt, bytes: Int) {
        guard address != 0, bytes > 0 else { return }
        // Every line from the one `address` is in to the one its last byte is in.
        var line = address & ~UInt(cacheLine - 1)
        let last = address &+ UInt(bytes - 1)
        while line <= last {
            cbuiltins_prefetch_for_writing(UnsafeRawPointer(bitPattern: line))
            line &+= UInt(cacheLine)
        }
    }

    /// The cache line's size on the CPUs ListServer runs on (x86-64, arm64 servers).
    static let cacheLine = 64
}
