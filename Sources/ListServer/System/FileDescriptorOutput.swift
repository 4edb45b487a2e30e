import Glibc

/// Whole writes to a file descriptor (standard output, standard error, a log pipe), for the few places that write
/// outside evhttp: the log writer's batches, start-up errors, the health probe's line. Unbuffered, so what is
/// written is out before the process exits.
///
/// In `System/`, the room of libc, rather than Foundation's `FileHandle`: the server no longer links Foundation
/// (issue 16).
enum FileDescriptorOutput {
    /// Writes all of `bytes` to `descriptor`, resuming after partial writes and interruptions; false when the
    /// descriptor refuses (closed pipe, full disk): a log line or a message has nowhere else to go then.
    @discardableResult
    static func write(_ bytes: [UInt8], to descriptor: Int32) -> Bool {
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                offset += written
            }
            return true
        }
    }

    /// Writes `text` to standard error.
    static func standardError(_ text: String) { write(Array(text.utf8), to: STDERR_FILENO) }

    /// Writes `text` to standard output.
    static func standardOutput(_ text: String) { write(Array(text.utf8), to: STDOUT_FILENO) }
}
