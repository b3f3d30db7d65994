import CastJSON
import CastStreaming
import Foundation
import Testing

@testable import CastMirroring

/// Our OFFER against the one Google's Open Screen sender (`cast-sender` 1.2.0) wrote to cast-receiver,
/// captured in Tests/CastStreamingTests/OpenScreen/captured: the same fields with the same kinds of value,
/// the same constants, and only what is random or chosen by the caller different.
@Suite("The mirroring OFFER, field for field against Open Screen's sender")
struct OfferTests {
    static let captured = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("CastStreamingTests/OpenScreen/captured/cast-sender-1.2.0-offer-vp8-opus.json")

    /// The captured message, and the streams of its OFFER by type.
    func reference() throws -> (message: JSONValue, audio: JSONValue, video: JSONValue) {
        let message = try JSONValue(parsing: String(contentsOf: Self.captured, encoding: .utf8))
        let streams = try #require(message["offer"]?["supportedStreams"]?.arrayValue)
        let audio = try #require(streams.first { $0["type"]?.stringValue == "audio_source" })
        let video = try #require(streams.first { $0["type"]?.stringValue == "video_source" })
        return (message, audio, video)
    }

    /// Ours, for the captured OFFER's video (1920x1080 at 30 fps) and stereo sound, as the message on the wire.
    func ours(_ options: CastMirroringOptions = CastMirroringOptions()) throws -> (message: JSONValue, audio: JSONValue, video: JSONValue) {
        var random = SystemRandomNumberGenerator()
        let offer = options.offer(video: .init(width: 1920, height: 1080, frameRate: 30), audioChannels: 2, using: &random)
        let message = StreamingMessage.offer(sequenceNumber: 1, offer: offer).json
        let streams = try #require(message["offer"]?["supportedStreams"]?.arrayValue)
        return (message, streams[0], streams[1])
    }

    /// A value's kind: the JSON type, and for strings whether they are 32 hex digits.
    func kind(_ value: JSONValue?) -> String {
        switch value {
        case .string(let text)? where text.count == 32 && text.allSatisfy(\.isHexDigit): "hex128"
        case .string?: "string"
        case .bool?: "bool"
        case .array?: "array"
        case .object?: "object"
        case nil: "missing"
        default: value?.doubleValue != nil ? "number" : "other"
        }
    }

    @Test("The same fields, each the same kind of value, in the message and in each stream")
    func sameFields() throws {
        let theirs = try reference(), mine = try ours()
        #expect(Set(mine.message.objectValue!.keys) == Set(theirs.message.objectValue!.keys))
        #expect(Set(mine.message["offer"]!.objectValue!.keys) == Set(theirs.message["offer"]!.objectValue!.keys))
        for (name, our, their) in [("audio", mine.audio, theirs.audio), ("video", mine.video, theirs.video)] {
            let ourKeys = Set(our.objectValue!.keys), theirKeys = Set(their.objectValue!.keys)
            #expect(ourKeys == theirKeys, "\(name): only ours \(ourKeys.subtracting(theirKeys)), only theirs \(theirKeys.subtracting(ourKeys))")
            for key in theirKeys {
                #expect(kind(our[key]) == kind(their[key]), "\(name).\(key): ours \(String(describing: our[key])), theirs \(String(describing: their[key]))")
            }
        }
    }

    @Test("The same constants: mode, payload types, profiles, time bases, RTCP DSCP and event log, empty codec fields")
    func sameConstants() throws {
        let theirs = try reference(), mine = try ours()
        #expect(mine.message["type"] == theirs.message["type"])
        #expect(mine.message["offer"]?["castMode"] == theirs.message["offer"]?["castMode"])
        let constant = ["type", "codecName", "rtpPayloadType", "rtpProfile", "timeBase", "receiverRtcpDscp", "receiverRtcpEventLog",
                        "codecParameter", "channels", "index", "profile", "level", "protection", "errorRecoveryMode", "maxFrameRate",
                        "resolutions"]
        for (name, our, their) in [("audio", mine.audio, theirs.audio), ("video", mine.video, theirs.video)] {
            for key in constant where their[key] != nil {
                #expect(our[key] == their[key], "\(name).\(key): ours \(String(describing: our[key])), theirs \(String(describing: their[key]))")
            }
        }
    }

    @Test("What differs is random or the caller's: SSRCs apart, fresh keys per stream and per OFFER, bit rates and delay as configured")
    func whatDiffers() throws {
        let options = CastMirroringOptions(maximumVideoBitRate: 5_050_880, audioBitRate: 192_000, targetDelay: .milliseconds(400))
        let first = try ours(options), second = try ours(options), theirs = try reference()
        #expect(first.audio["ssrc"] != first.video["ssrc"])
        #expect(first.audio["aesKey"] != first.video["aesKey"] && first.audio["aesIvMask"] != first.video["aesIvMask"])
        #expect(first.video["aesKey"] != second.video["aesKey"])
        // With Open Screen's figures as the options, the remaining fields match too.
        for key in ["targetDelay", "maxBitRate"] { #expect(first.video[key] == theirs.video[key], "\(key)") }
        for key in ["targetDelay", "bitRate"] { #expect(first.audio[key] == theirs.audio[key], "\(key)") }
    }

    @Test("Sound alone is one Opus stream at index 0; pictures alone one video stream at index 0")
    func oneStream() throws {
        var random = SystemRandomNumberGenerator()
        let options = CastMirroringOptions(videoCodec: .vp9)
        let audio = options.offer(video: nil, audioChannels: 2, using: &random)
        #expect(audio.streams.map(\.codec) == [.opus] && audio.streams[0].index == 0)
        let video = options.offer(video: .init(width: 1280, height: 720, frameRate: 30), audioChannels: nil, using: &random)
        #expect(video.streams.map(\.codec) == [.vp9] && video.streams[0].index == 0)
        #expect(video.streams[0].resolutions == [OfferedStream.Resolution(width: 1280, height: 720)])
    }
}
