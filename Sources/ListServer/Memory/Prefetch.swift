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

    /// Asks for the cache lines of a `T` at `address`, to be written: as ``forWriting(_:bytes:)``, for a size known
    /// where it is compiled, so the lines are asked for without a loop (the journal's slots, several a request); a
    /// value that would wrap past the top of the address space is fetched from low addresses instead of not at all.
    @inline(__always)
    static func forWriting<T>(_ address: UInt, as _: T.Type) {
        forEachLine(of: T.self, at: address) { cbuiltins_prefetch_for_writing($0) }
    }

    /// Asks for the cache lines of a `T` at `address`, to be read (as ``forWriting(_:as:)``).
    @inline(__always)
    static func forReading<T>(_ address: UInt, as _: T.Type) {
        forEachLine(of: T.self, at: address) { cbuiltins_prefetch_for_reading($0) }
    }

    /// Calls `fetch` with an address in every line a `T` at `address` takes: one a line's size apart from its start,
    /// then its last byte's (the line after them when `address` is not at a line's start; a line asked for twice
    /// costs nothing more). The count is the type's, so the compiler unrolls it: the loop of ``forEachLine(_:_:_:)``
    /// counted lines and checked its arithmetic, 36 instructions for a journal slot (callgrind). Addresses wrap
    /// rather than trap: a fetch of any address never faults.
    @inline(__always)
    private static func forEachLine<T>(of _: T.Type, at address: UInt, _ fetch: (UnsafeRawPointer?) -> Void) {
        let size = MemoryLayout<T>.size
        guard address != 0, size > 0 else { return }
        var offset = 0
        while offset < size {
            fetch(UnsafeRawPointer(bitPattern: address &+ UInt(offset)))
            offset += cacheLine
        }
        fetch(UnsafeRawPointer(bitPattern: address &+ UInt(size - 1)))
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
