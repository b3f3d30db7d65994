import CastMediaTestSupport
import CastChannels
import CastJSON
import CastMediaMetadata
import CastTestSupport
import CastCore
import Foundation
import Testing

@testable import CastMedia

@Suite("Media channel against a scripted receiver")
struct CastMediaChannelTests {
    static let movie: MediaInformation = {
        var media = MediaInformation(contentId: "http://127.0.0.1/a.mp4", contentType: "video/mp4", duration: 600)
        media.metadata = CastMetadata(title: "Big Buck Bunny", metadataType: .movie)
        media.tracks = [.text(id: 1, contentId: "http://127.0.0.1/a.vtt", language: "en-US"), .audio(id: 2, language: "fr")]
        return media
    }()

    @Test func loadAndControl() async throws {
        let harness = try await MediaHarness.make()
        defer { Task { await harness.close() } }
        let media = harness.media

        let loaded = try await media.load(Self.movie, autoplay: true, startTime: 12, activeTrackIds: [1], playbackRate: 1.5,
                                          credentials: "token", credentialsType: "oauth", customData: ["user": "u1"])
        #expect(loaded.mediaSessionId == 1)
        #expect(loaded.playerState == .playing)
        #expect(loaded.currentTime == 12)
        #expect(loaded.activeTrackIds == [1])
        #expect(loaded.playbackRate == 1.5)
        #expect(media.mediaSessionId == 1)
        let load = try #require(harness.receiver.requests(ofType: "LOAD").first)
        #expect(load["mediaSessionId"] == nil)
        #expect(load["autoplay"] == true)
        #expect(load["currentTime"] == 12)
        #expect(load["credentials"] == "token")
        #expect(load["credentialsType"] == "oauth")
        #expect(load["customData"] == ["user": "u1"])
        #expect(load["media"]?["metadata"]?["metadataType"] == 1)
        #expect(load["media"]?["tracks"]?[0]?["trackContentType"] == "text/vtt")
        #expect(load["requestId"]?.intValue.map { $0 > 0 } == true)

        #expect(try await media.pause().playerState == .paused)
        #expect(try await media.play().playerState == .playing)
        #expect(try await media.seek(to: 100, resumeState: .playbackPause).playerState == .paused)
        #expect(try await media.seek(by: -30).currentTime == 70)
        #expect(try await media.setPlaybackRate(2, customData: ["why": "fast"]).playbackRate == 2)
        #expect(try await media.setActiveTracks([1, 2]).activeTrackIds == [1, 2])
        #expect(try await media.setActiveTracks([]).activeTrackIds == [])
        var style = TextTrackStyle()
        style.foregroundColor = CastColor(cssString: "#FF000080")
        style.fontFamily = "serif"
        let styled = try await media.setTextTrackStyle(style)
        #expect(styled.media?.textTrackStyle?.foregroundColor == CastColor(red: 255, green: 0, blue: 0, alpha: 128))
        #expect(try await media.setStreamVolume(0.25).volume?.level == 0.25)
        #expect(try await media.setStreamMuted(true).volume?.muted == true)
        #expect(try await media.getStatus()?.mediaSessionId == 1)

        // Every command after LOAD named the media session.
        let commands = harness.receiver.requests.withLock { $0 }.dropFirst()
        #expect(commands.allSatisfy { $0["mediaSessionId"] == 1 })
        let seeks = harness.receiver.requests(ofType: "SEEK")
        #expect(seeks[0]["currentTime"] == 100 && seeks[0]["resumeState"] == "PLAYBACK_PAUSE")
        #expect(seeks[1]["relativeTime"] == -30 && seeks[1]["resumeState"] == nil)
        #expect(harness.receiver.requests(ofType: "SET_PLAYBACK_RATE").first?["customData"] == ["why": "fast"])
        let edits = harness.receiver.requests(ofType: "EDIT_TRACKS_INFO")
        #expect(edits[1]["activeTrackIds"] == [])
        #expect(edits[2]["activeTrackIds"] == nil)
        #expect(edits[2]["textTrackStyle"]?["fontFamily"] == "serif")

        #expect(try await media.stop(customData: ["reason": "done"]) == nil)
        #expect(media.status == nil)
        #expect(harness.receiver.requests(ofType: "STOP").first?["customData"] == ["reason": "done"])
        #expect(try await media.getStatus() == nil)
    }

