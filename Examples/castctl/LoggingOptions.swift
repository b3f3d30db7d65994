import ArgumentParser
import Foundation
import Logging
import Synchronization

/// How much castctl and the Castor libraries log, on standard error.
///
/// The level comes from `--log-level`, else from `-v` (debug) / `-vv` (trace), else from the
/// `CASTOR_LOG_LEVEL` environment variable, else `error`: by default standard error holds only
/// castctl's own one-line error, and results on standard output stay parseable.
struct LoggingOptions: ParsableArguments {
    @Flag(name: .shortAndLong, help: "Log more on standard error: -v debug, -vv trace.")
    var verbose: Int

    @Option(name: .long, help: "The log level: trace, debug, info, notice, warning, error or critical (default: $CASTOR_LOG_LEVEL, else error).")
    var logLevel: Logger.Level?

    /// The environment variable giving the default level.
    static let environmentVariable = "CASTOR_LOG_LEVEL"

    /// The level these options ask for.
    func level(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> Logger.Level {
        if let logLevel { return logLevel }
        switch verbose {
        case 0: break
        case 1: return .debug
        default: return .trace
        }
        guard let text = environment[Self.environmentVariable], !text.isEmpty else { return .error }
        guard let level = Logger.Level(rawValue: text.lowercased()) else {
            throw ValidationError("\(Self.environmentVariable)=\(text) is not a log level (trace, debug, info, notice, warning, error, critical)")
        }
        return level
    }

    /// Sets the process's log level before the command runs (ArgumentParser validates option groups
    /// before `run()`, and every command that logs holds these options).
    func validate() throws {
        CastctlLogging.install(level: try level())
    }
}

/// The process-wide logging set-up: one `StreamLogHandler` on standard error at the chosen level.
enum CastctlLogging {
    private static let level = Mutex<Logger.Level>(.error)
    private static let bootstrap: Void = LoggingSystem.bootstrap { label in
        var handler = StreamLogHandler.standardError(label: label)
        handler.logLevel = CastctlLogging.level.withLock { $0 }
        return handler
    }

    /// Sets the level of every logger made from now on (and bootstraps swift-log once).
    static func install(level newLevel: Logger.Level) {
        level.withLock { $0 = newLevel }
        _ = bootstrap
    }

    /// A logger at the chosen level (for libraries that take one).
    static var logger: Logger {
        _ = bootstrap
        return Logger(label: "castctl")
    }
}

extension Logger.Level: @retroactive ExpressibleByArgument {}
