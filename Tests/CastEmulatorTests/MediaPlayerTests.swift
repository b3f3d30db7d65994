import CastJSON
import Testing
@testable import CastEmulator

@Suite("Default Media Receiver: LOAD and playback controls")
struct MediaPlayerTests {
    @Test func getStatusWithoutMediaIsEmpty() {
        var h = PlayerHarness()
        let out = h.request(["type": "GET_STATUS", "requestId": 5])
        #expect(out == [.reply(["type": "MEDIA_STATUS", "requestId": 5, "status": []])])
    }

    @Test func loadStartsPlayingAndEchoesTheMedia() throws {
        var h = PlayerHarness()
        let loaded = media("http://h/a.mp4", duration: 100)
        let out = h.request(["type": "LOAD", "requestId": 45, "media": loaded, "customData": ["k": 1], "sessionId": "x"])
        #expect(out.count == 1)
        guard let status = out[0].broadcastJSON else { Issue.record("LOAD status must be broadcast"); return }
        #expect(status["type"] == "MEDIA_STATUS" && status["requestId"] == 45)
        let entry = try #require(status["status"]?[0])
        #expect(entry["mediaSessionId"] == 1 && entry["playerState"] == "PLAYING" && entry["currentTime"] == 0)
        #expect(entry["playbackRate"] == 1 && entry["repeatMode"] == "REPEAT_OFF" && entry["currentItemId"] == 1)
        #expect(entry["supportedMediaCommands"] == 274_447)
        #expect(entry["media"] == loaded)
        #expect(entry["items"] == [["itemId": 1, "autoplay": true, "media": loaded]])
        #expect(entry["volume"] == ["level": 1, "muted": false])
        #expect(entry["customData"] == ["k": 1])
        #expect(entry["idleReason"] == nil)
    }

