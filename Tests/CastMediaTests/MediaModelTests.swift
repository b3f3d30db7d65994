import CastMediaTestSupport
import CastJSON
import CastMediaMetadata
import CastTestSupport
import Foundation
import Testing

@testable import CastMedia

@Suite("Media models decode real receiver JSON")
struct MediaModelDecodingTests {
    static let chromecastAudio = """
        {"type":"MEDIA_STATUS","requestId":3,"status":[{"mediaSessionId":1,"playbackRate":1,"playerState":"BUFFERING",
         "currentTime":0,"supportedMediaCommands":15,"volume":{"level":1,"muted":false},"repeatMode":"REPEAT_OFF",
         "currentItemId":1,"media":{"contentId":"http://example.com/audio-123-mp3","contentType":"audio/mpeg","duration":389.355102,"streamType":"buffered"},
         "items":[{"itemId":1,"autoplay":true,"customData":{},"media":{"contentId":"http://example.com/audio-123-mp3","contentType":"audio/mpeg","duration":389.355102,"streamType":"buffered"}}]}]}
        """

    @Test func chromecastAudioStatus() throws {
        let message = try JSONDecoder().decode(MediaStatusMessage.self, from: Data(Self.chromecastAudio.utf8))
        #expect(message.requestId == 3)
        let status = try #require(message.first)
        #expect(status.mediaSessionId == 1)
        #expect(status.playerState == .buffering)
        #expect(status.supportedMediaCommands == [.pause, .seek, .streamVolume, .streamMute])
        #expect(status.volume == MediaVolume(level: 1, muted: false))
        #expect(status.repeatMode == .off)
        #expect(status.currentItemId == 1)
        #expect(status.media?.streamType == .buffered)
        #expect(status.media?.duration == 389.355102)
        #expect(status.items?.first?.itemId == 1)
        #expect(status.items?.first?.customData == CastCustomData([:]))
    }

    @Test func finishedStatusWithoutMedia() throws {
        let text = """
            {"type":"MEDIA_STATUS","requestId":0,"status":[{"mediaSessionId":7,"playbackRate":1,"playerState":"IDLE",
             "currentTime":0,"supportedMediaCommands":274447,"volume":{"level":1,"muted":false},"currentItemId":7,"idleReason":"FINISHED"}]}
            """
        let status = try #require(try JSONDecoder().decode(MediaStatusMessage.self, from: Data(text.utf8)).first)
        #expect(status.playerState == .idle)
        #expect(status.idleReason == .finished)
        #expect(status.media == nil)
        #expect(status.supportedMediaCommands.contains(.allBasicMedia))
        #expect(status.supportedMediaCommands.contains(.streamTransfer))
        #expect(status.supportedMediaCommands == [.allBasicMedia, .streamTransfer])
    }

