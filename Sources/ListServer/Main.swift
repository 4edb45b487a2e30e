import Dispatch
import Foundation
import Logging

/// `ListServer`: reads the configuration, serves until SIGTERM or SIGINT, then drains and exits 0.
/// `ListServer --health-check` probes a running server instead (see ``HealthProbe``).
#if !LISTSERVER_FUZZ
    @main
#endif
struct Main {
    static func main() async {
        signal(SIGPIPE, SIG_IGN)
        let settings = await Settings.loadOrExit()  // --help, or one line naming the bad key and exit 64/78
        if CommandLineOptions.parseOrExit().healthCheck {
            HealthProbe.run(settings: settings)  // a separate, short-lived process: probe, print one line, exit 0/1
        }
        let logger = Logger(label: "ListServer")
        let app: Application
        do {
            app = try Application.start(settings: settings)
        } catch {
            FileHandle.standardError.write(Data("ListServer: cannot start: \(error)\n".utf8))
            exit(71)  // EX_OSERR
        }
        logger.info("listening on \(app.address) \(settings.summary)")
        let signals = SignalWatcher(signals: [SIGTERM, SIGINT]) { count in
            if count > 1 { exit(1) }  // a second signal: the user insists
            logger.info("shutting down: draining requests in flight")
            Task { await app.shutdown() }
        }
        await app.waitUntilStopped()
        signals.cancel()
        logger.info("stopped")
    }
}
