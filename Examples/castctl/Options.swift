import ArgumentParser
import CastChannels
import CastJSON
import CastTLS
import Castor
import CastctlKit
import Foundation
import Logging
import Synchronization

/// Where the device is and how to talk to it.
struct DeviceOptions: ParsableArguments {
    @Option(name: .long, help: "The device's address (IPv4, IPv6 or host name).")
    var host: String?

    @Option(name: .long, help: "The device's Cast port (with --host).")
    var port: Int = 8009

    @Option(name: .long, help: ArgumentHelp(
        "The device: an alias, its friendly name or UUID (found through mDNS discovery), or HOST:PORT.",
        discussion: "Without --host or --device: $CASTCTL_DEVICE, else the default device of `castctl config set device`."))
    var device: String?

    @Option(name: .long, help: "Seconds the whole command may take: connect, TLS, device authentication and its requests.")
    var timeout: Double = 10

    @Flag(name: .long, help: "Print the result as JSON.")
    var json = false

    @Flag(name: .long, help: "Refuse a device that device authentication does not prove genuine.")
    var requireGenuine = false

    @Option(name: .long, help: "A PEM file of extra trusted Cast roots (for test devices: the file cast-receiver --export-trust-root writes).")
    var trustRoot: String?

    @OptionGroup var logging: LoggingOptions

    /// What is left of the command's budget (all of it before ``withConnection(_:)`` starts).
    var requestTimeout: Duration { CommandBudget.current?.remaining ?? .milliseconds(Int64(timeout * 1000)) }

    func validate() throws {
        guard host == nil || device == nil else { throw ValidationError("Give at most one of --host and --device") }
    }

    /// The device this command talks to: `--host`, `--device` (an alias or NAME|UUID|HOST[:PORT]),
    /// `CASTCTL_DEVICE`, or the configuration's default device; logged at debug level (`-v`).
    func choice() throws(CastctlError) -> DeviceChoice {
        let choice = try DeviceChoice.resolve(host: host, port: port, device: device,
                                              environment: ProcessInfo.processInfo.environment, file: .standard())
        Output.logger.debug("castctl: using the \(choice)")
        return choice
    }

    /// The host and port to connect to: an address as given, or a name or id found through discovery.
    func target() async throws -> (host: String, port: Int) {
        let choice = try choice()
        if case .address(let known) = choice.reference { return (known.host, known.port) }
        return try await Progress.during("looking for the \(choice) on the network") {
            try await DeviceResolver.resolve(choice.reference.description, timeout: .milliseconds(Int64(min(timeout, 5) * 1000)))
        }
    }

    /// Connects, starts a channel connection and runs `body`, closing the connection afterwards.
    ///
    /// `--timeout` is one budget for all of it: discovery, TCP connect and TLS, device
    /// authentication (at most 5 s of it), the first status and the command's own requests. When
    /// it runs out the connection is closed and the command fails with what it was waiting for.
    func withConnection<T>(_ body: (CastConnection, ReceiverStatus) async throws -> T) async throws -> T {
        let budget = CommandBudget(total: .milliseconds(Int64(timeout * 1000)))
        return try await CommandBudget.$current.withValue(budget) {
            try await connect(within: budget, body)
        }
    }

    private func connect<T>(within budget: CommandBudget, _ body: (CastConnection, ReceiverStatus) async throws -> T) async throws -> T {
        let (host, port) = try await target()
        var trust = CastTrustStore.cast
        if let trustRoot {
            let pem = try String(contentsOfFile: trustRoot, encoding: .utf8)
            trust = trust.merging(try CastTrustStore(deviceRootsPEM: pem))
        }
        let transport = try await TLSCastTransport.connect(
            host: host, port: port, configuration: .init(connectTimeout: budget.remaining))
        let left = budget.remaining
        let connection = CastConnection(
            transport: transport,
            configuration: .init(
                userAgent: "castctl", requestTimeout: left, launchTimeout: left,
                deviceAuthPolicy: requireGenuine ? .require : .report, deviceAuthTrustStore: trust,
                deviceAuthTimeout: min(.seconds(5), left)),
            logger: Output.logger)
        let expired = Mutex<[String]?>(nil)
        let watchdog = Task {
            do { try await ContinuousClock().sleep(until: budget.deadline) } catch { return }
            guard !budget.isSettled else { return }
            expired.withLock { $0 = connection.requestLabelsInFlight }
            await connection.close()
        }
        defer { watchdog.cancel() }
        do {
            let status = try await connection.start()
            let result = try await body(connection, status)
            await connection.close()
            return result
        } catch {
            await connection.close()
            if let error = error as? CastChannelError, error.code == .timeout { throw error }  // it says what it waited for
            if let waiting = expired.withLock({ $0 }) {
                let what = waiting.isEmpty ? "the device" : "the reply to " + waiting.sorted().joined(separator: ", ")
                throw CastChannelError(
                    code: .timeout,
                    message: "--timeout \(budget.total.castDescription) ran out while waiting for \(what) from \(host):\(port) "
                        + "(connect, TLS, device authentication and the command's requests share it)")
            }
            throw error
        }
    }
}