    /// A sender that joins a session another sender started hears nothing until something changes,
    /// unless it asks: with `requestsStatusOnConnect` the channel sends GET_STATUS once it connects.
    @Test(.timeLimit(.minutes(1))) func aChannelThatJoinsAsksForTheStatusWhenAskedTo() async throws {
        let (senderEnd, receiverEnd) = InMemoryCastTransport.pair()
        let receiver = ScriptedReceiver(transport: receiverEnd, launched: true)
        receiver.state.withLock { state in
            state.hasSession = true
            state.sessionId = 7
            state.playerState = "PLAYING"
            state.currentTime = 42
            state.media = ["contentId": "http://127.0.0.1/other.mp4", "contentType": "video/mp4", "streamType": "BUFFERED"]
        }
        let clock = ManualClock()
        let connection = CastConnection(transport: senderEnd, clock: clock)
        let media = CastMediaChannel(clock: clock, requestsStatusOnConnect: true)
        #expect(media.requestsStatusOnConnect)
        var statuses = media.statuses.makeAsyncIterator()
        #expect(await statuses.next() == .some(nil))
        try await connection.add(media)
        try await connection.start()
        defer { Task { await connection.close(); receiver.stop() } }
        // The first status the stream gives after the initial `nil` is the other sender's session.
        let joined = try #require(await statuses.next() ?? nil)
        #expect(joined.mediaSessionId == 7)
        #expect(joined.playerState == .playing)
        #expect(joined.media?.contentId == "http://127.0.0.1/other.mp4")
        #expect(media.status?.mediaSessionId == 7)
        #expect(receiver.requests(ofType: "GET_STATUS").count == 1)
    }

    @Test func loadFailedCarriesTheDetailedCode() async throws {
        let harness = try await MediaHarness.make()
        defer { Task { await harness.close() } }
        do {
            try await harness.media.load(MediaInformation(contentId: "http://127.0.0.1/fail.mp4", contentType: "video/mp4"))
            Issue.record("LOAD succeeded")
        } catch {
            #expect(error.code == .loadFailed)
            #expect(error.detailedErrorCode?.rawValue == 104)
            #expect(error.detailedErrorCode?.name == "MEDIA_SRC_NOT_SUPPORTED")
        }
        try await waitUntil("the empty status arrives") { harness.receiver.requests.withLock { $0.count } == 1 }
    }

    @Test func commandsWithoutSessionFailBeforeSending() async throws {
        let harness = try await MediaHarness.make()
        defer { Task { await harness.close() } }
        do {
            try await harness.media.play()
            Issue.record("PLAY without a session succeeded")
        } catch {
            #expect(error.code == .noMediaSession)
        }
        #expect(harness.receiver.requests.withLock { $0.isEmpty })
    }

    @Test func invalidPlayerStateAndInvalidRequest() async throws {
        let harness = try await MediaHarness.make()
        defer { Task { await harness.close() } }
        try await harness.media.load(Self.movie)
        // Another sender makes the player idle; the status reaches us.
        await harness.receiver.broadcastStatus { $0.playerState = "IDLE" }
        try await waitUntil("the idle status arrives") { harness.media.status?.playerState == .idle }
        do {
            try await harness.media.play()
            Issue.record("PLAY while idle succeeded")
        } catch {
            #expect(error.code == .invalidPlayerState)
        }
        // The receiver moves on to a new session without telling us.
        harness.receiver.state.withLock { $0.sessionId += 1 }
        do {
            try await harness.media.pause()
            Issue.record("PAUSE with a stale session succeeded")
        } catch {
            #expect(error.code == .invalidRequest)
            #expect(error.reason == .invalidMediaSessionId)
        }
        // GET_STATUS resynchronises the session id.
        #expect(try await harness.media.getStatus()?.mediaSessionId == 2)
        #expect(try await harness.media.seek(to: 1).mediaSessionId == 2)
    }

    @Test func invalidArgumentsAreRefusedLocally() async throws {
        let harness = try await MediaHarness.make()
        defer { Task { await harness.close() } }
        try await harness.media.load(Self.movie)
        await #expect(throws: CastMediaError.self) { try await harness.media.setPlaybackRate(0) }
        await #expect(throws: CastMediaError.self) { try await harness.media.setStreamVolume(1.5) }
        #expect(harness.receiver.requests(ofType: "SET_PLAYBACK_RATE").isEmpty)
        #expect(harness.receiver.requests(ofType: "SET_VOLUME").isEmpty)
    }

