import CastDeviceProfiles
import CastJSON
import CastTestSupport
import CastTLS
import Foundation
import Testing
@testable import CastEmulator

/// A sender on a real TLS socket loads every fixture, served over HTTP, into an emulated device of
/// each profile with media fetching on: what the decision table says plays starts PLAYING, the rest
/// fails like on a device (LOAD_FAILED 104, or 110 for HLS and DASH), and the fetch record names
/// what the device found and why it refused.
@Suite("Device profiles decide LOADs end to end", .enabled(if: ProbeMedia.available, "needs ffmpeg to make the fixtures (apt-get install ffmpeg)"))
struct DeviceProfileLoadTests {
    /// A receiver of a profile over TLS with media fetching, a sender connected to its media app.
    struct Device {
        let receiver: EmulatedReceiver
        let sender: RawSender
        let transport: String
        var nextRequest = 10

        static func start(_ profile: CastDeviceProfile, hdmiPassthrough: Bool = false, clock: any Clock<Duration> = ContinuousClock())
            async throws -> Device
        {
            var configuration = EmulatedReceiverConfiguration(
                name: "Profile TV", clock: clock, replyLatency: .zero, mediaFetching: EmulatedReceiverMediaFetching(),
                profile: profile, hdmiPassthrough: hdmiPassthrough)
            configuration.heartbeat = EmulatedReceiverHeartbeat(pingInterval: .seconds(3600), silenceTimeout: .seconds(7200))
            let receiver = EmulatedReceiver(configuration: configuration)
            try await receiver.start()
            let port = try #require(await receiver.port)
            let sender = RawSender(try await TLSCastTransport.connect(host: "127.0.0.1", port: port))
            try await sender.connect()
            let appId = profile.hasVideoOutput ? "CC1AD845" : "705D30C6"
            let launched = try await sender.request(["type": "LAUNCH", "appId": .string(appId), "requestId": 1], reply: "RECEIVER_STATUS")
            let transport = try #require(launched["status"]?["applications"]?[0]?["transportId"]?.stringValue)
            try await sender.connect(to: transport)
            return Device(receiver: receiver, sender: sender, transport: transport)
        }

        /// Sends a media request and returns the first message carrying its requestId.
        mutating func send(_ json: JSONValue) async throws -> JSONValue {
            var request = json
            request["requestId"] = JSONValue(nextRequest)
            nextRequest += 1
            try await sender.send(request, namespace: NS.media, to: transport)
            while let message = try await sender.next() {
                if let reply = message.json, reply["requestId"] == request["requestId"] { return reply }
            }
            throw CastTransportError(code: .closed, message: "closed before the reply to \(request)")
        }

        mutating func load(_ url: String, contentType: String = "video/mp4") async throws -> JSONValue {
            try await send(["type": "LOAD", "media": ["contentId": .string(url), "contentType": .string(contentType), "streamType": "BUFFERED"]])
        }

        /// The media fetch of the last request sent.
        func lastMediaFetch() async -> EmulatedReceiverFetch? {
            await receiver.fetches.last { $0.kind == .media && $0.requestId == nextRequest - 1 }
        }

        func stop() async {
            await sender.transport.close()
            await receiver.stop()
        }
    }

    static let cases: [(String, Bool)] = CastDeviceProfile.presets.flatMap { profile in
        [(profile.id, false)] + (profile.passthroughAudio.isEmpty ? [] : [(profile.id, true)])
    }

