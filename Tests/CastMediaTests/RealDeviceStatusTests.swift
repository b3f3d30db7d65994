import CastChannels
import CastJSON
import CastTestSupport
import CastTLS
import Foundation
import Testing

@testable import CastMedia

/// MEDIA_STATUS messages that real receivers sent (a Chromecast Audio, the Default Media Receiver
/// playing video, Pandora, a transcoding media server's app), captured by another sender library,
/// chromecast-java-api-v2, and committed unchanged under `Tests/PeerData/chromecast-java-api-v2/`
/// (origin and licence in its `ORIGIN.md`). They are written the ways apps write them: pretty-printed
/// or compact, `responseType` instead of `type`, `null` where a string belongs, upper-case stream
/// types, members in any order.
@Suite("MEDIA_STATUS as real receivers sent it")
struct RealDeviceStatusTests {
    static let mediaStatusFiles = PeerData.ChromecastJavaAPI.mediaStatusFiles

    static func text(_ file: String) throws -> String { try PeerData.ChromecastJavaAPI.text(file) }

    /// The reference reading of a file: parsed to a tree, then decoded from it.
    static func reference(_ file: String) throws -> MediaStatusMessage {
        try MediaStatusMessage(json: JSONValue(parsing: text(file)))
    }

    @Test(arguments: mediaStatusFiles)
    func bytesDecodeAsTheTreeDoes(_ file: String) throws {
        MediaStatusReadingTests.expectSameOutcome(try Self.text(file))
    }

    /// What the captures say, read back field by field: the decoders agree with each other above, and
    /// here with what the devices sent.
    @Test func theDevicesSaidWhatTheirCapturesSay() throws {
        let audio = try #require(try Self.reference("mediaStatus-chromecast-audio.json").first)
        #expect(audio.playerState == .buffering)
        #expect(audio.media?.duration == 389.355102)
        #expect(audio.media?.streamType == .buffered)
        #expect(audio.volume?.level == 1)
        #expect(audio.items?.first?.itemId == 1)
        #expect(audio.supportedMediaCommands.rawValue == 15)

        let video = try #require(try Self.reference("mediaStatus-with-videoinfo.json").first)
        #expect(video.videoInfo?.width == 1280 && video.videoInfo?.height == 720)
        #expect(video.media?.duration == 596.474195)

        // Pandora says `responseType`, not `type`, and upper-case BUFFERED.
        let pandora = try Self.text("mediaStatus-pandora.json")
        let routed = try MediaStatusMessage.routed(utf8: pandora.utf8)
        #expect(routed.type == "MEDIA_STATUS")
        let song = try #require(routed.message.first)
        #expect(song.playerState == .playing)
        #expect(song.currentTime == 16)
        #expect(song.media?.streamType == .buffered)
        #expect(song.media?.duration == 246)

        let loading = try #require(try Self.reference("mediaStatus-audio-with-extraStatus.json").first)
        #expect(loading.playerState == .idle)
        #expect(loading.extendedStatus?.playerState == .loading)
        #expect(loading.isLoading)

        let failed = try #require(try Self.reference("mediaStatus-with-idleReason.json").first)
        #expect(failed.idleReason == .error)
        #expect(failed.media?.duration == nil)
    }

    /// One connection's memory of earlier statuses (what `CastMediaChannel` keeps) changes nothing:
    /// every capture, in turn and twice over, reads as it reads alone.
    @Test func aMemoryOfTheOthersChangesNothing() throws {
        var memory = MediaStatusMemory()
        for file in Self.mediaStatusFiles + Self.mediaStatusFiles {
            let text = try Self.text(file)
            let remembered = try MediaStatusMessage.routed(utf8: text.utf8, remembering: &memory)
            #expect(remembered.message == (try MediaStatusMessage(utf8: text.utf8)), "\(file)")
        }
    }

    /// Over real TLS from an OpenSSL device (`openssl_peer.py device --media-status …`) that answers
    /// each media request with the next capture's bytes: the channel joins the app, asks for the
    /// status, and every later request returns what the tree decoder reads from that capture.
    @Test(.enabled(if: OpenSSLPeer.isAvailable, "needs python3 with the ssl module"), .timeLimit(.minutes(1)))
    func aDeviceSpeakingTheCapturesIsUnderstood() async throws {
        // Each capture twice in a row (the second time the channel's memory holds its media), then the
        // first again after all the others.
        let order = Self.mediaStatusFiles.flatMap { [$0, $0] } + [Self.mediaStatusFiles[0]]
        let device = try await OpenSSLDevice.start(order.flatMap { ["--media-status", PeerData.ChromecastJavaAPI.path($0)] })
        let transport = try await TLSCastTransport.connect(
            host: "127.0.0.1", port: device.port, configuration: .init(connectTimeout: .seconds(60)))
        let clock = ManualClock()
        let connection = CastConnection(
            transport: transport, configuration: .init(heartbeatInterval: .seconds(5), livenessTimeout: .seconds(10)), clock: clock)
        let media = CastMediaChannel(clock: clock, requestsStatusOnConnect: true)
        var statuses = media.statuses.makeAsyncIterator()
        #expect(await statuses.next() == .some(nil))
        try await connection.add(media)
        let receiver = try await connection.start()
        #expect(receiver.applications.first?.transportId == "web-5")
        // Joining asked for the status: the first capture.
        let joined = await statuses.next() ?? nil
        #expect(joined == (try Self.reference(order[0]).first))
        for (index, file) in order.enumerated().dropFirst() {
            let expected = try Self.reference(file).first
            if index == order.count - 1 {
                // The last as the answer to a command: SEEK needs the session the previous status had.
                #expect(try await media.seek(to: 12) == expected, "\(file)")
            } else {
                #expect(try await media.getStatus() == expected, "\(file)")
            }
            #expect(media.status == expected, "\(file)")
        }
        // Each reply was also published, once and in order, whether the channel took it at once on the
        // event loop or through its callback (the status stream has buffered them all).
        for file in order.dropFirst() {
            #expect(await statuses.next() == .some(try Self.reference(file).first), "\(file)")
        }
        #expect(clock.now == ManualClock.Instant(offset: .zero), "no timer was needed")
        await connection.close()
    }
}
