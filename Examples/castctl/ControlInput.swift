import CastJSON
import Castor
import Foundation

/// `castctl cast --control`: commands read from standard input, one a line, each awaited on the
/// façade and answered with one result line, so a script can drive a cast it started.
///
/// A command sent while the device is away fails at once with its typed error (`connectionLost`),
/// and one in flight when the connection drops fails with it too: castctl never re-sends a command
/// on its own. Unknown commands are answered `invalidArgument` and change nothing.
enum ControlInput {
    /// What `--help` lists.
    static let help = "play, pause, seek SECONDS, next, previous, volume LEVEL (0-1), mute, unmute, stop"

    /// Lines of standard input as they arrive; the stream ends at end of file.
    ///
    /// Read with read(2), not stdio: a thread blocked in `readLine()` holds the lock of `stdin`,
    /// and every `fflush(nil)` elsewhere (status lines) would wait for it forever.
    static func lines() -> AsyncStream<String> {
        let (stream, continuation) = AsyncStream<String>.makeStream(bufferingPolicy: .bufferingNewest(64))
        Thread.detachNewThread {
            var pending: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { break }
                pending += buffer[..<count]
                while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    continuation.yield(String(decoding: pending[..<newline], as: UTF8.self))
                    pending.removeSubrange(...newline)
                }
                // A line longer than 4 KiB is not a command: drop it rather than grow without bound.
                if pending.count > 4096 { pending.removeAll() }
            }
            if !pending.isEmpty { continuation.yield(String(decoding: pending, as: UTF8.self)) }
            continuation.finish()
        }
        return stream
    }

    /// Runs each line of `input` on the current session of `cast`, printing each result.
    static func run(_ input: AsyncStream<String>, on cast: Castor.Cast, json: Bool) async {
        for await line in input {
            let command = line.trimmingCharacters(in: .whitespaces)
            guard !command.isEmpty else { continue }
            let started = ContinuousClock.now
            let result: CastError?
            do throws(CastError) {
                try await perform(command, on: cast)
                result = nil
            } catch {
                result = error
            }
            let seconds = SessionNarrator.seconds(ContinuousClock.now - started)
            report(command, error: result, seconds: seconds, json: json)
        }
    }

    static func perform(_ command: String, on cast: Castor.Cast) async throws(CastError) {
        let words = command.split(separator: " ").map(String.init)
        guard let player = cast.player else {
            throw CastError(code: .noSession, message: "There is no session")
        }
        func number(_ range: ClosedRange<Double>) throws(CastError) -> Double {
            guard words.count == 2, let value = Double(words[1]), range.contains(value) else {
                throw CastError(code: .invalidArgument, message: "\(words[0]) takes one number in \(range.lowerBound)...\(range.upperBound)")
            }
            return value
        }
        func volume() throws(CastError) -> CastDeviceManager {
            guard let manager = cast.deviceManager() else { throw CastError(code: .noSession, message: "There is no session") }
            return manager
        }
        switch words[0] {
        case "play": try await player.play()
        case "pause": try await player.pause()
        case "stop": try await player.stop()
        case "seek": try await player.seek(to: .milliseconds(Int64(try number(0...86_400 * 365) * 1000)))
        case "next": try await player.advanceToNextItem()
        case "previous": try await player.returnToPreviousItem()
        case "volume": try await volume().setVolume(Float(try number(0...1)))
        case "mute": try await volume().setMuted(true)
        case "unmute": try await volume().setMuted(false)
        default: throw CastError(code: .invalidArgument, message: "Unknown command “\(words[0])”; known: \(help)")
        }
    }

    static func report(_ command: String, error: CastError?, seconds: Double, json: Bool) {
        if json {
            var object: [String: JSONValue] = ["event": "command", "command": .string(command), "ok": .bool(error == nil),
                                               "seconds": .number((seconds * 1000).rounded() / 1000)]
            if let error {
                object["code"] = .string(error.code.description)
                object["message"] = .string(error.message)
            }
            print(JSONValue.object(object).serialized())
        } else if let error {
            print("castctl: \(command): failed (\(error.code)): \(error.message)")
        } else {
            print("castctl: \(command): done")
        }
        fflush(nil)
    }
}
