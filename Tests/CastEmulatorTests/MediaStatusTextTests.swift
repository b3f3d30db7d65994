import CastJSON
import Testing
@testable import CastEmulator

/// The MEDIA_STATUS the model writes as text (``MediaPlayerModel/statusText(requestId:at:)``) is byte for
/// byte what the tree it replaces serializes to. `PlayerHarness` checks this after every step of every
/// player test; these cases add the members those tests seldom set.
@Suite struct MediaStatusTextTests {
    /// Media with what a writer can get wrong: escapes, non-ASCII, control characters, fractions,
    /// nested metadata and tracks, custom data.
    func awkwardMedia(_ index: Int) -> JSONValue {
        [
            "contentId": .string("http://h/\(index)/\"quoted\"\\back.mp4"),
            "contentType": "video/mp4",
            "duration": .number(123.456 + Double(index)),
            "metadata": ["metadataType": 1, "title": "Été \u{1F3B5} tab\there\nline \u{01}", "images": [["url": "http://i/1.png", "width": 1.5]]],
            "tracks": [["trackId": 1, "type": "TEXT", "language": "fr-CA"], ["trackId": 2, "type": "AUDIO"]],
            "customData": ["nested": ["deep": [1, 2.25, -3e-7, true, .null]]],
        ]
    }

    @Test func aQueueWithEveryOptionalMember() {
        var h = PlayerHarness()
        let queue: JSONValue = .array((0..<4).map { ["media": awkwardMedia($0), "preloadTime": 5, "customData": ["n": .number(Double($0))]] })
        h.request(["type": "LOAD", "media": awkwardMedia(9), "customData": ["session": ["a": "b"]], "activeTrackIds": [1, 2],
                   "queueData": ["name": "Mix \"one\"", "queueType": "PLAYLIST", "repeatMode": "REPEAT_ALL", "items": queue,
                                 "startIndex": 1]])
        h.command(["type": "SET_PLAYBACK_RATE", "playbackRate": 1.75])
        h.command(["type": "SET_VOLUME", "volume": ["level": 0.333, "muted": true]])
        h.advance(by: .milliseconds(118_700))  // past the preload point of the next item
        h.command(["type": "SEEK", "currentTime": 12.5])
        h.command(["type": "PAUSE"])
        h.command(["type": "QUEUE_UPDATE", "jump": -1])
        h.command(["type": "EDIT_TRACKS_INFO", "activeTrackIds": [2]])
        let text = h.player.statusText(requestId: 2_147_483_647, at: h.now)
        #expect(text == h.player.status(requestId: 2_147_483_647, at: h.now).serialized())
        let entry = try? JSONValue(parsing: text)["status"]?[0]
        #expect(entry?["queueData"]?["name"] == "Mix \"one\"" && entry?["playbackRate"] == 1.75)
        #expect(entry?["items"]?.arrayValue?.count == 3, "the previous, current and next items")
    }

    /// Whether two byte arrays are the same buffer (not merely equal bytes).
    func sameBuffer(_ a: [UInt8]?, _ b: [UInt8]?) -> Bool {
        guard let a, let b else { return false }
        return a.withUnsafeBufferPointer { x in b.withUnsafeBufferPointer { y in x.baseAddress == y.baseAddress } }
    }

    /// A broadcast reuses the end of the previous status when only the time or nothing in it changed,
    /// and writes it again when anything it holds changed; every text is still the tree's.
    @Test func theTailAfterCurrentTimeIsReusedOnlyWhileWhatItHoldsIsUnchanged() {
        var h = PlayerHarness()
        h.request(["type": "QUEUE_LOAD", "items": .array((0..<3).map { ["media": awkwardMedia($0)] })])
        let loaded = h.player.statusTail?.text
        #expect(loaded != nil, "a broadcast keeps its tail")
        h.command(["type": "SEEK", "currentTime": 30])
        #expect(sameBuffer(h.player.statusTail?.text, loaded), "a SEEK changes only the time")
        h.advance(by: .seconds(3))
        h.command(["type": "SEEK", "relativeTime": -1.5])
        #expect(sameBuffer(h.player.statusTail?.text, loaded))
        // Each change below is after currentTime: the tail is written again, and then kept.
        var last = h.player.statusTail?.text
        for change: JSONValue in [
            ["type": "PAUSE"],  // playerState
            ["type": "SET_PLAYBACK_RATE", "playbackRate": 2],
            ["type": "SET_VOLUME", "volume": ["level": 0.25]],
            ["type": "SET_VOLUME", "volume": ["muted": true]],
            ["type": "QUEUE_UPDATE", "repeatMode": "REPEAT_ALL"],
            ["type": "QUEUE_UPDATE", "items": [["itemId": 2, "customData": ["edited": true]]]],  // the next item's text
            ["type": "QUEUE_UPDATE", "jump": 1],  // the window, the media, the supported commands
        ] {
            h.command(change)
            let now = h.player.statusTail?.text
            #expect(now != nil && !sameBuffer(now, last), "\(change) wrote the tail again")
            last = now
        }
        h.command(["type": "SEEK", "currentTime": 1])
        #expect(sameBuffer(h.player.statusTail?.text, last))
    }

    @Test func noSessionIsAnEmptyStatus() {
        let h = PlayerHarness()
        #expect(h.player.statusText(requestId: 4, at: .zero) == #"{"requestId":4,"status":[],"type":"MEDIA_STATUS"}"#)
    }

    @Test func itemTextFollowsItsFields() {
        var item = MediaQueueItem(itemId: 3, fields: ["itemId": 3, "media": awkwardMedia(0)])
        item.fields["media"]?["duration"] = 10
        item.fields["playbackDuration"] = 4
        #expect(item.text == Array(item.json.serialized().utf8))
        #expect(item.mediaText == Array(JSONValue.object(item.media).serialized().utf8))
        #expect(item.duration == 4)
    }
}
