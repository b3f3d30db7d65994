// A sender built on the public `Cast` façade alone, for the fault lab (Tests/InteropTests/FaultLab*):
// the lab's cases run against it as well as against `castctl cast`, so a recovery the façade gives a
// user's program is checked without castctl's own code in between.
//
//   FaultLabDriver --host H --port P [--reconnect-timeout S]
//   FaultLabDriver --device CAST-ID [--reconnect-timeout S]     (found over mDNS, by avahi-daemon)
//
// It starts a session, loads one movie URL (the receiver need not fetch it) 10 s in, and prints one
// JSON object per line for each session event: {"event":"loaded"|"connectionLost"|"reconnecting"|
// "rejoined"|"resumed"|"resumeFailed"|"ended", …}. SIGINT or SIGTERM exits 0 at once (the receiver keeps playing);
// the session ending by itself exits 3.
import CastDiscovery
import Castor
import Foundation

struct Arguments {
    var host: String?
    var port = 8009
    var device: String?
    var reconnectTimeout = 120.0

    init(_ arguments: [String]) throws {
        var rest = arguments[...]
        while let flag = rest.popFirst() {
            guard let value = rest.popFirst() else { throw DriverError("\(flag) needs a value") }
            switch flag {
            case "--host": host = value
            case "--port": port = try Self.number(value, flag)
            case "--device": device = value
            case "--reconnect-timeout": reconnectTimeout = Double(try Self.number(value, flag))
            default: throw DriverError("unknown option \(flag)")
            }
        }
        guard (host == nil) != (device == nil) else { throw DriverError("give --host or --device") }
    }

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
    let deadline = ContinuousClock.now + .seconds(30)
    while ContinuousClock.now < deadline {
        if let device = cast.devices.first(where: { $0.id == id && !$0.endpoints.isEmpty }) { return device }
        try await Task.sleep(for: .milliseconds(100))
    }
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
    let configuration = CastConfiguration(reconnectPolicy: .within(.milliseconds(Int64(arguments.reconnectTimeout * 1000))))
    let cast = Cast(configuration: configuration, browser: arguments.device == nil ? nil : AvahiDeviceBrowser(),
                    connector: TLSDeviceConnector(connectTimeout: .seconds(5)))
    let events = cast.events
    do {
        let device = try await target(arguments, cast)
        try await cast.startSession(with: device)
        guard let player = cast.player else { throw DriverError("no player after the session started") }
        let movie = CastAsset.url(URL(string: "http://10.77.0.2:9/faultlab/movie.mp4")!,
                                  configuration: CastAssetURLConfiguration(mimeType: "video/mp4", duration: 600),
                                  metadata: .init(title: "Fault lab movie"))
        try await player.loadItems(from: [movie], with: CastLoadOptions(time: .seconds(10)))
        emit(["event": "loaded", "position": player.mediaStatus?.currentTime ?? -1])
    } catch {
        FileHandle.standardError.write(Data("FaultLabDriver: \(error)\n".utf8))
        return 1
    }
    for await event in events {
        switch event {
        case .connectionLost(let error): emit(["event": "connectionLost", "message": error.message])
        case .reconnecting(let attempt, let delay): emit(["event": "reconnecting", "attempt": attempt, "nextIn": seconds(delay)])
        case .rejoined(let attempt):
            emit(["event": "rejoined", "attempt": attempt, "position": cast.player?.mediaStatus?.currentTime ?? -1])
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