    @Test func emptyStatusMeansNoSession() throws {
        let message = try JSONDecoder().decode(MediaStatusMessage.self, from: Data(#"{"type":"MEDIA_STATUS","requestId":1401,"status":[]}"#.utf8))
        #expect(message.status.isEmpty)
        #expect(message.first == nil)
    }

    @Test func loadingExtendedStatus() throws {
        let text = """
            {"type":"MEDIA_STATUS","status":[{"mediaSessionId":4,"playerState":"IDLE","currentTime":0,"playbackRate":1,
             "supportedMediaCommands":12303,"extendedStatus":{"playerState":"LOADING","mediaSessionId":4,
             "media":{"contentId":"http://h/x.mp4","contentType":"video/mp4","streamType":"BUFFERED"}},
             "liveSeekableRange":{"start":10,"end":100,"isMovingWindow":true,"isLiveDone":false},
             "videoInfo":{"width":1920,"height":1080,"hdrType":"hdr"},"loadingItemId":3,"preloadedItemId":5,
             "queueData":{"id":"q","name":"Mix","queueType":"PLAYLIST","repeatMode":"REPEAT_ALL","shuffle":false,"startIndex":0}}]}
            """
        let status = try #require(try JSONDecoder().decode(MediaStatusMessage.self, from: Data(text.utf8)).first)
        #expect(status.isLoading)
        #expect(status.extendedStatus?.media?.contentId == "http://h/x.mp4")
        #expect(status.liveSeekableRange == LiveSeekableRange(start: 10, end: 100, isMovingWindow: true, isLiveDone: false))
        #expect(status.videoInfo?.hdrType == .hdr)
        #expect(status.loadingItemId == 3 && status.preloadedItemId == 5)
        #expect(status.queueData?.queueType == .playlist)
        #expect(status.queueData?.repeatMode == .all)
    }

    @Test func unknownValuesArePreserved() throws {
        let text = """
            {"type":"MEDIA_STATUS","status":[{"mediaSessionId":2,"playerState":"WARPING","idleReason":"ALIENS",
             "repeatMode":"REPEAT_SOMETIMES","supportedMediaCommands":1048576,"futureField":{"x":1},
             "media":{"contentId":"c","contentType":"video/mp4","streamType":"HOLOGRAPHIC","breaks":[{"id":"b1"}],
                      "metadata":{"metadataType":42,"title":"T","newThing":true},
                      "tracks":[{"trackId":1,"type":"SMELL","subtype":"AROMA","trackContentId":"x"}]}},
             {"playerState":"PLAYING"}]}
            """
        let message = try JSONDecoder().decode(MediaStatusMessage.self, from: Data(text.utf8))
        #expect(message.status.count == 1)  // the entry without mediaSessionId is skipped
        let status = try #require(message.first)
        #expect(status.playerState.rawValue == "WARPING")
        #expect(status.playerState != .playing)
        #expect(status.idleReason?.rawValue == "ALIENS")
        #expect(status.repeatMode?.rawValue == "REPEAT_SOMETIMES")
        #expect(status.supportedMediaCommands.rawValue == 1_048_576)
        let media = try #require(status.media)
        #expect(media.streamType.rawValue == "HOLOGRAPHIC")
        #expect(media.additionalFields["breaks"] == [["id": "b1"]])
        #expect(media.metadata?.metadataType.rawValue == 42)
        #expect(media.metadata?[field: "newThing"] == true)
        #expect(media.tracks?.first?.type.rawValue == "SMELL")
        // Echoing the media keeps the unknown members.
        let echoed = try JSONValue(encoding: media)
        #expect(echoed["breaks"] == [["id": "b1"]])
        #expect(echoed["streamType"] == "HOLOGRAPHIC")
        #expect(echoed["metadata"]?["newThing"] == true)
    }

    @Test func absurdNumbersAreRefusedNotFatal() throws {
        let text = """
            {"type":"MEDIA_STATUS","requestId":1e300,"status":[{"mediaSessionId":3,"supportedMediaCommands":1e300,
             "metadataType":1e300,"activeTrackIds":[1e300],"currentItemId":-1e300,
             "media":{"contentId":"c","contentType":"t","metadata":{"metadataType":1e300},"tracks":[{"trackId":1e300}]}}]}
            """
        let message = try JSONDecoder().decode(MediaStatusMessage.self, from: Data(text.utf8))
        let status = try #require(message.first)
        #expect(message.requestId == nil)
        #expect(status.supportedMediaCommands == [])
        #expect(status.activeTrackIds == nil)
        #expect(status.currentItemId == nil)
        #expect(status.media?.metadata == nil)
        #expect(status.media?.tracks == nil)
    }

    @Test func referenceLoadMediaRoundTrips() throws {
        let text = """
            {"contentId":"http://host/a.mp4","contentType":"video/mp4","streamType":"BUFFERED",
             "metadata":{"metadataType":0,"title":"Big Buck Bunny","images":[{"url":"http://host/a.jpg"}]},
             "tracks":[{"trackId":1,"type":"TEXT","subtype":"SUBTITLES","trackContentId":"http://host/a.vtt",
                        "trackContentType":"text/vtt","language":"en-US","name":"en-US - 1 Subtitle"}],
             "textTrackStyle":{"backgroundColor":"#FFFFFF00","edgeType":"OUTLINE","edgeColor":"#000000FF"}}
            """
        let json = try JSONValue(parsing: text)
        let media = try json.decode(as: MediaInformation.self)
        #expect(media.tracks == [.text(id: 1, contentId: "http://host/a.vtt", name: "en-US - 1 Subtitle", language: "en-US")])
        #expect(media.textTrackStyle?.backgroundColor == CastColor(red: 255, green: 255, blue: 255, alpha: 0))
        #expect(media.textTrackStyle?.edgeType == .outline)
        #expect(media.metadata?.title == "Big Buck Bunny")
        #expect(try JSONValue(encoding: media) == json)
    }

    @Test func lowerCaseStreamTypeIsNormalised() throws {
        #expect(StreamType(rawValue: "buffered") == .buffered)
        #expect(StreamType(rawValue: "live") == .live)
        #expect(StreamType(rawValue: "Other").rawValue == "Other")
    }

    @Test func colours() {
        #expect(CastColor(cssString: "#FF000080") == CastColor(red: 255, green: 0, blue: 0, alpha: 128))
        #expect(CastColor(cssString: "#F00") == CastColor(red: 255, green: 0, blue: 0, alpha: 255))
        #expect(CastColor(cssString: "#00ff00") == CastColor(red: 0, green: 255, blue: 0))
        #expect(CastColor(cssString: "red") == nil)
        #expect(CastColor(cssString: "#12345") == nil)
        #expect(CastColor(cssString: "#GG0000") == nil)
        #expect(CastColor(red: 1, green: 2, blue: 171, alpha: 0).cssString == "#0102AB00")
    }

    @Test func textTrackStyleEncoding() throws {
        var style = TextTrackStyle()
        style.foregroundColor = CastColor(cssString: "#FF000080")
        style.fontFamily = "serif"
        style.fontGenericFamily = .serif
        style.windowType = .roundedCorners
        style.windowRoundedCornerRadius = 8
        #expect(try JSONValue(encoding: style) == [
            "foregroundColor": "#FF000080", "fontFamily": "serif", "fontGenericFamily": "SERIF",
            "windowType": "ROUNDED_CORNERS", "windowRoundedCornerRadius": 8,
        ])
        // A bad colour is ignored, not fatal.
        let decoded = try JSONValue(parsing: #"{"foregroundColor":"blue","fontScale":1.5}"#).decode(as: TextTrackStyle.self)
        #expect(decoded.foregroundColor == nil && decoded.fontScale == 1.5)
    }

    @Test func trackDisplayName() {
        let named = MediaTrack.text(id: 1, contentId: "x", name: "English SDH", language: "en-US")
        #expect(named.displayName() == "English SDH")
        #expect(named.languageCode == "en")
        let unnamed = MediaTrack.audio(id: 2, language: "fr")
        #expect(unnamed.displayName(locale: Locale(identifier: "en_US")) == "French")
        #expect(MediaTrack.video(id: 3).displayName() == nil)
    }

    @Test func errorReplies() throws {
        let failed = try #require(CastMediaError(reply: ["requestId": 1, "type": "LOAD_FAILED", "detailedErrorCode": 104]))
        #expect(failed.code == .loadFailed)
        #expect(failed.detailedErrorCode == .mediaSourceNotSupported)
        #expect(failed.detailedErrorCode?.name == "MEDIA_SRC_NOT_SUPPORTED")
        #expect(failed.message.contains("MEDIA_SRC_NOT_SUPPORTED"))
        let invalid = try #require(CastMediaError(reply: ["type": "INVALID_REQUEST", "reason": "INVALID_MEDIA_SESSION_ID"]))
        #expect(invalid.code == .invalidRequest)
        #expect(invalid.reason == .invalidMediaSessionId)
        #expect(CastMediaError(reply: ["type": "INVALID_PLAYER_STATE"])?.code == .invalidPlayerState)
        #expect(CastMediaError(reply: ["type": "LOAD_CANCELLED", "itemId": 3])?.itemId == 3)
        #expect(CastMediaError(reply: ["type": "ERROR", "reason": "APP_ERROR"])?.reason == .appError)
        #expect(CastMediaError(reply: ["type": "MEDIA_STATUS"]) == nil)
        #expect(DetailedErrorCode(rawValue: 12345).name == nil)
        #expect(DetailedErrorCode(rawValue: 316).name == "HLS_SEGMENT_PARSING")
    }
}

@Suite("Position extrapolation")
struct MediaPositionTests {
    func status(_ state: PlayerState, time: Double, rate: Double = 1, duration: Double? = 100,
                stream: StreamType = .buffered, liveEnd: Double? = nil) -> MediaStatus {
        MediaStatus(mediaSessionId: 1, playerState: state, currentTime: time, playbackRate: rate,
                    media: MediaInformation(contentId: "x", contentType: "video/mp4", streamType: stream, duration: duration),
                    liveSeekableRange: liveEnd.map { LiveSeekableRange(start: 0, end: $0) })
    }

