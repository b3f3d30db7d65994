import CastJSON
import CastTestSupport
import CastCore
import Foundation
import Testing
@testable import CastEmulator

/// The receiver fetching what it is asked to load, against scripted HTTP servers on loopback.
@Suite("EmulatedReceiver media fetching")
struct MediaFetchingTests {
    static let movie: [UInt8] = [0, 0, 0, 0x18] + Array("ftypmp42".utf8) + (0..<88).map { UInt8($0 & 0xFF) }
    static let vtt = Array("WEBVTT\n\n00:00:01.000 --> 00:00:02.000\nHello\n".utf8)
    static let cors = ("Access-Control-Allow-Origin", "*")

    /// A well-behaved server: the movie with ranges, a WebVTT track, an SRT served as VTT, a 404.
    static func goodRoutes(_ target: String) -> ScriptedHTTPServer.Reply {
        switch target {
        case "/movie.mp4":
            ScriptedHTTPServer.response("206 Partial Content", [("Content-Type", "video/mp4"), cors,
                                        ("Content-Range", "bytes 0-15/\(movie.count)")], Array(movie[0..<16]))
        case "/plain.mp4":
            ScriptedHTTPServer.response("206 Partial Content", [("Content-Type", "video/mp4"),
                                        ("Content-Range", "bytes 0-15/\(movie.count)")], Array(movie[0..<16]))
        case "/page.mp4":
            ScriptedHTTPServer.response("200 OK", [("Content-Type", "text/html"), cors], Array("<html></html>".utf8))
        case "/sub.vtt":
            ScriptedHTTPServer.response("200 OK", [("Content-Type", "text/vtt; charset=utf-8"), cors], [0xEF, 0xBB, 0xBF] + vtt)
        case "/sub.srt":
            ScriptedHTTPServer.response("200 OK", [("Content-Type", "text/vtt"), cors],
                                        Array("1\n00:00:01,000 --> 00:00:02,000\nHello\n".utf8))
        default:
            ScriptedHTTPServer.response("404 Not Found", [("Content-Type", "text/plain")], Array("no".utf8))
        }
    }

    func makeReceiver(clock: ManualClock = ManualClock(), timeout: Duration = .seconds(30)) -> EmulatedReceiver {
        var configuration = EmulatedReceiverConfiguration(
            name: "Fetch TV", clock: clock, replyLatency: .zero,
            mediaFetching: EmulatedReceiverMediaFetching(mediaPrefixLength: 16, maximumTextTrackBytes: 4096, timeout: timeout))
        configuration.heartbeat = EmulatedReceiverHeartbeat(pingInterval: .seconds(3600), silenceTimeout: .seconds(7200))
        return EmulatedReceiver(configuration: configuration)
    }

    /// A sender connected to a freshly launched Default Media Receiver, and the app's transport id.
    func mediaSender(_ receiver: EmulatedReceiver) async throws -> (RawSender, String) {
        let (senderEnd, receiverEnd) = InMemoryCastTransport.pair()
        await receiver.accept(receiverEnd)
        let sender = RawSender(senderEnd)
        try await sender.connect()
        let launched = try await sender.request(["type": "LAUNCH", "appId": "CC1AD845", "requestId": 1], reply: "RECEIVER_STATUS")
        let transport = try #require(launched["status"]?["applications"]?[0]?["transportId"]?.stringValue)
        try await sender.connect(to: transport)
        return (sender, transport)
    }

    /// Sends a media request and returns the first message that carries its requestId.
    func send(_ json: JSONValue, _ sender: RawSender, _ transport: String) async throws -> JSONValue {
        try await sender.send(json, namespace: NS.media, to: transport)
        while let message = try await sender.next() {
            if let reply = message.json, reply["requestId"] == json["requestId"] { return reply }
        }
        throw CastTransportError(code: .closed, message: "closed before the reply to \(json)")
    }

