import Dispatch
import FoundationEssentials
import Glibc
import Logging

/// What the `ListServer` executable does: reads the configuration, serves until SIGTERM or SIGINT, then drains and
/// exits 0. `ListServer --health-check` probes a running server instead (see ``HealthProbe``).
///
/// It lives in the library, not in the executable's `Main.swift`, so that everything the process does can be
/// imported (by the tests, the fuzzer and the micro-benchmarks); the executable is only `@main` calling ``run()``.
public enum ServerCommand {
    /// Runs the server process to the end: exits with 64 or 78 on a bad configuration, 71 when the server cannot
    /// start, and returns once a signal has drained it.
    public static func run() async {
        signal(SIGPIPE, SIG_IGN)
        let options = CommandLineOptions.parseOrExit()  // --help, or a usage error and exit 64
        let settings = await Settings.loadOrExit(options: options)  // or one line naming the bad key and exit 64/78
        if options.healthCheck {
            // A separate, short-lived process: probe, print one line, exit 0/1.
            HealthProbe.run(host: settings.host, port: settings.port)
        }
        let logOutput = LogOutput.bootstrap(settings.logging)  // log.format, log.level: every Logger from here on
        let logger = Logger(label: "ListServer")
        let app: Application
        do {
            app = try await Application.start(settings: settings, accessLogger: Logger(label: "ListServer.access"))
        } catch {
            FileDescriptorOutput.standardError("ListServer: cannot start: \(error)\n")
            exit(71)  // EX_OSERR
        }
        let signals = SignalWatcher(signals: [SIGTERM, SIGINT]) { count in
            if count > 1 { exit(1) }  // a second signal: the user insists
            logger.info("shutting down: draining requests in flight")
            Task { await app.shutdown() }
        }
        logger.info("listening on \(app.address) \(settings.summary)")  // once SIGTERM drains: the line means ready
        StartUpPages.release()  // start-up's code, mapped all over the binary, is not run again
        await app.waitUntilStopped()
        signals.cancel()
        logger.info("stopped")
        logOutput.flush()
    }
}
