// swift-format-ignore-file: OrderedImports
import Glibc  // before CEvent
import CEvent

/// One event as it goes on the wire, framed once per loop and shared by every stream of the loop that sends it.
///
/// A stream's connection buffer gets the event either copied or, from ``referenceThreshold`` bytes on, by
/// reference (`evbuffer_add_reference`): a subscriber that does not read then holds a small chain pointing at the
/// one copy, not a copy of its own. Before, each event went through a fresh `evbuffer` per subscriber, whose chain
/// libevent sizes to the next power of two: 400 subscribers that never read, sent 2 KB events, held 137 MiB of RSS
/// for 64 MiB of `events.max_buffered_bytes`. Copied bytes are appended to the buffer's last chain, which packs
/// them densely, so what a stream holds in memory stays at or below what it is counted for.
///
/// The storage is immutable once made and freed when the last reference goes: libevent calls
/// ``eventFrameReleased`` when a chain pointing at it is drained or freed, on the loop thread that owns the buffer.
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
        storage.copyMemory(from: UnsafeRawBufferPointer(start: sizeLine, count: sizeLine.count))
        event.withUnsafeBytes { UnsafeMutableRawBufferPointer(rebasing: storage[eventStart...]).copyMemory(from: $0) }
        storage[storage.count - 2] = UInt8(ascii: "\r")
        storage[storage.count - 1] = UInt8(ascii: "\n")
    }

    deinit { storage.deallocate() }

    /// The bytes a stream gets: the whole chunk when the reply is chunked, else the event alone.
    func count(chunked: Bool) -> Int { chunked ? storage.count : eventCount }

    /// Appends the frame (the chunk, or the event alone) to `output`, by reference when it is large.
    /// - Returns: false when libevent could not add it (out of memory).
    func append(to output: OpaquePointer, chunked: Bool) -> Bool {
        let start = storage.baseAddress! + (chunked ? 0 : eventStart)
        let count = count(chunked: chunked)
        guard count >= Self.referenceThreshold else { return evbuffer_add(output, start, count) == 0 }
        let retained = Unmanaged.passRetained(self).toOpaque()
        guard evbuffer_add_reference(output, start, count, eventFrameReleased, retained) == 0 else {
            // libevent calls the cleanup only for a chain it made.
            Unmanaged<EventFrame>.fromOpaque(retained).release()
            return false
        }
        return true
    }
}

/// libevent's cleanup for a chain that referenced a frame: the chain's retain of it ends.
private func eventFrameReleased(_ data: UnsafeRawPointer?, _ length: Int, _ context: UnsafeMutableRawPointer?) {
    guard let context else { return }
    Unmanaged<EventFrame>.fromOpaque(context).release()
}