    @Test func timeout() async throws {
        // Liveness out of the way: the clock jumps the whole request timeout at once, and with the
        // default 10 s the connection would be lost (no PONG can arrive in between) as PAUSE times out.
        var configuration = CastConnectionConfiguration.default
        configuration.livenessTimeout = .seconds(3600)
        let harness = try await MediaHarness.make(configuration: configuration)
        defer { Task { await harness.close() } }
        try await harness.media.load(Self.movie)
        _ = harness.receiver.silentTypes.withLock { $0.insert("PAUSE") }
        let pause = Task { try await harness.media.pause() }
        // The connection's one deadline task sleeps until the earliest deadline in flight (armed by
        // LOAD, no later than PAUSE's, on a clock that has not moved); it wakes again for PAUSE's.
        try await waitUntil("PAUSE is in flight") { harness.connection.requestsInFlight == 1 }
        await harness.clock.advance(by: harness.connection.configuration.requestTimeout)
        do {
            _ = try await pause.value
            Issue.record("PAUSE without an answer succeeded")
        } catch let error as CastMediaError {
            #expect(error.code == .timeout)
        }
    }

    @Test func connectionLost() async throws {
        let harness = try await MediaHarness.make()
        defer { Task { await harness.close() } }
        try await harness.media.load(Self.movie)
        _ = harness.receiver.silentTypes.withLock { $0.insert("PAUSE") }
        let pause = Task { try await harness.media.pause() }
        try await waitUntil("PAUSE reaches the receiver") { !harness.receiver.requests(ofType: "PAUSE").isEmpty }
        harness.receiverEnd.fail(CastTransportError(code: .closed, message: "cable cut"))
        do {
            _ = try await pause.value
            Issue.record("PAUSE over a dead connection succeeded")
        } catch let error as CastMediaError {
            #expect(error.code == .connectionLost)
        }
    }

    @Test func messageTooLargeIsRefusedBeforeSending() async throws {
        let harness = try await MediaHarness.make()
        defer { Task { await harness.close() } }
        var media = Self.movie
        media.metadata?.subtitle = String(repeating: "x", count: 70_000)
        do {
            try await harness.media.load(media)
            Issue.record("a 70 kB LOAD was sent")
        } catch {
            #expect(error.code == .messageTooLarge)
            #expect((error.messageSize ?? 0) > 65_536)
            #expect(error.message.contains("\(error.messageSize ?? 0)"))
        }
        #expect(harness.receiver.requests.withLock { $0.isEmpty })
    }

    /// A LOAD under 64 KiB whose MEDIA_STATUS could not be (it carries the media twice: as `media` and
    /// in the queue item) is refused before sending (issue 45): before, `castctl load` with a 32 600-
    /// character title sent it, and the receiver dropped every sender of the session.
    @Test func aLoadWhoseStatusCannotFitIsRefusedBeforeSending() async throws {
        let harness = try await MediaHarness.make()
        defer { Task { await harness.close() } }
        var media = Self.movie
        media.metadata?.title = String(repeating: "a", count: 32_600)
        do {
            try await harness.media.load(media)
            Issue.record("a LOAD whose status cannot fit was sent")
        } catch {
            #expect(error.code == .statusTooLarge)
            #expect((error.messageSize ?? 0) > 65_000)
            #expect(error.message.contains("twice"), "\(error.message)")
        }
        #expect(harness.receiver.requests.withLock { $0.isEmpty })
        // A title that leaves room goes out.
        media.metadata?.title = String(repeating: "a", count: 32_000)
        try await harness.media.load(media)
        #expect(harness.receiver.requests(ofType: "LOAD").count == 1)
    }

    @Test func notConnectedBeforeTheAppRuns() async throws {
        let harness = try await MediaHarness.make(launched: false)
        defer { Task { await harness.close() } }
        do {
            try await harness.media.load(Self.movie)
            Issue.record("LOAD without an app succeeded")
        } catch {
            #expect(error.code == .notConnected)
        }
        // Launching the app connects the channel.
        _ = try await harness.connection.receiver.launch(appId: "CC1AD845")
        try await MediaHarness.waitUntilConnected(harness.media, on: harness.connection)
        #expect(try await harness.media.load(Self.movie).playerState == .playing)
    }

    @Test func appStoppingEndsTheSession() async throws {
        let harness = try await MediaHarness.make()
        defer { Task { await harness.close() } }
        var statuses = harness.media.statuses.makeAsyncIterator()
        #expect(await statuses.next() == .some(nil))   // the current value comes first: no media session yet
        try await harness.media.load(Self.movie)
        #expect(await statuses.next()??.mediaSessionId == 1)
        await harness.receiver.stopApp()
        #expect(await statuses.next() == .some(nil))
        try await waitUntil("the media channel disconnects") { !harness.media.isConnected }
        #expect(harness.media.status == nil)
        #expect(harness.media.estimatedPosition == nil)
        do {
            try await harness.media.play()
            Issue.record("PLAY after the app stopped succeeded")
        } catch {
            #expect(error.code == .notConnected)
        }
    }

