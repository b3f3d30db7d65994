import CastJSON
import CastDeviceProfiles
import CastStreaming
import Foundation
import Testing
@testable import CastEmulator

/// The mirroring apps in the pure engine: LAUNCH, OFFER/ANSWER (held until the UDP port is bound),
/// refusals with Open Screen's error codes, datagrams in and RTCP and frames out, idle and flood ends.
@Suite("Mirroring in the receiver engine")
struct MirroringEngineTests {
    static let key: [UInt8] = Array(repeating: 0x2a, count: 16)
    static let mask: [UInt8] = (0..<16).map { UInt8($0 * 3) }
    static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    static func stream(index: Int, codec: String, ssrc: Int, audio: Bool, key: Bool = true) -> JSONValue {
        var object: [String: JSONValue] = [
            "index": JSONValue(index), "type": .string(audio ? "audio_source" : "video_source"), "codecName": .string(codec),
            "rtpProfile": "cast", "rtpPayloadType": JSONValue(audio ? 96 : 100), "ssrc": JSONValue(ssrc),
            "targetDelay": 400, "timeBase": .string(audio ? "1/48000" : "1/90000"),
            "receiverRtcpEventLog": false, "channels": JSONValue(audio ? 2 : 1),
        ]
        if key {
            object["aesKey"] = .string(hex(Self.key))
            object["aesIvMask"] = .string(hex(Self.mask))
        }
        if audio { object["bitRate"] = 128_000 } else {
            object["maxBitRate"] = 5_000_000
            object["maxFrameRate"] = "30000/1000"
            object["resolutions"] = [["width": 1920, "height": 1080]]
        }
        return .object(object)
    }

    static func offer(_ streams: [JSONValue], mode: String = "mirroring", seq: Int = 1) -> JSONValue {
        ["type": "OFFER", "seqNum": JSONValue(seq), "offer": ["castMode": .string(mode), "supportedStreams": .array(streams)]]
    }

    static let avOffer = offer([
        stream(index: 0, codec: "opus", ssrc: 1000, audio: true),
        stream(index: 1, codec: "vp9", ssrc: 2000, audio: false),
        stream(index: 2, codec: "vp8", ssrc: 3000, audio: false),
    ])

    /// A harness with sender-0 connected to the launched mirroring app as `streaming_sender-1`.
    static func launched(appId: String = "0F5096E8", _ configure: (inout ReceiverEngine.Settings) -> Void = { _ in })
        -> (EngineHarness, [ReceiverAction])
    {
        var harness = EngineHarness(configure)
        harness.open(1)
        harness.connect(1)
        let launch = harness.receiver(1, ["type": "LAUNCH", "appId": .string(appId), "requestId": 1])
        harness.connect(1, from: "streaming_sender-1", to: harness.transportId)
        return (harness, launch)
    }

    static func webrtc(_ harness: inout EngineHarness, _ json: JSONValue) -> [ReceiverAction] {
        harness.send(1, json, namespace: StreamingMessage.namespace, from: "streaming_sender-1", to: harness.transportId)
    }

