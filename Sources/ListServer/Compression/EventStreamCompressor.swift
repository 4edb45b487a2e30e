import CZlib

/// The gzip stream of one event stream (`Accept-Encoding: gzip` on `/items/events`): each event is compressed and
/// flushed (`Z_SYNC_FLUSH`) as it is written, so the client decodes it at once, as it would an uncompressed one;
/// the stream's end finishes the gzip member.
///
/// zlib's rather than libdeflate's, which compresses whole buffers only. Its state is kept small, a 1 KiB window
/// and the smallest hash (about 11 KB a stream, the state's 5.9 KB included, where zlib's defaults take 268 KB): a
/// server holds thousands of streams (``SettingKey/maxConnections`` bounds them), and events, a few hundred bytes of
/// JSON each, repeat what they repeat within one event or the last. Each gzip stream compresses each event itself:
/// its bytes depend on what the stream sent before.
package final class EventStreamCompressor {
    /// Allocated, not a stored property: zlib keeps a pointer to its `z_stream` and checks it on every call.
    private let stream: UnsafeMutablePointer<z_stream>

    /// A new gzip stream; nil when zlib cannot make one (out of memory).
    package init?() {
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        guard listserver_deflate_init_gzip(stream, 1, 10, 1) == Z_OK else {
            stream.deinitialize(count: 1)
            stream.deallocate()
            return nil
        }
    }

    deinit {
        deflateEnd(stream)
        stream.deinitialize(count: 1)
        stream.deallocate()
    }

    /// The bytes that carry `event` on the stream, flushed to a byte boundary; with `finishing`, also the end of the
    /// gzip member (its checksum and length). nil if zlib fails.
    package func compress(_ event: UnsafeRawBufferPointer, finishing: Bool = false) -> [UInt8]? {
        var output: [UInt8] = []
        var room = [UInt8](repeating: 0, count: max(256, event.count + event.count / 8 + 64))
        stream.pointee.next_in = UnsafeMutablePointer(mutating: event.baseAddress?.assumingMemoryBound(to: Bytef.self))
        stream.pointee.avail_in = UInt32(event.count)
        while true {
            let (status, produced) = room.withUnsafeMutableBufferPointer { buffer -> (Int32, Int) in
                stream.pointee.next_out = buffer.baseAddress
                stream.pointee.avail_out = UInt32(buffer.count)
                let status = deflate(stream, finishing ? Z_FINISH : Z_SYNC_FLUSH)
                return (status, buffer.count - Int(stream.pointee.avail_out))
            }
            guard status == Z_OK || status == Z_STREAM_END || status == Z_BUF_ERROR else { return nil }
            output += room[..<produced]
            // Done when the output had room to spare (the flush is complete), or the member ended.
            if status == Z_STREAM_END || (stream.pointee.avail_out > 0 && stream.pointee.avail_in == 0) { break }
        }
        stream.pointee.next_in = nil
        return output
    }
}
