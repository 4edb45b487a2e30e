import ArgumentParser
import FoundationEssentials
import Glibc

extension Settings {
    /// Parses the command line and loads the settings, or prints why not and exits: what `Main` calls first.
    ///
    /// - `--help`/`-h`: prints the help and exits with 0.
    /// - An unknown flag, a missing value or a value that does not parse (`--port abc`): ArgumentParser's message
    ///   and usage on standard error, exit code 64 (`EX_USAGE`).
    /// - A flag value that parses but is invalid (`--port 70000`): the ``ConfigurationError`` line in the same form,
    ///   exit code 64.
    /// - Any other ``ConfigurationError`` (environment, file): `Error: <the line>` on standard error, exit code 78
    ///   (`EX_CONFIG`).
    ///
    /// - Parameters:
    ///   - arguments: The arguments without the program name; `nil` for `CommandLine.arguments.dropFirst()`.
    ///   - environment: The environment to read `LISTSERVER_*` variables from.
    static func loadOrExit(
        arguments: [String]? = nil,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) async -> Settings {
        let options = CommandLineOptions.parseOrExit(arguments)
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
