import CastDiscoveryCore

/// The device a castctl command talks to, and where that choice came from.
///
/// In order: `--host HOST [--port PORT]`; `--device X`; `CASTCTL_DEVICE=X`; `device = X` in the
/// configuration file. `X` is an alias from the file's `[aliases]` (matched without regard to case;
/// an alias names a device, never another alias) or `NAME|UUID|HOST[:PORT]`.
public struct DeviceChoice: Sendable, Hashable, CustomStringConvertible {
    /// Where the choice came from.
    public enum Source: Sendable, Hashable {
        /// `--host`.
        case hostOption
        /// `--device`.
        case deviceOption
        /// The `CASTCTL_DEVICE` environment variable.
        case environment
        /// `device =` in the configuration file, at this line.
        case configuration(file: String, line: Int)
    }

    /// The environment variable that overrides the file's default device.
    public static let environmentVariable = "CASTCTL_DEVICE"

    /// The device.
    public var reference: DeviceReference
    /// The alias it was reached through, if any.
    public var alias: String?
    /// Where the choice came from.
    public var source: Source

    /// Creates a choice.
    public init(reference: DeviceReference, alias: String? = nil, source: Source) {
        self.reference = reference
        self.alias = alias
        self.source = source
    }

    /// Chooses the device of a command.
    ///
    /// - Parameters:
    ///   - host: `--host`, which wins over everything (the configuration is not read then).
    ///   - port: `--port` (with `--host`).
    ///   - device: `--device`.
    ///   - environment: the process environment (`CASTCTL_DEVICE`).
    ///   - file: the configuration file, read only when needed.
    /// - Throws: ``CastctlError`` `.noDevice` when nothing names a device, `.invalidDevice`, and the
    ///   file's errors (a malformed file is an error even when `--device` names a device: it may hold the alias).
    public static func resolve(host: String?, port: Int, device: String?, environment: [String: String],
                               file: CastctlConfigFile) throws(CastctlError) -> DeviceChoice {
        if let host {
            do {
                let parsed = try KnownHost(parsing: host)
                // --host fe80::1 --port 8010: the option's port, unless the text carried one.
                let hasPort = host.hasPrefix("[") ? host.contains("]:") : host.filter({ $0 == ":" }).count == 1
                return DeviceChoice(reference: .address(hasPort ? parsed : KnownHost(host: parsed.host, port: port)), source: .hostOption)
            } catch {
                throw CastctlError(code: .invalidDevice, message: "--host \(error.message)")
            }
        }
        if let device { return try choose(device, source: .deviceOption, configuration: try file.read()) }
        if let value = environment[environmentVariable], !value.trimmingCharacters(in: .whitespaces).isEmpty {
            return try choose(value, source: .environment, configuration: try file.read())
        }
        let configuration = try file.read()
        if let (value, line) = configuration.device {
            return try choose(value, source: .configuration(file: file.path, line: line), configuration: configuration)
        }
        throw CastctlError(
            code: .noDevice,
            message: "No device given: use --device NAME|UUID|HOST[:PORT] (or an alias) or --host HOST, or set a default with "
                + "`castctl config set device …` or \(environmentVariable) (\(file.path) sets none)")
    }

    private static func choose(_ text: String, source: Source, configuration: CastctlConfiguration) throws(CastctlError) -> DeviceChoice {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if let target = configuration.alias(trimmed) {
            let name = configuration.aliases.first { $0.name.lowercased() == trimmed.lowercased() }?.name ?? trimmed
            return DeviceChoice(reference: try DeviceReference(parsing: target), alias: name, source: source)
        }
        do {
            return DeviceChoice(reference: try DeviceReference(parsing: trimmed), source: source)
        } catch {
            var error = error
            switch source {
            case .deviceOption: error.message = "--device: " + error.message
            case .environment: error.message = "\(environmentVariable): " + error.message
            case .configuration(let file, let line):
                error.file = file
                error.line = line
            case .hostOption: break
            }
            throw error
        }
    }

    /// Where the choice came from, in words.
    public var origin: String {
        switch source {
        case .hostOption: "--host"
        case .deviceOption: "--device"
        case .environment: Self.environmentVariable
        case .configuration(let file, let line): "the default device in \(file) line \(line)"
        }
    }

    /// `device “Living Room TV” (alias tv, from CASTCTL_DEVICE)`.
    public var description: String {
        let what: String
        switch reference {
        case .address(let host): what = "device at \(host)"
        case .id(let id): what = "device with id \(id)"
        case .name(let name): what = "device “\(name)”"
        }
        return what + " (" + (alias.map { "alias \($0), " } ?? "") + "from \(origin))"
    }
}