    @Test("LAUNCH opens a UDP port; an OFFER waits for it; the ANSWER names it and takes the preferred codecs")
    func offerAnswer() throws {
        var (harness, launch) = Self.launched()
        let session = try #require(harness.engine.app?.sessionId)
        #expect(launch.contains(.openStreamingPort(appSessionId: session, port: 0)))
        let status = try #require(launch.json(type: "RECEIVER_STATUS").first)
        let app = try #require(status["status"]?["applications"]?[0])
        #expect(app["appId"]?.stringValue == "0F5096E8")
        #expect(app["namespaces"]?.arrayValue?.compactMap { $0["name"]?.stringValue }
            == [StreamingMessage.namespace, StreamingMessage.remotingNamespace])
        // The OFFER comes before the port is bound: no answer yet.
        #expect(Self.webrtc(&harness, Self.avOffer).json().isEmpty)
        let opened = harness.engine.streamingPortOpened(40_000, appSessionId: session, now: harness.now)
        let answer = try #require(opened.json(type: "ANSWER").first)
        #expect(answer["seqNum"]?.intValue == 1 && answer["result"]?.stringValue == "ok")
        let body = try StreamingAnswer(json: try #require(answer["answer"]))
        #expect(body.udpPort == 40_000)
        // The device prefers VP8 (a Chromecast's defaults), though VP9 came first in the OFFER.
        #expect(body.sendIndexes == [0, 2])
        #expect(body.ssrcs == [1001, 3001])
        #expect(body.constraints?.video.maxWidth == 1920)
        #expect(opened.sent.allSatisfy { $0.envelope.destinationId == "streaming_sender-1" && $0.envelope.namespace == StreamingMessage.namespace })
        guard case .mirroring(.started(let started)) = try #require(opened.first(where: { if case .mirroring = $0 { true } else { false } })) else {
            Issue.record("no started event")
            return
        }
        #expect(started.streams.map(\.codec) == [.opus, .vp8])
        #expect(started.offer?.contains("supportedStreams") == true)
        #expect(harness.engine.violations.isEmpty)
    }

    @Test("OFFERs a device refuses: no codec it takes, remoting, no encryption keys, no seqNum")
    func refusals() throws {
        var (harness, _) = Self.launched()
        let session = try #require(harness.engine.app?.sessionId)
        _ = harness.engine.streamingPortOpened(40_001, appSessionId: session, now: harness.now)
        func error(_ actions: [ReceiverAction]) -> Int? { actions.json(type: "ANSWER").first?["error"]?["code"]?.intValue }

        let av1Only = Self.webrtc(&harness, Self.offer([Self.stream(index: 0, codec: "av1", ssrc: 5, audio: false)]))
        #expect(error(av1Only) == 10_107)
        let remoting = Self.webrtc(&harness, Self.offer([Self.stream(index: 0, codec: "opus", ssrc: 5, audio: true)], mode: "remoting"))
        #expect(error(remoting) == 10_106)
        let clear = Self.webrtc(&harness, Self.offer([Self.stream(index: 0, codec: "opus", ssrc: 5, audio: true, key: false)]))
        #expect(error(clear) == 10_105)
        let unnumbered = Self.webrtc(&harness, ["type": "OFFER", "offer": ["supportedStreams": []]])
        #expect(unnumbered.json().isEmpty)
        #expect(harness.engine.violations.map(\.kind) == [.refusedRequest, .refusedRequest, .malformedPayload, .malformedPayload])
        #expect(harness.engine.violations[2].request?.contains("\"OFFER\"") == true)
    }

    @Test("GET_CAPABILITIES says remoting is not supported; GET_STATUS gives a network status")
    func capabilitiesAndStatus() throws {
        var (harness, _) = Self.launched()
        let capabilities = try #require(Self.webrtc(&harness, ["type": "GET_CAPABILITIES", "seqNum": 4]).json().first)
        #expect(capabilities["type"]?.stringValue == "CAPABILITIES_RESPONSE" && capabilities["result"]?.stringValue == "error")
        #expect(capabilities["error"]?["code"]?.intValue == 10_106 && capabilities["seqNum"]?.intValue == 4)
        let status = try #require(Self.webrtc(&harness, ["type": "GET_STATUS", "seqNum": 5]).json().first)
        #expect(status["type"]?.stringValue == "STATUS_RESPONSE" && status["result"]?.stringValue == "ok")
        #expect(status["status"]?["wifiSpeed"]?.arrayValue?.isEmpty == false)
        #expect(harness.engine.violations.isEmpty)
    }

    @Test("Datagrams: a sender report and a frame give RTCP back and a frame to play; garbage and strangers are violations")
    func datagrams() throws {
        var (harness, _) = Self.launched()
        let session = try #require(harness.engine.app?.sessionId)
        _ = Self.webrtc(&harness, Self.avOffer)
        _ = harness.engine.streamingPortOpened(40_002, appSessionId: session, now: harness.now)
        let report = RTCPPacket.serializeCompound([.senderReport(SenderReport(
            ssrc: 3000, ntpTime: NTPTimestamp(sinceUnixEpoch: .seconds(1_700_000_000)), rtpTimestamp: 0, packetCount: 0, octetCount: 0))])
        let afterReport = harness.engine.receiveDatagram(report, now: harness.now)
        #expect(afterReport.contains { if case .sendDatagram = $0 { true } else { false } })
        let crypto = try FrameCrypto(key: Self.key, ivMask: Self.mask)
        let plaintext: [UInt8] = [0x10, 0x02, 0x00, 0x9d, 0x01, 0x2a] + Array(repeating: 7, count: 3000)
        var packetizer = RTPPacketizer(payloadType: 100, ssrc: 3000)
        var frames: [ReceivedFrame] = []
        for packet in packetizer.packets(of: .init(frameID: .first, referencedFrameID: .first, isKeyFrame: true, rtpTimestamp: 0,
                                                   data: crypto.crypt(plaintext, frame: .first))) {
            for action in harness.engine.receiveDatagram(packet.serialized(), now: harness.now) {
                if case .mirroring(.frame(let stream, let codec, let frame)) = action {
                    #expect(stream == 2 && codec == .vp8)
                    frames.append(frame)
                }
            }
        }
        #expect(frames.map(\.data) == [plaintext])
        _ = harness.engine.receiveDatagram([0x80, 0x60, 1, 2], now: harness.now)
        var stranger = packetizer.packets(of: .init(frameID: FrameID(1), referencedFrameID: .first, isKeyFrame: false, rtpTimestamp: 3000, data: [1]))[0]
        stranger.ssrc = 77
        _ = harness.engine.receiveDatagram(stranger.serialized(), now: harness.now)
        #expect(harness.engine.violations.map(\.kind) == [.malformedPacket, .malformedPacket])
        #expect(harness.engine.violations[0].request?.hasPrefix("<4 bytes: 80600102") == true)
        #expect(harness.engine.mirroringSnapshot?.datagramsRefused == 2)
    }

    @Test("A session without datagrams for the idle timeout ends and the app stops; STOP ends it too")
    func idleAndStop() throws {
        var (harness, _) = Self.launched { $0.mirroring.idleTimeout = .seconds(3) }
        let session = try #require(harness.engine.app?.sessionId)
        _ = Self.webrtc(&harness, Self.avOffer)
        _ = harness.engine.streamingPortOpened(40_003, appSessionId: session, now: harness.now)
        #expect(harness.engine.nextDeadline.map { $0 <= .seconds(3) } == true)
        let quiet = harness.advance(by: .seconds(3))
        #expect(quiet.contains(.closeStreamingPort))
        #expect(quiet.contains { if case .mirroring(.ended(let ended)) = $0 { ended.ended?.contains("no packet") == true } else { false } })
        #expect(harness.engine.app?.descriptor.appId == "E8C28D3C")  // back to Backdrop
        #expect(quiet.json(type: "RECEIVER_STATUS").isEmpty == false)

        var (other, _) = Self.launched()
        let otherSession = try #require(other.engine.app?.sessionId)
        _ = Self.webrtc(&other, Self.avOffer)
        _ = other.engine.streamingPortOpened(40_004, appSessionId: otherSession, now: other.now)
        let stop = other.receiver(1, ["type": "STOP", "requestId": 9])
        #expect(stop.contains(.closeStreamingPort))
        #expect(stop.contains { if case .mirroring(.ended(let ended)) = $0 { ended.ended == "the app stopped" } else { false } })
    }

    @Test("A sender that floods is dropped")
    func flood() throws {
        var (harness, _) = Self.launched { $0.mirroring.maximumPacketRate = 50 }
        let session = try #require(harness.engine.app?.sessionId)
        _ = Self.webrtc(&harness, Self.avOffer)
        _ = harness.engine.streamingPortOpened(40_005, appSessionId: session, now: harness.now)
        let report = RTCPPacket.serializeCompound([.senderReport(SenderReport(
            ssrc: 1000, ntpTime: NTPTimestamp(rawValue: 1), rtpTimestamp: 0, packetCount: 0, octetCount: 0))])
        var ended = false
        for _ in 0..<60 {
            let actions = harness.engine.receiveDatagram(report, now: harness.now + .milliseconds(10))
            ended = ended || actions.contains(.closeStreamingPort)
        }
        #expect(ended)
        #expect(harness.engine.violations.map(\.kind) == [.flood])
    }

    @Test("The audio mirroring app takes only audio; audio-only devices have no screen mirroring")
    func audioOnly() throws {
        var (harness, _) = Self.launched(appId: "85CDB22F")
        let session = try #require(harness.engine.app?.sessionId)
        _ = Self.webrtc(&harness, Self.avOffer)
        let opened = harness.engine.streamingPortOpened(40_006, appSessionId: session, now: harness.now)
        let answer = try StreamingAnswer(json: try #require(opened.json(type: "ANSWER").first?["answer"]))
        #expect(answer.sendIndexes == [0])
        #expect(answer.display == nil)

        var speaker = EngineHarness { $0.kind = .audio }
        speaker.open(1)
        speaker.connect(1)
        let refused = speaker.receiver(1, ["type": "LAUNCH", "appId": "0F5096E8", "requestId": 1])
        #expect(refused.json(type: "LAUNCH_ERROR").first?["reason"]?.stringValue == "NOT_FOUND")
        let audio = speaker.receiver(1, ["type": "LAUNCH", "appId": "85CDB22F", "requestId": 2])
        #expect(audio.contains { if case .openStreamingPort = $0 { true } else { false } })
    }
}

