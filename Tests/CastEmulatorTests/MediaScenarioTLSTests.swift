import CastChannels
import CastJSON
import CastMedia
import CastQueue
import CastTLS
import Foundation
import Testing
@testable import CastEmulator

/// Castor's own media and queue sender against the emulated device over real TLS: every command
/// gets the answer a device gives, and the violations log stays empty.
@Suite("Media and queue scenarios over TLS")
struct MediaScenarioTLSTests {
    struct Session {
        let receiver: EmulatedReceiver
        let connection: CastConnection
        let media: CastMediaChannel

        func close() async {
            await connection.close()
            await receiver.stop()
        }
    }

    func launch(_ configure: (inout EmulatedReceiverConfiguration) -> Void = { _ in }) async throws -> Session {
        var configuration = EmulatedReceiverConfiguration(name: "Scenario TV")
        configure(&configuration)
        let receiver = EmulatedReceiver(configuration: configuration)
        try await receiver.start()
        let port = try #require(await receiver.port)
        let connection = CastConnection(transport: try await TLSCastTransport.connect(host: "127.0.0.1", port: port))
        let media = CastMediaChannel()
        try await connection.add(media)
        try await connection.start()
        _ = try await connection.receiver.launch(appId: "CC1AD845")
        // Bounded by the connection's request timeout (on the real clock here).
        _ = try await connection.waitUntilConnected(media)
        #expect(media.isConnected)
        return Session(receiver: receiver, connection: connection, media: media)
    }

    func movie(_ name: String, duration: Double = 600) -> MediaInformation {
        MediaInformation(
            contentId: "http://127.0.0.1/\(name).mp4", contentType: "video/mp4", duration: duration,
            tracks: [MediaTrack(trackId: 1, type: .text, subtype: .subtitles, contentId: "http://127.0.0.1/\(name).vtt",
                                contentType: "text/vtt", name: "English", language: "en-US")])
    }

    @Test func singleMediaControls() async throws {
        let session = try await launch()
        let media = session.media
        var status = try await media.load(movie("a"), activeTrackIds: [1])
        #expect(status.playerState == .playing && status.mediaSessionId == 1 && status.activeTrackIds == [1])
        #expect(status.media?.contentId == "http://127.0.0.1/a.mp4")
        status = try await media.pause()
        #expect(status.playerState == .paused)
        status = try await media.seek(to: 30)
        #expect(status.currentTime == 30)
        status = try await media.play()
        #expect(status.playerState == .playing)
        status = try await media.setPlaybackRate(1.5)
        #expect(status.playbackRate == 1.5)
        status = try await media.setActiveTracks([])
        #expect(status.activeTrackIds == [])
        status = try await media.setTextTrackStyle(TextTrackStyle(foregroundColor: CastColor(red: 255, green: 255, blue: 0)))
        #expect(status.media?.textTrackStyle != nil)
        status = try await media.setStreamVolume(0.5)
        #expect(status.volume?.level == 0.5)
        status = try await media.setStreamMuted(true)
        #expect(status.volume?.muted == true)
        let stopped = try await media.stop()
        #expect(stopped == nil || stopped?.playerState == .idle)
        #expect(try await media.getStatus() == nil)
        #expect(await session.receiver.violations.isEmpty)
        await session.close()
    }

    @Test func queueScenario() async throws {
        let session = try await launch()
        let media = session.media
        let items = ["one", "two", "three"].map { QueueItem(media: movie($0)) }
        var status = try await media.queueLoad(items, startIndex: 0)
        #expect(status.currentItemId == 1)
        status = try await media.queueNext()
        #expect(status.currentItemId == 2)
        status = try await media.queuePrevious()
        #expect(status.currentItemId == 1)
        status = try await media.queueInsert([QueueItem(media: movie("four"))], before: 2)
        #expect(try await media.queueFetchItemIds() == [1, 4, 2, 3])
        status = try await media.queueReorder([3], before: 1)
        #expect(try await media.queueFetchItemIds() == [3, 1, 4, 2])
        status = try await media.queueRemove([4])
        #expect(try await media.queueFetchItemIds() == [3, 1, 2])
        let fetched = try await media.queueFetchItems([2, 3])
        #expect(fetched.map(\.itemId) == [2, 3])
        #expect(fetched.first?.media?.contentId == "http://127.0.0.1/two.mp4")
        status = try await media.queueSetRepeatMode(.all)
        #expect(status.repeatMode == .all)
        status = try await media.queueJump(to: 2)
        #expect(status.currentItemId == 2)
        status = try await media.queueShuffle()
        #expect(Set(try await media.queueFetchItemIds()) == [1, 2, 3])
        #expect(await session.receiver.violations.isEmpty)
        await session.close()
    }

    @Test func brokenContentFailsWithCode104() async throws {
        let session = try await launch { $0.isBrokenContent = { $0.contains("broken") } }
        do {
            try await session.media.load(movie("broken"))
            Issue.record("LOAD of broken content succeeded")
        } catch {
            #expect(error.code == .loadFailed)
            #expect(error.detailedErrorCode?.rawValue == 104)
        }
        #expect(await session.receiver.violations.isEmpty)
        await session.close()
    }
}
