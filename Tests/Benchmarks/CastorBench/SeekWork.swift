import CastChannels
import CastJSON
import CastMedia
@_spi(Benchmarking) import CastEmulator
import CastTLS
import NIOCore

/// `seek-work --count N --side sender|receiver`: the protocol work of N SEEK round trips on one side,
/// on one thread, without sockets, TLS or tasks, for instruction counts under callgrind (which cannot
/// run the network commands): `--count N` minus `--count 0` divided by N is one SEEK's cost.
///
/// - receiver: a SEEK frame (one of 500 made beforehand, each to another position) decoded, handed to the emulated receiver's engine (playing the benchmark's
///   media), its MEDIA_STATUS reply framed: what `EmulatedReceiver` does per request.
/// - sender: the SEEK built and framed (`CastMediaChannel.seek`'s request), then that reply's frame decoded, its
///   requestId read for routing and its MEDIA_STATUS decoded from the bytes with its type, in one pass, a `media` the
///   previous status carried not read again: what `CastConnection` and `CastMediaChannel` do per command.
enum SeekWork {
    static func run(_ arguments: Arguments) throws {
        let count = try arguments.int("count", 1000)
        let side = try arguments.string("side")
        let sender = "sender-0"
        var engine = EmulatedReceiverEngineDriver()
        engine.open(socket: 1, now: .zero)
        func send(_ json: JSONValue, to destination: String, _ namespace: CastNamespace) -> [CastMessage] {
            engine.receive(CastMessage(sourceId: sender, destinationId: destination, namespace: namespace.rawValue, json: json),
                           from: 1, now: .zero)
        }
        _ = send(["type": "CONNECT"], to: "receiver-0", .connection)
        let launched = send(["type": "LAUNCH", "appId": .string(CastAppID.defaultMediaReceiver), "requestId": 1], to: "receiver-0", .receiver)
        guard let transportId = launched.lazy.compactMap({ $0.json?["status"]?["applications"]?[0]?["transportId"]?.stringValue }).first
        else { throw BenchError("LAUNCH did not start the Default Media Receiver") }
        _ = send(["type": "CONNECT"], to: transportId, .connection)
        let load: JSONValue = ["type": "LOAD", "media": try CastMediaChannel.json(Fixture.media), "autoplay": true,
                               "currentTime": 0, "requestId": 2]
        guard let sessionId = send(load, to: transportId, .media).lazy
            .compactMap({ $0.json?["status"]?[0]?["mediaSessionId"]?.intValue }).first
        else { throw BenchError("LOAD did not answer with a media session") }

        func seekRequest(_ requestId: Int) -> CastMessage {
            CastMessage(sourceId: sender, destinationId: transportId, namespace: CastNamespace.media.rawValue,
                        json: ["type": "SEEK", "currentTime": .number(Double(10 + requestId % 500)),
                               "mediaSessionId": .number(Double(sessionId)), "requestId": .number(Double(requestId))])
        }
        func frame(_ message: CastMessage) throws -> ByteBuffer {
            var buffer = ByteBuffer()
            try CastFrameEncoder().encodeFrame(message, into: &buffer)
            return buffer
        }
        let requestFrame = try frame(seekRequest(100))
        // The sender's frames, made before counting (a run of --count 0 makes them too): building a
        // request is the sender's work, not the receiver's.
        let requestFrames = try (0..<500).map { try frame(seekRequest(101 + $0)) }
        let replies = engine.receive(seekRequest(100), from: 1, now: .zero)
        // A device broadcasts the MEDIA_STATUS that answers a command, with the command's requestId.
        guard let reply = replies.first(where: { $0.destinationId == sender || $0.destinationId == "*" }),
              let replyText = reply.text, try MediaStatusMessage(utf8: replyText.utf8).first?.currentTime == 110
        else { throw BenchError("SEEK did not answer with its MEDIA_STATUS") }
        let replyFrame = try frame(reply)

        switch side {
        case "receiver":
            // One decoder for the whole run, as a connection's pipeline keeps it.
            var decoder = CastFrameDecoder()
            for index in 0..<count {
                var buffer = requestFrames[index % requestFrames.count]
                guard let request = try decoder.decodeFrame(from: &buffer) else { throw BenchError("frame did not decode") }
                for message in engine.receive(request, from: 1, now: .zero) { Decode.blackHole(try frame(message)) }
            }
        case "sender":
            // As the media channel keeps it: the media objects of the latest statuses.
            var memory = MediaStatusMemory()
            var decoder = CastFrameDecoder()
            for index in 0..<count {
                // The SEEK as the channel and the connection build it: the command, its
                // `mediaSessionId` set in place, its text written with the `requestId`.
                var command = CastMediaChannel.seekCommand(to: Double(10 + index % 500), resumeState: nil, customData: nil)
                command["mediaSessionId"] = .number(Double(sessionId))
                Decode.blackHole(try frame(CastMessage(
                    sourceId: sender, destinationId: transportId, namespace: CastNamespace.media.rawValue,
                    payload: .string(command.serialized(setting: "requestId", to: .number(Double(101 + index)))))))
                var buffer = replyFrame
                guard let message = try decoder.decodeFrame(from: &buffer) else { throw BenchError("frame did not decode") }
                let routed = CastChannelMessage(message)
                Decode.blackHole(routed.requestId)
                // The media channel reads the routing type in the same pass as the status.
                // From the payload's own UTF-8, as `CastMediaChannel` reads it.
                var text = message.text ?? ""
                let reply = try text.withUTF8 { try MediaStatusMessage.routed(buffer: $0, remembering: &memory) }
                Decode.blackHole(reply.type)
                Decode.blackHole(reply.message.first)
            }
        default:
            throw BenchError("--side is sender or receiver")
        }
        emit(["counted": count, "side": side, "request_bytes": requestFrame.readableBytes, "reply_bytes": replyFrame.readableBytes])
    }
}