@Suite("Mirroring settings follow the device profile")
struct MirroringProfileTests {
    @Test("Each preset takes the mirroring codecs its decoders have")
    func codecsPerPreset() {
        #expect(EmulatedReceiverMirroring.videoCodecs(for: .chromecast3) == [.vp8, .h264])
        #expect(EmulatedReceiverMirroring.videoCodecs(for: .ultra).starts(with: [.vp8, .h264, .vp9]))
        #expect(EmulatedReceiverMirroring.videoCodecs(for: .ultra).contains(.hevc))
        #expect(EmulatedReceiverMirroring.videoCodecs(for: .audioOnly).isEmpty)
        #expect(EmulatedReceiverMirroring.videoCodecs(for: .any) == [.vp8, .h264, .vp9, .hevc, .av1])
    }

    @Test("The largest picture is the largest mode of those codecs: 1080p on a 3rd generation, 2160p on an Ultra")
    func sizes() {
        let third = EmulatedReceiverMirroring(profile: .chromecast3)
        #expect(third.maximumWidth == 1920 && third.maximumHeight == 1080)
        let ultra = EmulatedReceiverMirroring(profile: .ultra)
        #expect(ultra.maximumWidth == 3840 && ultra.maximumHeight == 2160)
    }

    @Test("A configuration takes its mirroring from its profile, and a speaker mirrors sound alone")
    func configuration() {
        #expect(EmulatedReceiverConfiguration(profile: .ultra).mirroring.videoCodecs.contains(.vp9))
        #expect(EmulatedReceiverConfiguration(profile: .chromecast3).mirroring.videoCodecs == [.vp8, .h264])
        #expect(EmulatedReceiverConfiguration(kind: .audio).mirroring.videoCodecs.isEmpty)
    }
}
