import FoundationEssentials
import Glibc

/// Names the calling thread as the kernel sees it (`top -H`, `ps -L`, `/proc/<pid>/task/*/comm`, perf and gdb).
///
/// Foundation's `Thread.name` does not reach the kernel on Linux: every thread the server starts showed the name of
/// the dispatch thread that started it (`…oot.default-qos`), so its two loops and its SQLite thread could not be
/// told apart when measuring them. glibc's `pthread_setname_np` is a GNU extension that Swift's Glibc module does
/// not expose; writing `/proc/thread-self/comm` does the same (Linux keeps the first 15 bytes), once per thread.
enum ThreadName {
    /// Sets the calling thread's name; longer names are cut to Linux's 15 bytes. Does nothing where `/proc` is
    /// unavailable: a name only helps the people looking at the process.
    static func set(_ name: String) {
        let descriptor = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        defer { close(descriptor) }
        let bytes = Array(name.utf8.prefix(15))
        _ = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
    }
}
