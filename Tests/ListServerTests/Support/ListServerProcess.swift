import Foundation

/// The `ListServer` executable SwiftPM built next to this test bundle, run as a child process.
enum ListServerProcess {
    static let executable = URL(fileURLWithPath: CommandLine.arguments[0])
        .deletingLastPathComponent().appendingPathComponent("ListServer")

    /// Which output stream a run collects.
    enum Stream { case standardOutput, standardError }

    /// Runs the executable to its end and returns its exit status and the collected stream. A process still
    /// running after 10 s (a server that wrongly started) is interrupted, so the test fails instead of hanging.
    static func run(
        _ arguments: [String], environment: [String: String] = [:], collecting stream: Stream
    ) async throws -> (Int32, String) {
        try await offPool {
            let process = Process()
            process.executableURL = executable
            process.arguments = arguments
            process.environment = environment
            let collected = Pipe()
            process.standardOutput = stream == .standardOutput ? collected : Pipe()
            process.standardError = stream == .standardError ? collected : Pipe()
            try process.run()
            DispatchQueue.global().asyncAfter(deadline: .now() + 10) { if process.isRunning { process.interrupt() } }
            let text = String(decoding: collected.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            return (process.terminationStatus, text)
        }
    }
}
