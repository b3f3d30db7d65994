import Foundation
import PackagePlugin

/// Generates the version, commit and date of the programs (`castctl --version`) from git before
/// every build, by running `scripts/version.sh --swift`: nothing committed goes stale. The script
/// rewrites its output only when a value changed, so an unchanged tree rebuilds nothing.
@main
struct CastorVersionPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let output = context.pluginWorkDirectoryURL.appending(path: "Generated")
        let script = context.package.directoryURL.appending(path: "scripts/version.sh")
        var environment: [String: String] = [:]
        for name in ["CASTOR_VERSION", "CASTOR_COMMIT", "CASTOR_DATE", "PATH", "HOME"] {
            if let value = ProcessInfo.processInfo.environment[name] { environment[name] = value }
        }
        return [
            .prebuildCommand(
                displayName: "Castor version from git",
                executable: URL(fileURLWithPath: "/bin/sh"),
                arguments: [script.path(percentEncoded: false), "--swift",
                            output.appending(path: "CastorBuildInfo.swift").path(percentEncoded: false)],
                environment: environment,
                outputFilesDirectory: output)
        ]
    }
}
