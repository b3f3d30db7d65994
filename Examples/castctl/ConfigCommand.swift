import ArgumentParser
import CastJSON
import CastctlKit
import Foundation

/// `castctl config`: the default device and aliases in `$XDG_CONFIG_HOME/castor/castctl.conf`.
struct ConfigCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config",
        abstract: "Set the default device and device aliases.",
        discussion: """
            Settings live in $XDG_CONFIG_HOME/castor/castctl.conf (~/.config/castor/castctl.conf by default), an \
            INI file with [options] (device = …) and [aliases] (NAME = DEVICE). Every device command uses the \
            default device when neither --host nor --device is given; CASTCTL_DEVICE overrides the file's default; \
            --device and CASTCTL_DEVICE accept an alias. A DEVICE is a friendly name or UUID (found through mDNS), or \
            HOST:PORT (an IP address may omit the port). -v says which device a command used and why. \
            Changes are written atomically and keep the file's other lines; a malformed file is never rewritten: \
            the error names its line.
            """,
        subcommands: [Show.self, Path.self, Set.self, Unset.self, Alias.self, Unalias.self],
        defaultSubcommand: Show.self)


    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show the default device, where it comes from, and the aliases.")
        @Flag(help: "Print the result as JSON.") var json = false

        func run() async throws {
            try await Output.run {
                let configFile = CastctlConfigFile.standard()
                let configuration = try configFile.read()
                let environment = ProcessInfo.processInfo.environment[DeviceChoice.environmentVariable].flatMap { $0.isEmpty ? nil : $0 }
                let effective: DeviceChoice? = try? DeviceChoice.resolve(
                    host: nil, port: 8009, device: nil, environment: ProcessInfo.processInfo.environment, file: configFile)
                let aliases = configuration.aliases
                let value: JSONValue = [
                    "file": .string(configFile.path),
                    "device": configuration.device.map { .string($0.value) } ?? .null,
                    "environment": environment.map(JSONValue.string) ?? .null,
                    "defaultDevice": effective.map { .string($0.reference.description) } ?? .null,
                    "aliases": .object(Dictionary(uniqueKeysWithValues: aliases.map { ($0.name, JSONValue.string($0.device)) })),
                ]
                var lines = ["file: \(configFile.path)"]
                lines.append("device: " + (configuration.device?.value ?? "(none)"))
                if let environment { lines.append("\(DeviceChoice.environmentVariable): \(environment) (overrides the file)") }
                if let effective { lines.append("default device: \(effective.reference) (\(effective.alias.map { "alias \($0), " } ?? "")from \(effective.origin))") }
                lines.append(aliases.isEmpty ? "aliases: (none)" : "aliases:")
                for alias in aliases { lines.append("  \(alias.name) = \(alias.device)") }
                Output.print(value, text: lines.joined(separator: "\n"), json: json)
            }
        }
    }

    struct Path: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print the configuration file's path.")
        func run() async throws { print(CastctlConfigFile.standard().path) }
    }

    struct Set: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Set an option: `set device NAME|UUID|HOST[:PORT]` (or an alias) makes it the default device.")
        @Argument(help: "The option (device).") var key: String
        @Argument(help: "Its value.") var value: String

        func validate() throws {
            guard CastctlConfiguration.optionKeys.contains(key.lowercased()) else {
                throw ValidationError("Unknown option “\(key)”: castctl has \(CastctlConfiguration.optionKeys.joined(separator: ", "))")
            }
        }

        func run() async throws {
            try await Output.run {
                let configFile = CastctlConfigFile.standard()
                try configFile.update { configuration throws(CastctlError) in try configuration.setDevice(value) }
                print("device = \(value.trimmingCharacters(in: .whitespaces)) (in \(configFile.path))")
            }
        }
    }

    struct Unset: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove an option (device).")
        @Argument(help: "The option (device).") var key: String

        func validate() throws {
            guard CastctlConfiguration.optionKeys.contains(key.lowercased()) else {
                throw ValidationError("Unknown option “\(key)”: castctl has \(CastctlConfiguration.optionKeys.joined(separator: ", "))")
            }
        }

        func run() async throws {
            try await Output.run {
                let configFile = CastctlConfigFile.standard()
                let removed = try configFile.update { configuration throws(CastctlError) in configuration.removeDevice() }
                print(removed ? "removed the default device (from \(configFile.path))" : "no default device was set")
            }
        }
    }

    struct Alias: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Name a device: `alias tv \"Living Room TV\"`; with NAME alone, print it; with nothing, list them.")
        @Argument(help: "The alias (a letter, then letters, digits, ., _ or -).") var name: String?
        @Argument(help: "The device: NAME, UUID or HOST[:PORT].") var device: String?
        @Flag(help: "Print the result as JSON.") var json = false

        func validate() throws {
            if let name, !CastctlConfiguration.isAliasName(name) {
                throw ValidationError("“\(name)” is not an alias name (a letter, then letters, digits, ., _ or -)")
            }
        }

        func run() async throws {
            try await Output.run {
                let configFile = CastctlConfigFile.standard()
                guard let name else {
                    let aliases = try configFile.read().aliases
                    let value: JSONValue = .object(Dictionary(uniqueKeysWithValues: aliases.map { ($0.name, JSONValue.string($0.device)) }))
                    Output.print(value, text: aliases.isEmpty ? "(no aliases)" : aliases.map { "\($0.name) = \($0.device)" }.joined(separator: "\n"),
                                 json: json)
                    return
                }
                guard let device else {
                    guard let target = try configFile.read().alias(name) else {
                        throw CastctlError(code: .unknownKey, message: "no alias “\(name)” in \(configFile.path)")
                    }
                    Output.print(.string(target), text: target, json: json)
                    return
                }
                try configFile.update { configuration throws(CastctlError) in try configuration.setAlias(name, to: device) }
                print("\(name) = \(device.trimmingCharacters(in: .whitespaces)) (in \(configFile.path))")
            }
        }
    }

    struct Unalias: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove an alias.")
        @Argument(help: "The alias.") var name: String

        func run() async throws {
            try await Output.run {
                let configFile = CastctlConfigFile.standard()
                let removed = try configFile.update { configuration throws(CastctlError) in configuration.removeAlias(name) }
                guard removed else { throw CastctlError(code: .unknownKey, message: "no alias “\(name)” in \(configFile.path)") }
                print("removed the alias \(name)")
            }
        }
    }
}