/// The one time budget of a castctl command, shared by everything the command waits for until
/// it has its answer. A command that then stays on (`cast` follows playback until Ctrl-C) settles
/// the budget: from then on each request gets the whole `--timeout` again.
final class CommandBudget: Sendable {
    /// The budget of the command running in this task, if it has one.
    @TaskLocal static var current: CommandBudget?

    /// The whole budget (`--timeout`).
    let total: Duration
    /// When it runs out.
    let deadline: ContinuousClock.Instant
    private let settledFlag = Mutex(false)

    init(total: Duration) {
        self.total = total
        deadline = ContinuousClock.now.advanced(by: total)
    }

    /// What is left (never negative); the whole budget once settled.
    var remaining: Duration {
        isSettled ? total : max(.zero, ContinuousClock.now.duration(to: deadline))
    }

    /// The command has its answer; what follows is not bounded by this budget.
    func settle() { settledFlag.withLock { $0 = true } }

    var isSettled: Bool { settledFlag.withLock { $0 } }
}

/// Prints results as text or JSON and turns errors into one line on standard error.
enum Output {
    /// The library's logger for castctl, at the level of `--log-level`, `-v` or `CASTOR_LOG_LEVEL`
    /// (errors only by default, so standard error holds just castctl's own line).
    static var logger: Logger { CastctlLogging.logger }

    static func print(_ value: JSONValue, text: String, json: Bool) {
        if json {
            Swift.print(value.serialized())
        } else {
            Swift.print(text)
        }
        // One line per event, at once: commands that follow a session are read line by line through pipes (jq,
        // tests), where stdout would otherwise hold the lines in its buffer until it fills or castctl exits.
        fflush(nil)
    }

    /// Runs a command body; on failure prints one line and exits non-zero.
    static func run(_ body: () async throws -> Void) async throws {
        do {
            try await body()
        } catch let error as ExitCode {
            throw error
        } catch let error as ValidationError {
            throw error
        } catch let error as CastError where error.code == .connectionLost {
            // A device lost in the middle of a command is a loss, not an ordinary failure.
            FileHandle.standardError.write(Data("castctl: lost the device: \(error.message)\n".utf8))
            throw ExitCode(SessionExit.lost.rawValue)
        } catch {
            FileHandle.standardError.write(Data("castctl: \(describe(error))\n".utf8))
            throw ExitCode.failure
        }
    }

    static func describe(_ error: any Error) -> String {
        switch error {
        case let error as CastChannelError: return error.description
        case let error as CastTransportError: return error.description
        default: return "\(error)"
        }
    }
}

extension ReceiverStatus {
    /// The status as the JSON castctl prints.
    var summaryJSON: JSONValue {
        var apps: [JSONValue] = []
        for app in applications {
            apps.append([
                "appId": .string(app.appId), "displayName": .string(app.displayName), "sessionId": .string(app.sessionId),
                "transportId": .string(app.transportId), "isIdleScreen": .bool(app.isIdleScreen),
                "statusText": app.statusText.map(JSONValue.string) ?? .null,
                "namespaces": .array(app.namespaces.map(JSONValue.string)),
            ])
        }
        return [
            "applications": .array(apps),
            "volume": [
                "level": volume.level.map(JSONValue.number) ?? .null, "muted": volume.muted.map(JSONValue.bool) ?? .null,
                "controlType": volume.controlType.map { .string($0.rawValue) } ?? .null,
            ],
            "isActiveInput": isActiveInput.map(JSONValue.bool) ?? .null,
            "isStandBy": isStandBy.map(JSONValue.bool) ?? .null,
        ]
    }

    /// The status as lines of text.
    var summaryText: String {
        var lines: [String] = []
        if applications.isEmpty { lines.append("app: none (idle)") }
        for app in applications {
            lines.append("app: \(app.displayName) (\(app.appId))\(app.isIdleScreen ? " [idle screen]" : "") session \(app.sessionId)")
        }
        let level = volume.level.map { String(format: "%.2f", $0) } ?? "?"
        lines.append("volume: \(level)\(volume.muted == true ? " (muted)" : "")\(volume.controlType == .fixed ? " [fixed]" : "")")
        return lines.joined(separator: "\n")
    }
}

extension DeviceOptions {
    /// The arguments that give these settings to `DeviceOptions.parse`, for commands that declare
    /// their own device flags (`tui`, `mpris`) and then connect like every other device command.
    static func arguments(host: String?, port: Int, device: String?, timeout: Double, requireGenuine: Bool,
                          trustRoot: String?, logLevel: String) -> [String] {
        var arguments: [String] = []
        if let host { arguments += ["--host", host, "--port", String(port)] }
        if let device { arguments += ["--device", device] }
        arguments += ["--timeout", String(timeout)]
        if requireGenuine { arguments.append("--require-genuine") }
        if let trustRoot { arguments += ["--trust-root", trustRoot] }
        arguments += ["--log-level", logLevel]
        return arguments
    }
}