    /// A reply taken at once, then a CLOSE and a new connect to the same app before the request that sent
    /// it resumes: the request must not record it (recorded ahead, it would never be delivered again, and
    /// every later status would be published without being recorded).
    @Test func aReplyFromBeforeAReconnectIsNotRecordedByItsRequest() async throws {
        let harness = try await MediaHarness.make()
        defer { Task { await harness.close() } }
        let media = harness.media
        let (context, generation) = try #require(media.state.withLock { state in state.context.map { ($0, state.generation) } })
        func status(_ id: Int, requestId: Int) -> CastChannelMessage {
            CastChannelMessage(CastMessage(
                sourceId: context.transportId, destinationId: context.senderId, namespace: CastNamespace.media.rawValue,
                payload: .string(#"{"type":"MEDIA_STATUS","requestId":\#(requestId),"status":[{"mediaSessionId":\#(id),"playerState":"PLAYING"}]}"#)))
        }
        let reply = status(1, requestId: 99)
        #expect(media.channel(context, didReceiveNow: reply))
        #expect(media.status?.mediaSessionId == 1)
        await media.channelDidDisconnect(context, reason: .closedByReceiver)
        await media.channelDidConnect(context)
        #expect(media.status == nil)
        // The request that sent the reply resumes only now.
        #expect(media.record(reply: reply, generation: generation)?.first?.mediaSessionId == 1)
        #expect(media.status == nil)
        // The next status is recorded.
        #expect(media.channel(context, didReceiveNow: status(2, requestId: 0)))
        #expect(media.status?.mediaSessionId == 2)
    }

    @Test func statusStreamIncludesOtherSendersChanges() async throws {
        let harness = try await MediaHarness.make()
        defer { Task { await harness.close() } }
        var statuses = harness.media.statuses.makeAsyncIterator()
        #expect(await statuses.next() == .some(nil))   // the current value comes first: no media session yet
        try await harness.media.load(Self.movie)
        let first = await statuses.next()
        #expect(first??.playerState == .playing)
        await harness.receiver.broadcastStatus { $0.playerState = "PAUSED"; $0.currentTime = 42 }
        let second = await statuses.next()
        #expect(second??.playerState == .paused)
        #expect(second??.currentTime == 42)
        #expect(harness.media.status?.currentTime == 42)
        try await harness.media.stop()
        let third = await statuses.next()
        #expect(third == .some(nil))
    }

    @Test func aStreamStartedAfterACommandStartsWithItsReplyAndSeesEachStatusOnce() async throws {
        let harness = try await MediaHarness.make()
        defer { Task { await harness.close() } }
        var early = harness.media.statuses.makeAsyncIterator()
        #expect(await early.next() == .some(nil))
        try await harness.media.load(Self.movie)
        var late = harness.media.statuses.makeAsyncIterator()
        #expect(await late.next()??.playerState == .playing)    // the LOAD's reply, at once
        #expect(await early.next()??.playerState == .playing)   // the same reply, once
        await harness.receiver.broadcastStatus { $0.playerState = "PAUSED"; $0.currentTime = 42 }
        #expect(await late.next()??.playerState == .paused)     // next: the broadcast, not the reply again
        #expect(await early.next()??.playerState == .paused)
        #expect(harness.media.status?.playerState == .paused)
    }

    @Test func positionIsExtrapolatedWithTheInjectedClock() async throws {
        let harness = try await MediaHarness.make()
        defer { Task { await harness.close() } }
        try await harness.media.load(Self.movie, startTime: 10, playbackRate: 2)
        #expect(harness.media.estimatedPosition == 10)
        await harness.clock.advance(by: .seconds(3))
        #expect(harness.media.estimatedPosition == 16)
        try await harness.media.pause()
        await harness.clock.advance(by: .seconds(3))
        #expect(harness.media.estimatedPosition == 10)
    }

    @Test func sizeArithmeticMatchesTheTransport() {
        for length in [0, 1, 127, 128, 300, 16_383, 16_384, 70_000] {
            let json: JSONValue = ["type": "LOAD", "blob": .string(String(repeating: "é", count: length))]
            let message = CastMessage(sourceId: "sender-0", destinationId: "web-7",
                                      namespace: "urn:x-cast:com.google.cast.media", json: json)
            #expect(CastMessageSize.encodedSize(sourceId: "sender-0", destinationId: "web-7",
                                                namespace: "urn:x-cast:com.google.cast.media", json: json) == message.encodedSize)
        }
    }
}
