import Dispatch
import FoundationEssentials
import Glibc
import Synchronization

/// Calls a handler on SIGTERM/SIGINT (with how many signals have arrived so far), on a Dispatch
/// queue rather than in a signal handler, so the handler may do anything.
final class SignalWatcher: @unchecked Sendable {  // sources are only read after init
    private let sources: [any DispatchSourceSignal]

    init(signals: [Int32], handler: @escaping @Sendable (_ count: Int) -> Void) {
        let count = Mutex(0)
        let queue = DispatchQueue(label: "ListServer.signals")
        sources = signals.map { number in
            signal(number, SIG_IGN)  // let Dispatch see it instead of the default action
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler {
                let seen = count.withLock { value in
                    value += 1
                    return value
                }
                handler(seen)
            }
            source.resume()
            return source
        }
    }

    func cancel() {
        for source in sources { source.cancel() }
    }
}
