import CastJSON
import Testing
@_spi(Fuzzing) @testable import CastEmulator

/// A sender chooses the numbers the emulated receiver turns into time: an item's duration, a position,
/// a rate. Whatever they are, the receiver answers and keeps running (the standard library's
/// `Duration(seconds:)` traps past about 1.7e20 seconds, and a rate near zero stretches any duration past it).
@Suite("Media time from any numbers a sender sends")
struct MediaTimeLimitsTests {
    /// Found by FuzzReceiverRequests (campaign of 2026-11-27, commit 6c7637f), minimized: a queue item of
    /// 3.3e20 seconds became current and its end trapped the receiver.
    @Test func aQueueItemLongerThanADurationCanHoldIsServed() throws {
        var h = EngineHarness()
        h.launchMediaReceiver()
        let out = h.media(1, [
            "type": "QUEUE_LOAD", "requestId": 2, "startIndex": 1,
            "items": [["media": ["contentId": "a"]], ["media": ["contentId": "", "duration": 3.333_333_333_333_333_3e20]],
                      ["media": ["contentId": "g"]]],
        ])
        let entry = try #require(out.json(type: "MEDIA_STATUS").last?["status"]?[0])
        #expect(entry["playerState"] == "PLAYING")
        let deadline = try #require(h.engine.app?.media?.nextDeadline)
        #expect(deadline > h.now + .seconds(86_400 * 365))  // the end of the item is far away, not now
        #expect(h.advance(by: .seconds(3_600)).json(type: "MEDIA_STATUS").isEmpty)
    }

    /// The fuzz target's input itself, through the harness the target runs (it traps on any failure).
    @Test func theFuzzFindingRunsThrough() {
        let script = #"""
            cr0{"type":"CONNECT"}
            rr0{"type":"LAUNCH","appId":"CC1AD845","requestId":1}
            ct0{"type":"CONNECT"}
            mt0{"type":"QUEUE_LOAD","requestId":2,"items":[{"media":{"contentId":"a",}},{"media":{"contentId":"","duration":333333333333333333320}},{"media":{"contentId":"g"}}],"startIndex":1,}

            """#
        EmulatedReceiverFuzzing.run(script: Array(script.utf8))
    }

    @Test func aRateNearZeroIsServed() throws {
        var h = EngineHarness()
        h.launchMediaReceiver()
        h.media(1, ["type": "LOAD", "requestId": 2, "media": media("http://h/a.mp4", duration: 100)])
        let sessionId = try #require(h.engine.app?.media?.session?.mediaSessionId)
        let out = h.media(1, ["type": "SET_PLAYBACK_RATE", "requestId": 3, "mediaSessionId": JSONValue(sessionId),
                              "playbackRate": 1e-300])
        let entry = try #require(out.json(type: "MEDIA_STATUS").last?["status"]?[0])
        #expect(entry["playbackRate"] == 1e-300)
        #expect(try #require(h.engine.app?.media?.nextDeadline) > h.now + .seconds(86_400 * 365))
    }
}
