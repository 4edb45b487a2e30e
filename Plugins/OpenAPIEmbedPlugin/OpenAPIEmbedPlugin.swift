import Foundation
import PackagePlugin

/// Generates `OpenAPIDocument.swift` (the YAML, its JSON and their hash) from the package's `openapi.yaml` into the
/// plugin work directory, for the target it is applied to.
///
/// `openapi.yaml` stays at the root of the package (schemathesis, the README and the tests use it there); it is an
/// input of the build command, so SwiftPM runs the generator again when it changes.
@main
struct OpenAPIEmbedPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
        let input = context.package.directoryURL.appending(path: "openapi.yaml")
        let output = context.pluginWorkDirectoryURL.appending(path: "OpenAPIDocument.swift")
        return [
            .buildCommand(
                displayName: "Embedding openapi.yaml in \(target.name)",
                executable: try context.tool(named: "OpenAPIEmbed").url,
                arguments: [input.path(), output.path()],
                inputFiles: [input],
                outputFiles: [output]
            )
        ]
    }
}