    func load(_ url: String, tracks: [String] = [], requestId: Int = 7) -> JSONValue {
        var media: JSONValue = ["contentId": .string(url), "contentType": "video/mp4", "streamType": "BUFFERED", "duration": 60]
        if !tracks.isEmpty {
            media["tracks"] = .array(tracks.enumerated().map { index, url in
                ["trackId": JSONValue(index + 1), "type": "TEXT", "subtype": "SUBTITLES", "trackContentId": .string(url),
                 "trackContentType": "text/vtt", "language": "en"]
            })
        }
        return ["type": "LOAD", "requestId": JSONValue(requestId), "media": media]
    }

    /// Asserts a LOAD failed like on a device: LOAD_FAILED with the code, then IDLE/ERROR, then no session.
    func expectLoadFailed(_ reply: JSONValue, code: Int, _ sender: RawSender, _ transport: String) async throws {
        #expect(reply["type"] == "LOAD_FAILED", "\(reply)")
        #expect(reply["detailedErrorCode"] == JSONValue(code))
        #expect(reply["itemId"] == 1)
        let status = try await sender.next(type: "MEDIA_STATUS").json
        #expect(status?["status"]?[0]?["playerState"] == "IDLE")
        #expect(status?["status"]?[0]?["idleReason"] == "ERROR")
        let after = try await send(["type": "GET_STATUS", "requestId": 99], sender, transport)
        #expect(after["status"] == [])
    }

    @Test func loadFetchesTheMediaPrefixWithARangeAndEveryTextTrack() async throws {
        let server = try await ScriptedHTTPServer.start(Self.goodRoutes)
        let receiver = makeReceiver()
        let events = await receiver.fetchEvents()
        let (sender, transport) = try await mediaSender(receiver)
        let reply = try await send(load(server.baseURL + "/movie.mp4", tracks: [server.baseURL + "/sub.vtt"]), sender, transport)
        #expect(reply["type"] == "MEDIA_STATUS")
        #expect(reply["status"]?[0]?["playerState"] == "PLAYING")

        let fetches = await receiver.fetches
        #expect(fetches.count == 2)
        let media = try #require(fetches.first { $0.kind == .media })
        #expect(media.url == server.baseURL + "/movie.mp4")
        #expect(media.requestId == 7)
        #expect(media.requestedRange == 0...15)
        #expect(media.statusCode == 206)
        #expect(media.contentType == "video/mp4")
        #expect(media.contentRange == "bytes 0-15/100")
        #expect(media.body == Array(Self.movie[0..<16]))
        #expect(media.corsAllowed && media.error == nil)
        let track = try #require(fetches.first { $0.kind == .textTrack })
        #expect(track.requestedRange == nil && track.statusCode == 200)
        #expect(track.body == [0xEF, 0xBB, 0xBF] + Self.vtt)
        #expect(track.succeeded)

        // What went over the wire: a ranged GET with the receiver page's Origin, a plain GET for the track.
        let heads = server.requestHeads
        let mediaHead = try #require(heads.first { $0.hasPrefix("GET /movie.mp4 HTTP/1.1") })
        #expect(mediaHead.contains("\r\nRange: bytes=0-15"))
        #expect(mediaHead.contains("\r\nOrigin: https://www.gstatic.com"))
        #expect(mediaHead.contains("\r\nHost: 127.0.0.1:\(server.port)"))
        let trackHead = try #require(heads.first { $0.hasPrefix("GET /sub.vtt HTTP/1.1") })
        #expect(!trackHead.contains("Range:"))

        var iterator = events.makeAsyncIterator()
        let first = await iterator.next()
        let second = await iterator.next()
        #expect(Set([first?.url, second?.url]) == Set([server.baseURL + "/movie.mp4", server.baseURL + "/sub.vtt"]))
        #expect(await receiver.violations.isEmpty)
        await receiver.stop()
        #expect(await iterator.next() == nil)
        await server.close()
    }

