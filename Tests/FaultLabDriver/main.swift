// A sender built on the public `Cast` façade alone, for the fault lab (Tests/InteropTests/FaultLab*):
// the lab's cases run against it as well as against `castctl cast`, so a recovery the façade gives a
// user's program is checked without castctl's own code in between.
//
//   FaultLabDriver --host H --port P [--reconnect-timeout S] [--reconnect-delay S] [--items T1,T2,…] [--rate R] [--subtitles LANG] [--control]
//   FaultLabDriver --device CAST-ID [--reconnect-timeout S]     (found over mDNS, by avahi-daemon)
//
// It starts a session, loads one movie URL (the receiver need not fetch it) 10 s in, or with
// `--items` a queue of one URL per title (…/T1.mp4 titled T1, …), at `--rate` (1 by default) and,
// with `--subtitles`, with text tracks 1 "en", 2 "fr", 3 "de" and the one in LANG on. It prints one JSON object per
// line for each session event: {"event":"loaded"|"connectionLost"|"reconnecting"|"rejoined"|
// "resumed"|"resumeFailed"|"ended", …}. `--reconnect-delay S` waits S seconds before every reconnect attempt
// (no jitter, no growth), so that only the network coming back can make an attempt sooner. With `--control` it reads commands on standard input, one a
// line (play, pause, stop, seek SECONDS, next, previous, volume LEVEL, mute, unmute), awaits each on
// the façade and answers it with {"event":"command","command":…,"ok":…,"code":…,"seconds":…}: the
// façade's own answer, never retried here (fault lab case 6). SIGINT or SIGTERM exits 0 at once
// (the receiver keeps playing); the session ending by itself exits 3.
import CastDiscovery
import Castor
import Foundation
import Observation

struct Arguments {
    var host: String?
    var port = 8009
    var device: String?
    var reconnectTimeout = 120.0
    var reconnectDelay: Int?
    var items: [String] = []
    var control = false
    var rate = 1.0
    var subtitles: String?

    init(_ arguments: [String]) throws {
        var rest = arguments[...]
        while let flag = rest.popFirst() {
            if flag == "--control" {
                control = true
                continue
            }
            guard let value = rest.popFirst() else { throw DriverError("\(flag) needs a value") }
            switch flag {
            case "--host": host = value
            case "--port": port = try Self.number(value, flag)
            case "--device": device = value
            case "--reconnect-timeout": reconnectTimeout = Double(try Self.number(value, flag))
            case "--reconnect-delay": reconnectDelay = try Self.number(value, flag)
            case "--items": items = value.split(separator: ",").map(String.init)
            case "--rate":
                guard let number = Double(value), (0.5...2).contains(number) else { throw DriverError("--rate: 0.5 to 2, not \(value)") }
                rate = number
            case "--subtitles":
                guard Self.languages.contains(value) else { throw DriverError("--subtitles: one of \(Self.languages)") }
                subtitles = value
            default: throw DriverError("unknown option \(flag)")
            }
        }
        guard (host == nil) != (device == nil) else { throw DriverError("give --host or --device") }
        guard items.allSatisfy({ $0.allSatisfy { $0.isLetter || $0.isNumber } }) else {
            throw DriverError("--items: titles are letters and digits, separated by commas")
        }
    }

    /// The languages of the text tracks `--subtitles` adds, track ids 1, 2, 3.
    static let languages = ["en", "fr", "de"]

    static func number(_ text: String, _ flag: String) throws -> Int {
        guard let value = Int(text), value > 0 else { throw DriverError("\(flag): not a positive number: \(text)") }
        return value
    }
}

struct DriverError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Prints one JSON object on its own line.
func emit(_ object: [String: Any]) {
    guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else { return }
    FileHandle.standardOutput.write(data + Data("\n".utf8))
}

func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

