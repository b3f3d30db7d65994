import CastChannels
import CastJSON
import CastMedia
@_spi(Benchmarking) import CastTLS
import Foundation
import NIOCore
import NIOEmbedded
import Synchronization

/// `decode --fixture media_status.json [--millis ms] [--repeats r] [--stage name] [--count n]`: the codec micro-benchmarks, one
/// thread. The headline is `full`: frame → CastMessage (protobuf) → JSON → ``MediaStatusMessage``,
/// the work the sender does for every MEDIA_STATUS it receives.
enum Decode {
    @inline(never)
    static func blackHole<T>(_ value: T) {
        withExtendedLifetime(value) {}
    }

    static func run(_ arguments: Arguments) throws {
        let text = try String(contentsOfFile: try arguments.string("fixture"), encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let seconds = Double(try arguments.int("millis", 500)) / 1000
        let repeats = try arguments.int("repeats", 5)
        let message = CastMessage(sourceId: "web-5", destinationId: "sender-0",
                                  namespace: "urn:x-cast:com.google.cast.media", payload: .string(text))
        var frame = ByteBuffer()
        try CastFrameEncoder().encodeFrame(message, into: &frame)
        let json = try JSONValue(parsing: text)
        // Check once that the whole path really produces the status (no silently failing benchmark).
        var check = frame
        var checkDecoder = CastFrameDecoder()
        guard let decoded = try checkDecoder.decodeFrame(from: &check),
              let decodedJSON = decoded.json, let decodedText = decoded.text,
              let status = try MediaStatusMessage(json: decodedJSON).first,
              status.media?.tracks?.count == 3, status.items?.count == 3
        else { throw BenchError("the fixture does not decode to a MEDIA_STATUS with 3 tracks and 3 items") }
        // The byte reader (the path measured as `full`) must give exactly what the tree gives.
        guard try MediaStatusMessage(utf8: decodedText.utf8) == MediaStatusMessage(json: decodedJSON) else {
            throw BenchError("MediaStatusMessage(utf8:) and MediaStatusMessage(json:) disagree on the fixture")
        }

        // The socket transport's inbound handlers after TLS, on an embedded channel: a frame read → its
        // message handed to the connection.
        let inbound = EmbeddedChannel()
        let delivered = Mutex(0)
        try CastInboundPipelineBenchmark.install(on: inbound) { event in
            if case .message(let message) = event, message.namespace == CastNamespace.media.rawValue {
                delivered.withLock { $0 += 1 }
            }
        }
        try inbound.writeInbound(frame)
        guard delivered.withLock({ $0 }) == 1 else { throw BenchError("the inbound handlers did not deliver the frame") }

        let stages: [(String, () throws -> Void)] = [
            ("full", {
                var buffer = frame
                var decoder = CastFrameDecoder()
                guard let message = try decoder.decodeFrame(from: &buffer), var text = message.text else {
                    throw BenchError("frame did not decode")
                }
                // From the payload's own UTF-8, as the media channel reads it.
                blackHole(try text.withUTF8 { try MediaStatusMessage(buffer: $0) }.first)
            }),
            ("full_tree", {
                var buffer = frame
                var decoder = CastFrameDecoder()
                guard let message = try decoder.decodeFrame(from: &buffer), let json = message.json else {
                    throw BenchError("frame did not decode")
                }
                blackHole(try MediaStatusMessage(json: json).first)
            }),
            // What the sender's connection and media channel do with one MEDIA_STATUS reply: the
            // connection's machine wraps it in one CastChannelMessage and reads its requestId from the
            // bytes as far as needed (to complete the request); the media channel reads the status and
            // its routing type from the bytes in one pass.
            ("sender_reply", {
                var buffer = frame
                var decoder = CastFrameDecoder()
                guard let message = try decoder.decodeFrame(from: &buffer), var text = message.text else {
                    throw BenchError("frame did not decode")
                }
                let routed = CastChannelMessage(message)
                blackHole(routed.requestId)
                let reply = try text.withUTF8 { try MediaStatusMessage.routed(buffer: $0) }
                blackHole(reply.type)
                blackHole(reply.message.first)
            }),
            // The same before routing read envelopes: one tree per message, shared, then decoded from the tree.
            ("sender_reply_tree", {
                var buffer = frame
                var decoder = CastFrameDecoder()
                guard let message = try decoder.decodeFrame(from: &buffer), let json = message.json else {
                    throw BenchError("frame did not decode")
                }
                blackHole(json["requestId"]?.intValue)
                blackHole(json["type"]?.stringValue)
                blackHole(try MediaStatusMessage(json: json).first)
            }),
            ("inbound", { try inbound.writeInbound(frame) }),
            ("envelope", { blackHole(JSONEnvelope(text.utf8)) }),
            ("frame", {
                var buffer = frame
                var decoder = CastFrameDecoder()
                blackHole(try decoder.decodeFrame(from: &buffer))
            }),
            ("json_parse", { blackHole(try JSONValue(parsing: text)) }),
            ("media_status_from_json", { blackHole(try MediaStatusMessage(json: json).first) }),
            ("media_status_from_bytes", {
                var text = text
                blackHole(try text.withUTF8 { try MediaStatusMessage(buffer: $0) }.first)
            }),
            ("frame_encode", {
                var buffer = ByteBuffer()
                try CastFrameEncoder().encodeFrame(message, into: &buffer)
                blackHole(buffer)
            }),
        ]
        var results: [String: Any] = ["frame_bytes": frame.readableBytes, "repeats": repeats, "seconds_each": seconds]
        let only = arguments.values["stage"]
        // `--count N`: run each stage exactly N times, untimed (for instruction counts under callgrind).
        if let count = Int(arguments.values["count"] ?? "") {
            for (name, body) in stages where only == nil || only == name {
                for _ in 0..<count { try body() }
            }
            emit(["counted": count])
            return
        }
        for (name, body) in stages where only == nil || only == name {
            var rates: [Double] = []
            for _ in 0..<repeats {
                let clock = ContinuousClock()
                let start = clock.now
                var operations = 0
                var elapsed = Duration.zero
                repeat {
                    for _ in 0..<64 { try body() }
                    operations += 64
                    elapsed = clock.now - start
                } while elapsed < .seconds(seconds)
                rates.append(Double(operations) / toSeconds(elapsed))
            }
            results[name + "_ops"] = rates
        }
        emit(results)
    }
}

/// A duration in seconds.
func toSeconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}