    @Test func playingAdvancesAtTheRate() {
        #expect(MediaPosition.estimate(from: status(.playing, time: 10), elapsed: .seconds(5)) == 15)
        #expect(MediaPosition.estimate(from: status(.playing, time: 10, rate: 2), elapsed: .seconds(5)) == 20)
        #expect(MediaPosition.estimate(from: status(.playing, time: 10, rate: 0.5), elapsed: .milliseconds(500)) == 10.25)
    }

    @Test func otherStatesStandStill() {
        for state in [PlayerState.paused, .buffering, .idle, PlayerState(rawValue: "NEW")] {
            #expect(MediaPosition.estimate(from: status(state, time: 10), elapsed: .seconds(5)) == 10)
        }
    }

    @Test func clamped() {
        #expect(MediaPosition.estimate(from: status(.playing, time: 98), elapsed: .seconds(5)) == 100)
        #expect(MediaPosition.estimate(from: status(.playing, time: 98, duration: nil), elapsed: .seconds(5)) == 103)
        #expect(MediaPosition.estimate(from: status(.playing, time: 50, duration: nil, stream: .live, liveEnd: 52), elapsed: .seconds(5)) == 52)
        #expect(MediaPosition.estimate(from: status(.playing, time: 5), elapsed: .seconds(-3)) == 5)
    }

    @Test func trackerUsesTheInjectedClock() async {
        let clock = ManualClock()
        var tracker = MediaPositionTracker(clock: clock)
        #expect(tracker.position() == nil)
        tracker.update(status(.playing, time: 10))
        #expect(tracker.position() == 10)
        await clock.advance(by: .seconds(3))
        #expect(tracker.position() == 13)
        tracker.update(status(.paused, time: 13))
        await clock.advance(by: .seconds(30))
        #expect(tracker.position() == 13)
        tracker.reset()
        #expect(tracker.position() == nil)
    }
}
