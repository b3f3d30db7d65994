import CastDeviceProfiles
import CastJSON
import CastTestSupport
import Foundation
import Testing
@testable import CastEmulator

/// SEEK in what the device fetched, the way its player handles it: anywhere in a file served with
/// byte ranges; back to the start of one served without (Chrome's seekable range is `[0, 0]` for
/// such a "streaming" source); within the window of a live playlist; not at all in a live stream
/// whose window is unknown. The receiver's clock is a manual one, moved by the test.
@Suite("Seeking where the device can seek", .enabled(if: ProbeMedia.available, "needs ffmpeg to make the fixtures (apt-get install ffmpeg)"))
struct SeekabilityTests {
    typealias Device = DeviceProfileLoadTests.Device

    static func fixture(_ path: String) throws -> CodecFixture {
        try #require(CodecFixtures.all.first { $0.path == path })
    }

    func seek(_ device: inout Device, to time: Double? = nil, by offset: Double? = nil, session: JSONValue) async throws -> Double? {
        var request: JSONValue = ["type": "SEEK", "mediaSessionId": session]
        if let time { request["currentTime"] = JSONValue(time) }
        if let offset { request["relativeTime"] = JSONValue(offset) }
        let reply = try await device.send(request)
        #expect(reply["type"] == "MEDIA_STATUS", "\(reply)")
        return reply["status"]?[0]?["currentTime"]?.doubleValue
    }

    @Test("A file served without byte ranges restarts from 0; with them, the seek lands where asked")
    func progressive() async throws {
        let library = CodecFixtures.library
        _ = try await library.file(try Self.fixture("h264-baseline-aac.mp4"))
        let server = try await FixtureServer.start(root: library.directory)
        let clock = ManualClock()
        var device = try await Device.start(.chromecast3, clock: clock)
        let media: JSONValue = ["contentType": "video/mp4", "streamType": "BUFFERED", "duration": 60]

        var load = media
        load["contentId"] = .string(server.baseURL + "/norange/h264-baseline-aac.mp4")
        let plain = try await device.send(["type": "LOAD", "media": load])
        #expect(plain["status"]?[0]?["playerState"] == "PLAYING")
        let fetch = try #require(await device.lastMediaFetch())
        #expect(fetch.statusCode == 200 && !fetch.acceptsRanges)
        #expect(fetch.description.contains("no byte ranges"), "\(fetch)")
        let session = try #require(plain["status"]?[0]?["mediaSessionId"])
        await clock.advance(by: .seconds(10))
        #expect(try await seek(&device, to: 30, session: session) == 0)
        await clock.advance(by: .seconds(5))
        #expect(try await seek(&device, by: 20, session: session) == 0)

        load["contentId"] = .string(server.baseURL + "/h264-baseline-aac.mp4")
        let ranged = try await device.send(["type": "LOAD", "media": load])
        #expect(await device.lastMediaFetch()?.statusCode == 206)
        let second = try #require(ranged["status"]?[0]?["mediaSessionId"])
        #expect(try await seek(&device, to: 30, session: second) == 30)
        #expect(try await seek(&device, by: -10, session: second) == 20)
        #expect(await device.receiver.violations.isEmpty)
        await device.stop()
        await server.close()
    }

    @Test("A live playlist: seeks land within its window behind the live edge")
    func liveWindow() async throws {
        let library = CodecFixtures.library
        _ = try await library.file(try Self.fixture("hls-h264/index.m3u8"))
        let live = library.directory.appendingPathComponent("live-hls")
        try FileManager.default.createDirectory(at: live, withIntermediateDirectories: true)
        // No #EXT-X-ENDLIST: live; two segments of 1 s: a window of 2 s.
        try Data("""
            #EXTM3U
            #EXT-X-VERSION:3
            #EXT-X-TARGETDURATION:1
            #EXT-X-MEDIA-SEQUENCE:0
            #EXTINF:1.0,
            ../hls-h264/seg0.ts
            #EXTINF:1.0,
            ../hls-h264/seg1.ts

            """.utf8).write(to: live.appendingPathComponent("live.m3u8"))
        let server = try await FixtureServer.start(root: library.directory)
        let clock = ManualClock()
        var device = try await Device.start(.chromecast3, clock: clock)
        let reply = try await device.load(server.baseURL + "/live-hls/live.m3u8", contentType: "application/x-mpegurl")
        #expect(reply["status"]?[0]?["media"]?["streamType"] == "LIVE", "\(reply)")
        #expect(await device.lastMediaFetch()?.isLive == true)
        let session = try #require(reply["status"]?[0]?["mediaSessionId"])
        await clock.advance(by: .seconds(10))
        // The live edge is at 10 s: the window is 8…10 s.
        #expect(try await seek(&device, to: 3, session: session) == 8)
        #expect(try await seek(&device, to: 100, session: session) == 10)
        #expect(try await seek(&device, by: -1, session: session) == 9)
        // Paused, the edge moves on: after 5 s more the window is 13…15 s.
        _ = try await device.send(["type": "PAUSE", "mediaSessionId": session])
        await clock.advance(by: .seconds(5))
        #expect(try await seek(&device, to: 9, session: session) == 13)
        await device.stop()
        await server.close()
    }

    @Test("A live stream of unknown window: a seek changes nothing")
    func liveWithoutWindow() async throws {
        let manifest = Array(#"<?xml version="1.0"?><MPD xmlns="urn:mpeg:dash:schema:mpd:2011" type="dynamic" minimumUpdatePeriod="PT2S"><Period id="0"/></MPD>"#.utf8)
        let server = try await ScriptedHTTPServer.start { _ in
            ScriptedHTTPServer.response("200 OK", [("Content-Type", "application/dash+xml"), ("Access-Control-Allow-Origin", "*")], manifest)
        }
        let clock = ManualClock()
        var device = try await Device.start(.any, clock: clock)
        let reply = try await device.load(server.baseURL + "/live.mpd", contentType: "application/dash+xml")
        #expect(reply["status"]?[0]?["media"]?["streamType"] == "LIVE", "\(reply)")
        let session = try #require(reply["status"]?[0]?["mediaSessionId"])
        await clock.advance(by: .seconds(4))
        #expect(try await seek(&device, to: 1, session: session) == 4)
        #expect(try await seek(&device, by: 30, session: session) == 4)
        await device.stop()
        await server.close()
    }
}