    @Test("Every fixture on every preset", arguments: cases)
    func decisionTable(profileName: String, hdmiPassthrough: Bool) async throws {
        let profile = try #require(CastDeviceProfile.preset(named: profileName))
        let library = CodecFixtures.library
        for fixture in CodecFixtures.all { _ = try await library.file(fixture) }
        let server = try await FixtureServer.start(root: library.directory)
        var device = try await Device.start(profile, hdmiPassthrough: hdmiPassthrough)
        for fixture in CodecFixtures.all {
            let reply = try await device.load(server.baseURL + "/" + fixture.path, contentType: FixtureServer.contentType(fixture.path))
            let fetch = try #require(await device.lastMediaFetch(), "\(profileName): no fetch of \(fixture)")
            let expected = fixture.plays(on: profileName, hdmiPassthrough: hdmiPassthrough)
            let adaptive = fixture.path.hasSuffix(".m3u8") || fixture.path.hasSuffix(".mpd")
            if expected {
                #expect(reply["type"] == "MEDIA_STATUS" && reply["status"]?[0]?["playerState"] == "PLAYING",
                        "\(profileName)\(hdmiPassthrough ? "+HDMI" : ""): \(fixture) should play: \(reply) — \(fetch)")
            } else {
                #expect(reply["type"] == "LOAD_FAILED" && reply["detailedErrorCode"] == JSONValue(adaptive ? 110 : 104),
                        "\(profileName)\(hdmiPassthrough ? "+HDMI" : ""): \(fixture) should be refused: \(reply) — \(fetch)")
                #expect(fetch.error?.code == .unsupportedMedia, "\(fetch)")
            }
            if profile.acceptsEverything {
                #expect(fetch.media == nil, "the any profile reads no codecs: \(fetch)")
            } else if let found = fixture.found {
                #expect(fetch.description.contains(found), "\(profileName): the fetch line should name \(found): \(fetch)")
            }
        }
        #expect(await device.receiver.violations.isEmpty)
        await device.stop()
        await server.close()
    }

    @Test("The issue's movie: refused on a 3rd-generation Chromecast for its HEVC, named on the fetch line")
    func theMovieOnAChromecast3() async throws {
        let library = CodecFixtures.library
        let movie = try #require(CodecFixtures.all.first { $0.path == "hevc-ac3-subs.mkv" })
        _ = try await library.file(movie)
        let server = try await FixtureServer.start(root: library.directory)
        var device = try await Device.start(.chromecast3)
        let reply = try await device.load(server.baseURL + "/hevc-ac3-subs.mkv", contentType: "video/x-matroska")
        #expect(reply["type"] == "LOAD_FAILED")
        #expect(reply["detailedErrorCode"] == 104)
        #expect(reply["itemId"] == 1)
        let status = try await device.sender.next(type: "MEDIA_STATUS").json
        #expect(status?["status"]?[0]?["idleReason"] == "ERROR")
        let fetch = try #require(await device.lastMediaFetch())
        #expect(fetch.description.contains("hevc Main L2.1 640x360 30fps, ac3 6ch 48000Hz, 2 subtitle stream(s)"))
        #expect(fetch.error?.message == "hevc video is not decoded by Chromecast (3rd generation)", "\(fetch)")
        await device.stop()

        // The same file on an Ultra whose TV takes Dolby plays; without the HDMI sink it is refused for its AC-3.
        var ultra = try await Device.start(.ultra, hdmiPassthrough: true)
        #expect(try await ultra.load(server.baseURL + "/hevc-ac3-subs.mkv")["type"] == "MEDIA_STATUS")
        await ultra.stop()
        var silent = try await Device.start(.ultra)
        #expect(try await silent.load(server.baseURL + "/hevc-ac3-subs.mkv")["type"] == "LOAD_FAILED")
        #expect(await silent.lastMediaFetch()?.error?.message.contains("ac3 audio plays only through an HDMI sink") == true)
        await silent.stop()
        await server.close()
    }

    @Test("QUEUE_LOAD and QUEUE_INSERT fail on the first item the device cannot play")
    func queues() async throws {
        let library = CodecFixtures.library
        for name in ["h264-baseline-aac.mp4", "vp9-opus.webm", "mp3.mp3"] {
            _ = try await library.file(try #require(CodecFixtures.all.first { $0.path == name }))
        }
        let server = try await FixtureServer.start(root: library.directory)
        var device = try await Device.start(.chromecast2)
        func item(_ name: String) -> JSONValue {
            ["media": ["contentId": .string(server.baseURL + "/" + name), "contentType": .string(FixtureServer.contentType(name)),
                       "streamType": "BUFFERED"]]
        }
        let failed = try await device.send(["type": "QUEUE_LOAD", "items": [item("h264-baseline-aac.mp4"), item("vp9-opus.webm"), item("mp3.mp3")]])
        #expect(failed["type"] == "LOAD_FAILED")
        #expect(failed["itemId"] == 2, "the VP9 item: \(failed)")
        #expect(failed["detailedErrorCode"] == 104)

        let loaded = try await device.send(["type": "QUEUE_LOAD", "items": [item("h264-baseline-aac.mp4"), item("mp3.mp3")]])
        #expect(loaded["type"] == "MEDIA_STATUS")
        let session = try #require(loaded["status"]?[0]?["mediaSessionId"])
        let insert = try await device.send(["type": "QUEUE_INSERT", "mediaSessionId": session, "items": [item("vp9-opus.webm")]])
        #expect(insert["type"] == "LOAD_FAILED")
        #expect(insert["detailedErrorCode"] == 104)
        let ids = try await device.send(["type": "QUEUE_GET_ITEM_IDS", "mediaSessionId": session])
        #expect(ids["itemIds"]?.arrayValue?.count == 2, "nothing inserted: \(ids)")
        #expect(await device.receiver.violations.isEmpty)
        await device.stop()
        await server.close()
    }

    @Test("A codecs parameter describes bytes no probe reads")
    func codecsParameter() async throws {
        let bytes = Array("not a format any probe reads".utf8)
        let server = try await ScriptedHTTPServer.start { target in
            let type = target == "/hevc.bin" ? "video/mp4; codecs=\"hvc1.1.6.L93.B0, mp4a.40.2\"" : "video/mp4"
            return ScriptedHTTPServer.response("200 OK", [("Content-Type", type)], bytes)
        }
        var device = try await Device.start(.chromecast1)
        #expect(try await device.load(server.baseURL + "/hevc.bin")["type"] == "LOAD_FAILED")
        #expect(await device.lastMediaFetch()?.media?.video.first?.codec == .hevc)
        // The sender's content type, when the server's says nothing.
        #expect(try await device.load(server.baseURL + "/plain.bin", contentType: "video/mp4; codecs=\"av01.0.08M.08\"")["type"] == "LOAD_FAILED")
        // Bytes nothing describes play: the device cannot know better.
        #expect(try await device.load(server.baseURL + "/plain.bin")["type"] == "MEDIA_STATUS")
        await device.stop()
        await server.close()
    }
}