    @Test func notFoundFailsTheLoadWithMediaNetwork() async throws {
        let server = try await ScriptedHTTPServer.start(Self.goodRoutes)
        let receiver = makeReceiver()
        let (sender, transport) = try await mediaSender(receiver)
        let reply = try await send(load(server.baseURL + "/missing.mp4"), sender, transport)
        try await expectLoadFailed(reply, code: 103, sender, transport)
        let fetch = try #require(await receiver.fetches.first)
        #expect(fetch.statusCode == 404)
        #expect(fetch.error?.code == .httpStatus)
        await receiver.stop()
        await server.close()
    }

    @Test func aRefusedConnectionFailsTheLoad() async throws {
        let refusing = try RefusingPort()
        let receiver = makeReceiver()
        let (sender, transport) = try await mediaSender(receiver)
        let reply = try await send(load("http://127.0.0.1:\(refusing.port)/movie.mp4"), sender, transport)
        try await expectLoadFailed(reply, code: 103, sender, transport)
        let fetch = try #require(await receiver.fetches.first)
        #expect(fetch.error?.code == .connectionFailed)
        #expect(fetch.statusCode == nil)
        await receiver.stop()
    }

    @Test func mediaWithTracksNeedsCORSMediaWithoutDoesNot() async throws {
        let server = try await ScriptedHTTPServer.start(Self.goodRoutes)
        let receiver = makeReceiver()
        let (sender, transport) = try await mediaSender(receiver)
        let plain = try await send(load(server.baseURL + "/plain.mp4", requestId: 10), sender, transport)
        #expect(plain["type"] == "MEDIA_STATUS")
        #expect(await receiver.fetches.last?.corsAllowed == false)
        #expect(await receiver.fetches.last?.succeeded == true)

        let withTracks = try await send(load(server.baseURL + "/plain.mp4", tracks: [server.baseURL + "/sub.vtt"], requestId: 11), sender, transport)
        #expect(withTracks["type"] == "LOAD_FAILED")
        #expect(withTracks["detailedErrorCode"] == 104)
        let failed = await receiver.fetches.first { $0.requestId == 11 && $0.kind == .media }
        #expect(failed?.error?.code == .cors)
        await receiver.stop()
        await server.close()
    }

    @Test func contentThePlayerRejectsFailsWithSourceNotSupported() async throws {
        let server = try await ScriptedHTTPServer.start(Self.goodRoutes)
        let receiver = makeReceiver()
        let (sender, transport) = try await mediaSender(receiver)
        let srt = try await send(load(server.baseURL + "/movie.mp4", tracks: [server.baseURL + "/sub.srt"], requestId: 20), sender, transport)
        try await expectLoadFailed(srt, code: 104, sender, transport)
        #expect(await receiver.fetches.first { $0.kind == .textTrack }?.error?.code == .notWebVTT)

        let page = try await send(load(server.baseURL + "/page.mp4", requestId: 21), sender, transport)
        #expect(page["type"] == "LOAD_FAILED")
        #expect(page["detailedErrorCode"] == 104)
        #expect(await receiver.fetches.last?.error?.code == .contentType)
        await receiver.stop()
        await server.close()
    }

