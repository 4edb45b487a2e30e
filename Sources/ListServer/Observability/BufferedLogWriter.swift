import Dispatch
import Synchronization

/// Writes log lines to a file descriptor off the event loops, so that logging never waits for the terminal, the
/// pipe or the container runtime behind standard error.
///
/// A line is appended to a buffer under a lock (a copy of its bytes, no system call). The first line into an empty
/// buffer schedules a write on a serial Dispatch queue `batchInterval` later (a timer, nothing waits), which takes
/// everything buffered by then and writes it in one go: under load a few hundred writes a second carry every line, instead of a wake-up, a
/// context switch and a `write` per line (measured: those cost more than the rest of a page request). A line thus
/// reaches the file at most about `batchInterval` late. If the reader falls behind by more than `capacity` bytes,
/// further lines are dropped (and counted) rather than blocking an event loop; once writing catches up, one notice
/// says how many were lost.
/// ``flush()`` writes what is buffered on the calling thread: call it before the process exits.
final class BufferedLogWriter: Sendable {
    private struct Pending {
        var bytes: [UInt8] = []
        var droppedLines = 0
    }

    private struct Output {
        let descriptor: Int32
        /// The buffer the next batch is swapped into; keeps its capacity between batches.
        var spare: [UInt8] = []
    }

    private let pending = Mutex(Pending())
    private let output: Mutex<Output>
    private let queue = DispatchQueue(label: "ListServer.log-writer")
    private let capacity: Int
    private let batchInterval: Duration
    private let droppedNotice: @Sendable (Int) -> String

    /// Creates a writer for `descriptor`.
    ///
    /// - Parameters:
    ///   - descriptor: Where lines go; standard error (2) by default.
    ///   - capacity: The most bytes buffered; lines beyond it are dropped.
    ///   - batchInterval: How long the writer lets lines gather before it writes them.
    ///   - droppedNotice: The line (with its newline) that reports lost lines, in the log's format.
    init(
        descriptor: Int32 = 2,
        capacity: Int = 8 << 20,
        batchInterval: Duration = .milliseconds(5),
        droppedNotice: @escaping @Sendable (Int) -> String = { "\($0) log lines dropped: output too slow\n" }
    ) {
        output = Mutex(Output(descriptor: descriptor))
        self.capacity = capacity
        self.batchInterval = batchInterval
        self.droppedNotice = droppedNotice
    }

    /// Queues one line (with its newline); never blocks on I/O.
    func write(_ line: String) {
        let wasEmpty = pending.withLock { pending -> Bool in
            guard pending.bytes.count + line.utf8.count <= capacity else {
                pending.droppedLines += 1
                return false
            }
            let wasEmpty = pending.bytes.isEmpty
            pending.bytes.append(contentsOf: line.utf8)
            return wasEmpty
        }
        if wasEmpty {
            let (seconds, attoseconds) = batchInterval.components
            let delay = DispatchTimeInterval.nanoseconds(
                Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000))
            queue.asyncAfter(deadline: .now() + delay) { [self] in flush() }
        }
    }

    /// Writes everything queued so far, on the calling thread, in order with the queue's batches.
    func flush() {
        output.withLock { output in
            let dropped = pending.withLock { pending in
                swap(&pending.bytes, &output.spare)
                defer { pending.droppedLines = 0 }
                return pending.droppedLines
            }
            if !output.spare.isEmpty {
                FileDescriptorOutput.write(output.spare, to: output.descriptor)
                output.spare.removeAll(keepingCapacity: true)
            }
            if dropped > 0 {
                FileDescriptorOutput.write(Array(droppedNotice(dropped).utf8), to: output.descriptor)
            }
        }
    }
}

/// A `TextOutputStream` over a ``BufferedLogWriter``, for swift-log's `StreamLogHandler`.
struct BufferedLogStream: TextOutputStream, Sendable {
    let writer: BufferedLogWriter

    func write(_ string: String) {
        writer.write(string)
    }
}
