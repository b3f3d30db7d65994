import CastJSON
import CastTestSupport
import CastTLS
import Foundation
import Testing

@_spi(Fuzzing) @testable import CastChannels

/// RECEIVER_STATUS messages real devices sent (Backdrop on firmware 1.18, 1.19 and 1.28, Chrome
/// mirroring, Spotify with the equalizer a Home speaker reports), captured by chromecast-java-api-v2
/// and committed unchanged under `Tests/PeerData/chromecast-java-api-v2/` (see its `ORIGIN.md`).
@Suite("RECEIVER_STATUS as real devices sent it", .serialized)
struct RealDeviceReceiverStatusTests {
    static let files = PeerData.ChromecastJavaAPI.receiverStatusFiles

    static func text(_ file: String) throws -> String { try PeerData.ChromecastJavaAPI.text(file) }

    @Test(arguments: files)
    func bytesDecodeAsTheTreeDoes(_ file: String) throws {
        _ = try ReceiverStatusReadingTests.same(try Self.text(file))
    }

    @Test func theDevicesSaidWhatTheirCapturesSay() throws {
        let backdrop = try ReceiverStatusReadingTests.same(try Self.text("status-backdrop-1.18.json"))
        #expect(backdrop.applications.map(\.appId) == ["E8C28D3C"])
        #expect(backdrop.applications.first?.transportId == "web-3")
        #expect(backdrop.isActiveInput == true && backdrop.isStandBy == false)
        let spotify = try ReceiverStatusReadingTests.same(try Self.text("status-spotify.json"))
        let app = try #require(spotify.applications.first)
        #expect(app.displayName == "Spotify" && app.supports(.media))
        #expect(app.namespaces.contains("urn:x-cast:com.spotify.chromecast.secure.v1"))
        #expect(spotify.volume.controlType == .master)
        #expect(spotify.volume.level == 0.2258118838071823)
        let mirroring = try ReceiverStatusReadingTests.same(try Self.text("status-chrome-mirroring-1.28.json"))
        #expect(mirroring.applications.first?.statusText == " (Tab)")
    }

    /// Over real TLS from an OpenSSL device answering the receiver namespace with the captures' bytes,
    /// in turn: the connection starts on the first, and each later GET_STATUS returns the next one as
    /// the tree decoder reads it.
    @Test(.enabled(if: OpenSSLPeer.isAvailable, "needs python3 with the ssl module"), .timeLimit(.minutes(1)))
    func aDeviceSpeakingTheCapturesIsUnderstood() async throws {
        let device = try await OpenSSLDevice.start(
            Self.files.flatMap { ["--receiver-status", PeerData.ChromecastJavaAPI.path($0)] })
        let transport = try await TLSCastTransport.connect(
            host: "127.0.0.1", port: device.port, configuration: .init(connectTimeout: .seconds(60)))
        let clock = ManualClock()
        let connection = CastConnection(
            transport: transport, configuration: .init(heartbeatInterval: .seconds(5), livenessTimeout: .seconds(10)), clock: clock)
        let first = try await connection.start()
        #expect(first == (try CastChannelsFuzzing.receiverStatusDecoderOutcomes(try Self.text(Self.files[0])).1.get()))
        for file in Self.files.dropFirst() {
            let expected = try CastChannelsFuzzing.receiverStatusDecoderOutcomes(try Self.text(file)).1.get()
            #expect(try await connection.receiver.getStatus() == expected, "\(file)")
        }
        #expect(clock.now == ManualClock.Instant(offset: .zero), "no timer was needed")
        await connection.close()
    }
}