    @Test func hostileServersAreCutOffNotWaitedFor() async throws {
        let ok = "HTTP/1.1 200 OK\r\nContent-Type: text/vtt\r\nAccess-Control-Allow-Origin: *\r\nTransfer-Encoding: chunked\r\n\r\n"
        let server = try await ScriptedHTTPServer.start { target in
            switch target {
            case "/endless.vtt": .endless(prefix: Array((ok + "6\r\nWEBVTT\r\n").utf8), chunk: Array("400\r\n\(String(repeating: "a", count: 1024))\r\n".utf8))
            case "/endless.mp4": .endless(prefix: Array("HTTP/1.1 200 OK\r\nContent-Type: video/mp4\r\n\r\n".utf8), chunk: [UInt8](repeating: 7, count: 4096))
            case "/header.mp4": .endless(prefix: Array("HTTP/1.1 200 OK\r\nX-Junk: ".utf8), chunk: [UInt8](repeating: 0x61, count: 4096))
            case "/headers.mp4": .endless(prefix: Array("HTTP/1.1 200 OK\r\n".utf8), chunk: Array("X-Junk: aaaaaaaaaaaaaaaaaaaaaaaaaaaa\r\n".utf8))
            case "/garbage.mp4": .bytes(Array("\u{1}\u{2}SSH-2.0 hello\r\n\r\n".utf8))
            case "/empty.mp4": .bytes([])
            default: Self.goodRoutes(target)
            }
        }
        let receiver = makeReceiver()
        let (sender, transport) = try await mediaSender(receiver)
        let endlessTrack = try await send(load(server.baseURL + "/movie.mp4", tracks: [server.baseURL + "/endless.vtt"], requestId: 30), sender, transport)
        #expect(endlessTrack["type"] == "LOAD_FAILED")
        #expect(await receiver.fetches.first { $0.kind == .media }?.succeeded == true)
        let cutOff = try #require(await receiver.fetches.first { $0.kind == .textTrack })
        #expect(cutOff.error?.code == .responseTooLarge)
        #expect(cutOff.statusCode == 200)
        #expect(cutOff.bytesReceived <= 4096)

        // A media body that never ends is read up to the prefix only: that load succeeds.
        let endlessMedia = try await send(load(server.baseURL + "/endless.mp4", requestId: 31), sender, transport)
        #expect(endlessMedia["type"] == "MEDIA_STATUS")
        #expect(await receiver.fetches.last?.body == [UInt8](repeating: 7, count: 16))

        for (path, requestId) in [("/header.mp4", 32), ("/headers.mp4", 33), ("/garbage.mp4", 34), ("/empty.mp4", 35)] {
            let reply = try await send(load(server.baseURL + path, requestId: requestId), sender, transport)
            #expect(reply["type"] == "LOAD_FAILED", "\(path)")
            let fetch = await receiver.fetches.last
            #expect(fetch?.statusCode == nil, "\(path)")
            #expect([.responseTooLarge, .malformedResponse, .connectionFailed].contains(fetch?.error?.code), "\(path): \(String(describing: fetch))")
        }
        await receiver.stop()
        await server.close()
    }

    @Test func aSilentServerTimesOutOnTheReceiversClock() async throws {
        let server = try await ScriptedHTTPServer.start { _ in .silent }
        let clock = ManualClock()
        let receiver = makeReceiver(clock: clock, timeout: .seconds(2))
        let (sender, transport) = try await mediaSender(receiver)
        let request = load(server.baseURL + "/movie.mp4")
        try await sender.send(request, namespace: NS.media, to: transport)
        await server.waitForRequests(1)
        // Drive the clock until the fetch's deadline (armed alongside the connection) has passed.
        var steps = 0
        while await receiver.fetches.isEmpty, steps < 10_000 {
            await clock.advance(by: .milliseconds(500))
            steps += 1
        }
        let fetch = try #require(await receiver.fetches.first)
        #expect(fetch.error?.code == .timedOut)
        var reply: JSONValue?
        while let message = try await sender.next() {
            if message.json?["requestId"] == 7 {
                reply = message.json
                break
            }
        }
        #expect(reply?["type"] == "LOAD_FAILED")
        #expect(reply?["detailedErrorCode"] == 103)
        await receiver.stop()
        await server.close()
    }

    @Test func fetchingIsOffByDefault() async throws {
        let server = try await ScriptedHTTPServer.start(Self.goodRoutes)
        var configuration = EmulatedReceiverConfiguration(name: "Plain TV", clock: ManualClock(), replyLatency: .zero)
        configuration.heartbeat = EmulatedReceiverHeartbeat(pingInterval: .seconds(3600), silenceTimeout: .seconds(7200))
        let receiver = EmulatedReceiver(configuration: configuration)
        let (sender, transport) = try await mediaSender(receiver)
        let reply = try await send(load(server.baseURL + "/missing.mp4"), sender, transport)
        #expect(reply["type"] == "MEDIA_STATUS")
        #expect(await receiver.fetches.isEmpty)
        #expect(server.requestHeads.isEmpty)
        await receiver.stop()
        await server.close()
    }
}
