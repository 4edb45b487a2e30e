import FoundationEssentials
import Glibc

/// Lowers the calling thread's scheduling priority: image workers run at nice 10, so that when encodes keep every
/// core busy (a storm of misses for large images) the event loops still get the CPU first and pages stay fast.
///
/// Linux keeps a nice value per thread, and `setpriority(PRIO_PROCESS, 0, …)` changes the calling thread's alone
/// (setpriority(2), "Bugs": NPTL threads do not share one), which `/proc/<pid>/task/<tid>/stat` shows. Raising the
/// value needs no privilege; failing to is harmless (the thread keeps the default).
enum ThreadPriority {
    /// Makes the calling thread `niceness` (0...19) nicer than the default.
    static func lower(to niceness: Int32) {
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, niceness)
    }
}
