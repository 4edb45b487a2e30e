import ArgumentParser
import FoundationEssentials
import Glibc

extension Settings {
    /// Loads the settings from the command line (parsed once, by the caller, with `CommandLineOptions.parseOrExit()`,
    /// which handles `--help` and usage errors: ArgumentParser's message and usage, exit code 64), the environment
    /// and the file, or prints why not and exits.
    ///
    /// - A flag value that parses but is invalid (`--port 70000`): the ``ConfigurationError`` line in the same form,
    ///   exit code 64.
    /// - Any other ``ConfigurationError`` (environment, file): `Error: <the line>` on standard error, exit code 78
    ///   (`EX_CONFIG`).
    ///
    /// - Parameters:
    ///   - options: The command line, parsed.
    ///   - environment: The environment to read `LISTSERVER_*` variables from.
    static func loadOrExit(
        options: CommandLineOptions,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) async -> Settings {
        do {
            return try await load(options: options, environment: environment)
        } catch {
            if error.source == .commandLine {
                CommandLineOptions.exit(withError: ValidationError(error.description))
            }
            FileDescriptorOutput.standardError("Error: \(error.description)\n")
            CommandLineOptions.exit(withError: ExitCode(78))
        }
    }
}