/// The device: the address given, or the record avahi-daemon finds by Cast id (bounded by 30 s).
func target(_ arguments: Arguments, _ cast: Cast) async throws -> CastDevice {
    if let host = arguments.host {
        let family: CastDeviceEndpoint.Family = host.contains(":") ? .ipv6 : .ipv4
        return CastDevice(id: CastDeviceID(UUID()), friendlyName: "\(host):\(arguments.port)",
                          endpoints: [CastDeviceEndpoint(address: host, family: family, port: arguments.port)])
    }
    let id = try CastDeviceID(parsing: arguments.device ?? "")
    // `Cast.devices` is observable: read it again each time the browser changes it.
    let (changes, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
    let deadline = Task {
        try? await Task.sleep(for: .seconds(30))
        continuation.finish()
    }
    defer {
        deadline.cancel()
        continuation.finish()
    }
    var iterator = changes.makeAsyncIterator()
    repeat {
        // `Cast` announces a change once its list is updated, so the value read after the wake-up is the new one.
        // The record with its IPv4 address: the lab's receivers listen on IPv4 only, and avahi also
        // announces the host's IPv6 link-local address, which can be resolved first.
        let device = withObservationTracking {
            cast.devices.first { $0.id == id && $0.endpoints.contains { $0.family == .ipv4 } }
        } onChange: {
            continuation.yield()
        }
        if let device { return device }
    } while await iterator.next() != nil
    throw DriverError("no device \(id) found over mDNS within 30 s")
}

func run() async -> Int32 {
    let arguments: Arguments
    do {
        arguments = try Arguments(Array(CommandLine.arguments.dropFirst()))
    } catch {
        FileHandle.standardError.write(Data("FaultLabDriver: \(error)\n".utf8))
        return 64
    }
    let timeout = Duration.milliseconds(Int64(arguments.reconnectTimeout * 1000))
    let policy = arguments.reconnectDelay.map {
        CastReconnectPolicy(maxAttempts: Int(Int32.max), initialDelay: .seconds($0), maxDelay: .seconds($0), jitter: 0, timeout: timeout)
    } ?? .within(timeout)
    let configuration = CastConfiguration(reconnectPolicy: policy)
    let cast = Cast(configuration: configuration, browser: arguments.device == nil ? nil : AvahiDeviceBrowser(),
                    connector: TLSDeviceConnector(connectTimeout: .seconds(5)))
    let events = cast.events
    do {
        let device = try await target(arguments, cast)
        try await cast.startSession(with: device)
        guard let player = cast.player else { throw DriverError("no player after the session started") }
        func movie(_ name: String, _ title: String) -> CastAsset {
            var asset = CastAsset.url(URL(string: "http://10.77.0.2:9/faultlab/\(name).mp4")!,
                                      configuration: CastAssetURLConfiguration(mimeType: "video/mp4", duration: 600),
                                      metadata: .init(title: title))
            if arguments.subtitles != nil {
                asset.tracks = Arguments.languages.enumerated().map { index, language in
                    .text(id: index + 1, contentId: "http://10.77.0.2:9/faultlab/\(name).\(language).vtt", language: language)
                }
            }
            return asset
        }
        let assets = arguments.items.isEmpty ? [movie("movie", "Fault lab movie")] : arguments.items.map { movie($0, $0) }
        var options = CastLoadOptions(time: .seconds(10), playbackSpeed: arguments.rate)
        if let language = arguments.subtitles, let index = Arguments.languages.firstIndex(of: language) {
            options.activeTrackIds = [index + 1]
        }
        try await player.loadItems(from: assets, with: options)
        emit(["event": "loaded", "position": player.mediaStatus?.currentTime ?? -1])
    } catch {
        FileHandle.standardError.write(Data("FaultLabDriver: \(error)\n".utf8))
        return 1
    }
    let controller = arguments.control ? Task { await Control.run(Control.lines(), on: cast) } : nil
    defer { controller?.cancel() }
    for await event in events {
        switch event {
        case .connectionLost(let error): emit(["event": "connectionLost", "message": error.message])
        case .reconnecting(let attempt, let delay): emit(["event": "reconnecting", "attempt": attempt, "nextIn": seconds(delay)])
        case .rejoined(let attempt):
            // The position extrapolated to now from the status the rejoin fetched.
            let position = cast.player?.time().map(seconds) ?? cast.player?.mediaStatus?.currentTime ?? -1
            emit(["event": "rejoined", "attempt": attempt, "position": position])
        case .resumed(let state): emit(["event": "resumed", "position": seconds(state.options.time ?? .zero)])
        case .resumeFailed(let error): emit(["event": "resumeFailed", "message": error.message])
        case .ended(let error):
            emit(["event": "ended", "message": error?.message ?? "ended by this sender"])
            return 3
        default: break
        }
    }
    return 0
}

/// `--control`: commands on standard input, each awaited on the façade and answered once.
enum Control {
    /// Lines of standard input as they arrive (at most 64 unread); the stream ends at end of file.
    /// Read with read(2) on a thread of its own, so no stdio lock is held while it waits.
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
                if pending.count > 4096 { pending.removeAll() }  // not a command: dropped, not grown without bound
            }
            continuation.finish()
        }
        return stream
    }

    /// Runs each line of `input` on the current session of `cast`, one at a time, printing each result.
    static func run(_ input: AsyncStream<String>, on cast: Cast) async {
        for await line in input {
            let command = line.trimmingCharacters(in: .whitespaces)
            guard !command.isEmpty else { continue }
            let started = ContinuousClock.now
            var object: [String: Any] = ["event": "command", "command": command]
            do throws(CastError) {
                try await perform(command.split(separator: " ").map(String.init), on: cast)
                object["ok"] = true
            } catch {
                object["ok"] = false
                object["code"] = error.code.description
                object["message"] = error.message
            }
            object["seconds"] = (seconds(ContinuousClock.now - started) * 1000).rounded() / 1000
            emit(object)
        }
    }

    static func perform(_ words: [String], on cast: Cast) async throws(CastError) {
        guard let player = cast.player, let manager = cast.deviceManager() else {
            throw CastError(code: .noSession, message: "There is no session")
        }
        func number() throws(CastError) -> Double {
            guard words.count == 2, let value = Double(words[1]), value >= 0 else {
                throw CastError(code: .invalidArgument, message: "\(words[0]) takes one number")
            }
            return value
        }
        switch words[0] {
        case "play": try await player.play()
        case "pause": try await player.pause()
        case "stop": try await player.stop()
        case "seek": try await player.seek(to: .milliseconds(Int64(try number() * 1000)))
        case "next": try await player.advanceToNextItem()
        case "previous": try await player.returnToPreviousItem()
        case "volume": try await manager.setVolume(Float(min(try number(), 1)))
        case "mute": try await manager.setMuted(true)
        case "unmute": try await manager.setMuted(false)
        default: throw CastError(code: .invalidArgument, message: "unknown command \(words[0])")
        }
    }
}

/// Exits 0 on SIGINT or SIGTERM.
let stopping = DispatchQueue(label: "stop")
var signalSources: [any DispatchSourceSignal] = []
for number in [SIGINT, SIGTERM] {
    signal(number, SIG_IGN)
    let source = DispatchSource.makeSignalSource(signal: number, queue: stopping)
    source.setEventHandler { exit(0) }
    source.resume()
    signalSources.append(source)
}
let status = await run()
exit(status)
