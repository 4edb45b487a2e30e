import Glibc

/// A thread of the operating system's own, started with `pthread_create`, for the work that must not run on the
/// Swift concurrency pool or a loop: the event loops, a ``WorkerPool``'s threads (the SQLite thread, the PostgreSQL
/// pool, the image workers), the PostgreSQL listener.
///
/// In `System/`, the room of libc, rather than Foundation's `Thread`: that is all the server took from Foundation's
/// threads, and Foundation (with its ICU data) was most of the binary, the image and the idle memory (issue 16).
enum OSThread {
    /// Starts `body` on a new detached thread named `name` (Linux keeps 15 bytes) with `stackSize` bytes of stack.
    /// Stops the process if the system refuses a thread: the server cannot run without the ones it starts.
    static func start(name: String, stackSize: Int = 1 << 20, _ body: @escaping @Sendable () -> Void) {
        let box = Unmanaged.passRetained(Body(name: name, run: body)).toOpaque()
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setstacksize(&attributes, stackSize)
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        var thread = pthread_t()
        let status = pthread_create(
            &thread, &attributes,
            { argument in
                let body = Unmanaged<Body>.fromOpaque(argument!).takeRetainedValue()
                ThreadName.set(body.name)
                body.run()
                return nil
            }, box)
        guard status == 0 else {
            Unmanaged<Body>.fromOpaque(box).release()
            fatalError("cannot start thread \(name): \(String(cString: strerror(status)))")
        }
    }

    /// What a new thread runs, handed over through `pthread_create`'s one pointer.
    private final class Body {
        let name: String
        let run: @Sendable () -> Void

        init(name: String, run: @escaping @Sendable () -> Void) {
            self.name = name
            self.run = run
        }
    }
}
