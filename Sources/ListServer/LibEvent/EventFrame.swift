// swift-format-ignore-file: OrderedImports
import Glibc  // before CEvent
import CEvent

/// One event as it goes on the wire, framed once per loop and shared by every stream of the loop that sends it.
///
/// A stream's connection buffer gets the event either copied or, from ``referenceThreshold`` bytes on, by
/// reference (`evbuffer_add_reference`): a subscriber that does not read then holds a small chain pointing at the
/// one copy, not a copy of its own. Before, each event went through a fresh `evbuffer` per subscriber, whose chain
/// libevent sizes to the next power of two: 400 subscribers that never read, sent 2 KB events, held 137 MiB of RSS
/// for 64 MiB of ``SettingKey/eventBufferedBytes``.
///
/// Copies go through `evbuffer_reserve_space`, which fills the buffer's last chain and sizes a new one from the
/// frame (1 KiB at least), not `evbuffer_add`, which sizes a new chain from the last one: after a reference chain
/// (immutable, as long as its frame) that is twice the frame before, so a heartbeat after a 2 KB event took 4 KiB.
/// So what a stream holds stays about what it is counted for, or less.
///
/// The storage is immutable once made and freed when the last reference goes: libevent calls
/// ``eventFrameReleased`` when a chain pointing at it is drained or freed, on whichever thread frees it (a loop's,
/// or the one freeing the event base at shutdown); the release is atomic.
final class EventFrame: @unchecked Sendable {
    /// `<size in hex>\r\n`, the event, `\r\n`: the chunk of a chunked reply. The event alone starts at
    /// ``eventStart``.
    private let storage: UnsafeMutableRawBufferPointer
    private let eventStart: Int

    /// The size of the event alone (what an HTTP/1.0 stream, which is not chunked, gets).
    let eventCount: Int

    /// From this size on a frame is added by reference. libevent allocates every chain, a reference's too, at
    /// 1 KiB at least, so below about twice that a copy into the last chain costs less.
    static let referenceThreshold = 2048

    /// Frames `event` (which must not be empty: an empty chunk would end a chunked reply).
    init(_ event: [UInt8]) {
        precondition(!event.isEmpty, "an empty chunk ends a chunked reply")
        let sizeLine = Array((String(event.count, radix: 16) + "\r\n").utf8)
        storage = .allocate(byteCount: sizeLine.count + event.count + 2, alignment: 1)
        eventStart = sizeLine.count
        eventCount = event.count
        sizeLine.withUnsafeBytes { storage.copyMemory(from: $0) }
        event.withUnsafeBytes { UnsafeMutableRawBufferPointer(rebasing: storage[eventStart...]).copyMemory(from: $0) }
        storage[storage.count - 2] = UInt8(ascii: "\r")
        storage[storage.count - 1] = UInt8(ascii: "\n")
    }

    deinit { storage.deallocate() }

    /// Calls `body` with the event's bytes (without the chunk's framing).
    func withEvent<Result>(_ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        body(UnsafeRawBufferPointer(rebasing: storage[eventStart..<(eventStart + eventCount)]))
    }

    /// The bytes a stream gets: the whole chunk when the reply is chunked, else the event alone.
    func count(chunked: Bool) -> Int { chunked ? storage.count : eventCount }

    /// Appends the frame (the chunk, or the event alone) to `output`, by reference when it is large.
    /// - Returns: false when libevent could not add it (out of memory).
    func append(to output: OpaquePointer, chunked: Bool) -> Bool {
        let start = storage.baseAddress! + (chunked ? 0 : eventStart)
        let count = count(chunked: chunked)
        guard count >= Self.referenceThreshold else { return Self.copy(start, count: count, to: output) }
        let retained = Unmanaged.passRetained(self).toOpaque()
        guard evbuffer_add_reference(output, start, count, eventFrameReleased, retained) == 0 else {
            // libevent calls the cleanup only for a chain it made.
            Unmanaged<EventFrame>.fromOpaque(retained).release()
            return false
        }
        return true
    }

    /// Copies `count` bytes at `start` to the end of `output` in one extent (see the type's comment on why not
    /// `evbuffer_add`); committing runs the buffer's callbacks, as an add does.
    private static func copy(_ start: UnsafeRawPointer, count: Int, to output: OpaquePointer) -> Bool {
        var extent = iovec()  // evbuffer_iovec is a macro for struct iovec
        guard evbuffer_reserve_space(output, count, &extent, 1) == 1, extent.iov_len >= count else { return false }
        extent.iov_base.copyMemory(from: start, byteCount: count)
        extent.iov_len = count
        return evbuffer_commit_space(output, &extent, 1) == 0
    }
}

/// libevent's cleanup for a chain that referenced a frame: the chain's retain of it ends.
private func eventFrameReleased(_ data: UnsafeRawPointer?, _ length: Int, _ context: UnsafeMutableRawPointer?) {
    guard let context else { return }
    Unmanaged<EventFrame>.fromOpaque(context).release()
}