    @Test func loadPausedAtAStartTimeWithTracks() throws {
        var h = PlayerHarness()
        let tracks: JSONValue = [["trackId": 1, "type": "TEXT", "subtype": "SUBTITLES", "language": "en-US"]]
        let out = h.request(["type": "LOAD", "media": media("http://h/a.mp4", duration: 100, tracks: tracks),
                             "autoplay": false, "currentTime": 12.5, "activeTrackIds": [1]])
        let entry = try #require(out.lastEntry)
        #expect(entry["playerState"] == "PAUSED" && entry["currentTime"] == 12.5 && entry["activeTrackIds"] == [1])
        // An active track the media does not have is invalid.
        #expect(h.request(["type": "LOAD", "requestId": 9, "media": media("http://h/b.mp4"), "activeTrackIds": [4]])
            == [.reply(["type": "INVALID_REQUEST", "requestId": 9, "reason": "INVALID_PARAMS"])])
    }

    @Test func secondLoadInterruptsTheFirstAndIncrementsIds() throws {
        var h = PlayerHarness()
        h.request(["type": "LOAD", "media": media("http://h/a.mp4")])
        let out = h.request(["type": "LOAD", "requestId": 2, "media": media("http://h/b.mp4")])
        #expect(out.count == 2)
        let interrupted = try #require(out.messages[0]["status"]?[0])
        #expect(out.messages[0]["requestId"] == 0)
        #expect(interrupted["mediaSessionId"] == 1 && interrupted["playerState"] == "IDLE" && interrupted["idleReason"] == "INTERRUPTED")
        #expect(interrupted["media"] == nil)
        let entry = try #require(out.lastEntry)
        #expect(entry["mediaSessionId"] == 2 && entry["currentItemId"] == 2 && out.messages[1]["requestId"] == 2)
    }

    @Test func brokenContentFailsWithCode104ThenEmptyStatus() {
        var h = PlayerHarness()
        h.request(["type": "LOAD", "media": media("http://h/ok.mp4")])
        let out = h.request(["type": "LOAD", "requestId": 3, "media": media("http://h/broken.mp4")])
        #expect(out.count == 3)
        #expect(out.messages[0]["status"]?[0]?["idleReason"] == "INTERRUPTED")
        #expect(out[1] == .reply(["type": "LOAD_FAILED", "requestId": 3, "detailedErrorCode": 104, "itemId": 2]))
        #expect(out[2] == .broadcast(["type": "MEDIA_STATUS", "requestId": 0, "status": []]))
        #expect(h.player.session == nil)
        // contentUrl wins over contentId.
        var url = media("http://h/fine-id")
        url["contentUrl"] = "http://h/broken-url.mp4"
        #expect(h.request(["type": "LOAD", "media": url]).first(type: "LOAD_FAILED") != nil)
    }

    @Test(arguments: [
        ["type": "LOAD"],
        ["type": "LOAD", "media": "http://h/a.mp4"],
        ["type": "LOAD", "media": ["contentType": "video/mp4"]],
        ["type": "LOAD", "media": ["contentId": 5]],
        ["type": "LOAD", "media": ["contentId": "a", "streamType": "SOMETIMES"]],
        ["type": "LOAD", "media": ["contentId": "a", "tracks": [["type": "TEXT"]]]],
        ["type": "LOAD", "media": ["contentId": "a"], "currentTime": "zero"],
        ["type": "LOAD", "media": ["contentId": "a", "duration": "long"]],
        ["type": "LOAD", "media": ["contentId": "a"], "playbackRate": 0],
        ["type": "LOAD", "queueData": ["items": [["itemId": 3, "media": ["contentId": "a"]]]]],
        ["type": "LOAD", "queueData": ["items": [["media": ["contentId": "a"]]], "startIndex": 1]],
        ["type": "LOAD", "queueData": ["items": [["media": ["contentId": "a"]]], "repeatMode": "REPEAT_SOMETIMES"]],
        ["type": "QUEUE_LOAD", "items": []],
        ["type": "QUEUE_LOAD", "items": [["itemId": 1, "media": ["contentId": "a"]]]],
        ["type": "QUEUE_LOAD", "items": [["media": ["contentId": "a"]]], "startIndex": -1],
    ] as [JSONValue])
    func malformedLoadsAreInvalidParamsAndChangeNothing(_ request: JSONValue) {
        var h = PlayerHarness()
        h.request(["type": "LOAD", "media": media("http://h/keep.mp4")])
        let before = h.player.session
        var json = request
        json["requestId"] = 77
        #expect(h.request(json) == [.reply(["type": "INVALID_REQUEST", "requestId": 77, "reason": "INVALID_PARAMS"])])
        #expect(h.player.session == before)
    }

    @Test func commandsNeedAMatchingMediaSession() {
        var h = PlayerHarness()
        #expect(h.request(["type": "PLAY", "requestId": 1, "mediaSessionId": 1])
            == [.reply(["type": "INVALID_PLAYER_STATE", "requestId": 1])])
        h.request(["type": "LOAD", "media": media("http://h/a.mp4")])
        #expect(h.request(["type": "PAUSE", "requestId": 3, "mediaSessionId": 9])
            == [.reply(["type": "INVALID_REQUEST", "requestId": 3, "reason": "INVALID_MEDIA_SESSION_ID"])])
        #expect(h.request(["type": "PAUSE", "requestId": 4])
            == [.reply(["type": "INVALID_REQUEST", "requestId": 4, "reason": "INVALID_PARAMS"])])
        #expect(h.request(["type": "PAUSE", "requestId": 5, "mediaSessionId": "one"])
            == [.reply(["type": "INVALID_REQUEST", "requestId": 5, "reason": "INVALID_PARAMS"])])
        #expect(h.request(["type": "PRECACHE", "requestId": 6])
            == [.reply(["type": "INVALID_REQUEST", "requestId": 6, "reason": "INVALID_COMMAND"])])
        #expect(h.player.session?.playerState == "PLAYING")
    }

    @Test func playPauseAndTheClock() throws {
        var h = PlayerHarness()
        h.request(["type": "LOAD", "media": media("http://h/a.mp4", duration: 100)])
        h.now += .seconds(10)
        var entry = try #require(h.command(["type": "PAUSE"]).lastEntry)
        #expect(entry["playerState"] == "PAUSED" && entry["currentTime"] == 10)
        h.now += .seconds(30)
        entry = try #require(h.command(["type": "PLAY"]).lastEntry)
        #expect(entry["playerState"] == "PLAYING" && entry["currentTime"] == 10)
        h.now += .milliseconds(2500)
        #expect(h.status?["currentTime"] == 12.5)
    }

    @Test func seekAbsoluteRelativeAndResumeState() throws {
        var h = PlayerHarness()
        h.request(["type": "LOAD", "media": media("http://h/a.mp4", duration: 100)])
        var entry = try #require(h.command(["type": "SEEK", "currentTime": 40]).lastEntry)
        #expect(entry["currentTime"] == 40 && entry["playerState"] == "PLAYING")
        entry = try #require(h.command(["type": "SEEK", "relativeTime": -15, "resumeState": "PLAYBACK_PAUSE"]).lastEntry)
        #expect(entry["currentTime"] == 25 && entry["playerState"] == "PAUSED")
        entry = try #require(h.command(["type": "SEEK", "relativeTime": 5, "currentTime": 90, "resumeState": "PLAYBACK_START"]).lastEntry)
        #expect(entry["currentTime"] == 30 && entry["playerState"] == "PLAYING")
        entry = try #require(h.command(["type": "SEEK", "currentTime": -3]).lastEntry)
        #expect(entry["currentTime"] == 0)
        let id = h.player.session!.mediaSessionId
        #expect(h.request(["type": "SEEK", "requestId": 50, "mediaSessionId": JSONValue(id)]).replies.first?["reason"] == "INVALID_PARAMS")
        #expect(h.request(["type": "SEEK", "requestId": 51, "mediaSessionId": JSONValue(id), "currentTime": 1, "resumeState": "FAST"]).replies.first?["reason"] == "INVALID_PARAMS")
    }

    @Test func playbackRateScalesTheClock() throws {
        var h = PlayerHarness()
        h.request(["type": "LOAD", "media": media("http://h/a.mp4", duration: 100)])
        var entry = try #require(h.command(["type": "SET_PLAYBACK_RATE", "playbackRate": 1.5]).lastEntry)
        #expect(entry["playbackRate"] == 1.5)
        h.now += .seconds(10)
        #expect(h.status?["currentTime"] == 15)
        entry = try #require(h.command(["type": "SET_PLAYBACK_RATE", "relativePlaybackRate": 2]).lastEntry)
        #expect(entry["playbackRate"] == 3 && entry["currentTime"] == 15)
        #expect(h.command(["type": "SET_PLAYBACK_RATE", "playbackRate": -1]).replies.first?["reason"] == "INVALID_PARAMS")
        #expect(h.command(["type": "SET_PLAYBACK_RATE"]).replies.first?["reason"] == "INVALID_PARAMS")
    }

    @Test func editTracksInfo() throws {
        var h = PlayerHarness()
        let tracks: JSONValue = [
            ["trackId": 1, "type": "TEXT", "subtype": "SUBTITLES", "language": "en-US"],
            ["trackId": 2, "type": "TEXT", "subtype": "SUBTITLES", "language": "fr"],
            ["trackId": 3, "type": "AUDIO", "language": "en"],
        ]
        h.request(["type": "LOAD", "media": media("http://h/a.mp4", duration: 100, tracks: tracks)])
        var entry = try #require(h.command(["type": "EDIT_TRACKS_INFO", "activeTrackIds": [1, 3]]).lastEntry)
        #expect(entry["activeTrackIds"] == [1, 3])
        let style: JSONValue = ["backgroundColor": "#00000080", "fontScale": 1.2, "edgeType": "OUTLINE"]
        entry = try #require(h.command(["type": "EDIT_TRACKS_INFO", "textTrackStyle": style]).lastEntry)
        #expect(entry["media"]?["textTrackStyle"] == style && entry["activeTrackIds"] == [1, 3])
        entry = try #require(h.command(["type": "EDIT_TRACKS_INFO", "language": "fr"]).lastEntry)
        #expect(entry["activeTrackIds"] == [3, 2])
        entry = try #require(h.command(["type": "EDIT_TRACKS_INFO", "enableTextTracks": false]).lastEntry)
        #expect(entry["activeTrackIds"] == [3])
        entry = try #require(h.command(["type": "EDIT_TRACKS_INFO", "activeTrackIds": []]).lastEntry)
        #expect(entry["activeTrackIds"] == [])
        #expect(h.command(["type": "EDIT_TRACKS_INFO", "activeTrackIds": [9]]).replies.first?["reason"] == "INVALID_PARAMS")
        #expect(h.command(["type": "EDIT_TRACKS_INFO", "language": "de"]).replies.first?["reason"] == "LANGUAGE_NOT_SUPPORTED")
    }

    @Test func streamVolume() throws {
        var h = PlayerHarness()
        #expect(h.request(["type": "SET_VOLUME", "requestId": 1, "mediaSessionId": 1, "volume": ["level": 0.5]]).replies.first?["type"] == "INVALID_PLAYER_STATE")
        h.request(["type": "LOAD", "media": media("http://h/a.mp4")])
        var entry = try #require(h.command(["type": "SET_VOLUME", "volume": ["level": 0.25]]).lastEntry)
        #expect(entry["volume"] == ["level": 0.25, "muted": false])
        entry = try #require(h.command(["type": "SET_VOLUME", "volume": ["muted": true]]).lastEntry)
        #expect(entry["volume"] == ["level": 0.25, "muted": true])
        #expect(h.command(["type": "SET_VOLUME", "volume": [:]]).replies.first?["reason"] == "INVALID_PARAMS")
    }

    @Test func stopEndsTheMediaSession() throws {
        var h = PlayerHarness()
        h.request(["type": "LOAD", "media": media("http://h/a.mp4", duration: 100)])
        h.now += .seconds(3)
        let out = h.command(["type": "STOP", "requestId": 12])
        #expect(out.broadcasts.count == 1)
        let entry = try #require(out.lastEntry)
        #expect(out.messages[0]["requestId"] == 12)
        #expect(entry["playerState"] == "IDLE" && entry["idleReason"] == "CANCELLED" && entry["currentTime"] == 3)
        #expect(h.request(["type": "GET_STATUS", "requestId": 13]) == [.reply(["type": "MEDIA_STATUS", "requestId": 13, "status": []])])
        #expect(h.request(["type": "PLAY", "requestId": 14, "mediaSessionId": 1]).replies.first?["type"] == "INVALID_PLAYER_STATE")
    }

    @Test func getStatusOptions() throws {
        var h = PlayerHarness()
        h.request(["type": "LOAD", "media": media("http://h/a.mp4")])
        let full = try #require(h.request(["type": "GET_STATUS"]).lastEntry)
        #expect(full["media"]?["metadata"] != nil && full["items"] != nil)
        let noMetadata = try #require(h.request(["type": "GET_STATUS", "options": 1]).lastEntry)
        #expect(noMetadata["media"] != nil && noMetadata["media"]?["metadata"] == nil)
        let noItems = try #require(h.request(["type": "GET_STATUS", "options": 2]).lastEntry)
        #expect(noItems["items"] == nil && noItems["media"]?["metadata"] != nil)
        #expect(h.request(["type": "GET_STATUS", "options": "all"]).replies.first?["reason"] == "INVALID_PARAMS")
    }
}
