import CastChannels
import CastMedia
import CastTLS

// A Cast device: its address (and port) on the command line, or `swift run cast-receiver` here.
let arguments = CommandLine.arguments.dropFirst()
let host = arguments.first ?? "127.0.0.1"
let port = arguments.dropFirst().first.flatMap { Int($0) } ?? 8009

let transport = try await TLSCastTransport.connect(host: host, port: port)
let connection = CastConnection(transport: transport)
let media = CastMediaChannel()
try await connection.add(media)
try await connection.start()
_ = try await connection.receiver.launch(appId: CastAppID.defaultMediaReceiver)
_ = try await connection.waitUntilConnected(media)
try await media.load(MediaInformation(contentId: "https://example.com/movie.mp4", contentType: "video/mp4"))
for await status in media.statuses {   // the current status first, then every change
    print(status?.playerState.rawValue ?? "no media")
    if status?.playerState == .playing { break }
}
await connection.close()
