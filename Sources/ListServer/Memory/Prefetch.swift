import CBuiltins

/// Memory asked into the CPU's caches ahead of a write or a read, without waiting for it.
///
/// Why: the request journal writes each request's slot to the end of its loop's buffer, memory last written a
/// collection ago and gone cold meanwhile (on a CPU shared with other servers, even from the L2 cache). The slot's
/// stores then waited for their cache lines at the shard's unlock, a locked instruction that drains the store buffer:
/// 70 % of the record's own samples (perf, `Benchmarks/journal/cost.sh`'s load). Fetched when the request arrives,
/// the lines are there by its answer. A collection reads those buffers and writes the rings the same way: ahead.
enum Prefetch {
    /// Asks for the cache lines of the `bytes` bytes at `address`, to be written (a bit pattern: a stale or invalid
    /// address costs a wasted fetch, never a fault).
    @inline(__always)
    static func forWriting(_ address: UInt, bytes: Int) {
        forEachLine(address, bytes) { cbuiltins_prefetch_for_writing($0) }
    }

    /// Asks for the cache lines of the `bytes` bytes at `address`, to be read.
    @inline(__always)
    static func forReading(_ address: UInt, bytes: Int) {
        forEachLine(address, bytes) { cbuiltins_prefetch_for_reading($0) }
    }

    /// Calls `fetch` with every line from the one `address` is in to the one its last byte is in.
    @inline(__always)
    private static func forEachLine(_ address: UInt, _ bytes: Int, _ fetch: (UnsafeRawPointer?) -> Void) {
        // No address near the top of the address space: the last byte's place would wrap.
        guard address != 0, bytes > 0, address <= UInt.max - UInt(bytes) else { return }
        let first = address & ~UInt(cacheLine - 1)
        let lines = (address + UInt(bytes - 1) - first) / UInt(cacheLine) + 1
        for line in 0..<lines { fetch(UnsafeRawPointer(bitPattern: first + line * UInt(cacheLine))) }
    }

    /// Where `array`'s storage header is (its count, read by an append) and where its next element goes; nil for an
    /// array without storage.
    static func ends<Element>(of array: borrowing [Element]) -> (header: UInt, next: UInt)? {
        array.withUnsafeBufferPointer { elements in
            let base = UInt(bitPattern: elements.baseAddress)
            guard base != 0 else { return nil }
            return (base &- UInt(arrayHeaderBytes), base &+ UInt(elements.count * MemoryLayout<Element>.stride))
        }
    }

    /// Where `object` is.
    static func address(of object: AnyObject) -> UInt { UInt(bitPattern: Unmanaged.passUnretained(object).toOpaque()) }

    /// What an array's storage holds before its first element (its object header, count and capacity: the standard
    /// library's layout, relied on only for fetching).
    static let arrayHeaderBytes = 4 * MemoryLayout<Int>.size

    /// The cache line's size on the CPUs ListServer runs on (x86-64, arm64 servers).
    static let cacheLine = 64
}
