import CastHTTP
import CastJSON
import Testing
@testable import CastEmulator

/// The media player's side of fetching, as a pure state machine: what is held, what is fetched,
/// what a completion or a failure does.
@Suite("Media player holding requests for fetches")
struct MediaFetchPlanTests {
    func fetchingPlayer() -> PlayerHarness {
        var harness = PlayerHarness()
        harness.player.fetchesMedia = true
        return harness
    }

    func heldPlan(_ outputs: [AppOutput]) -> MediaFetchPlan? {
        for output in outputs { if case .fetch(let plan) = output { return plan } }
        return nil
    }

    static let tracks: JSONValue = [
        ["trackId": 1, "type": "TEXT", "trackContentId": "http://h/en.vtt", "language": "en"],
        ["trackId": 2, "type": "TEXT", "trackContentId": "https://h/fr.vtt", "language": "fr"],
        ["trackId": 3, "type": "AUDIO", "trackContentId": "http://h/audio.mp4"],
    ]

    @Test func aLoadIsHeldUntilItsFetchesCompleteThenRunsAsWithoutFetching() throws {
        var harness = fetchingPlayer()
        let held = harness.request(["type": "LOAD", "requestId": 5, "media": media("http://h/movie.mp4", duration: 60, tracks: Self.tracks)])
        let plan = try #require(heldPlan(held))
        #expect(held.count == 1)
        #expect(plan.requestId == 5)
        #expect(plan.targets == [
            .init(kind: .media, url: "http://h/movie.mp4", requiresCORS: true, contentType: "video/mp4"),
            .init(kind: .textTrack, url: "http://h/en.vtt", requiresCORS: true),
        ])
        #expect(harness.player.session == nil)

        var reference = PlayerHarness()
        let expected = reference.request(["type": "LOAD", "requestId": 5, "media": media("http://h/movie.mp4", duration: 60, tracks: Self.tracks)])
        let done = harness.player.fetchCompleted(token: plan.token, failure: nil, now: harness.now)
        #expect(done == expected)
        #expect(harness.status?["playerState"] == "PLAYING")
        // A completion for a token nobody holds does nothing.
        #expect(harness.player.fetchCompleted(token: plan.token, failure: nil, now: harness.now).isEmpty)
    }

    @Test func contentWithoutHTTPURLsIsNotHeld() {
        var harness = fetchingPlayer()
        let outputs = harness.request(["type": "LOAD", "media": ["contentId": "abc123", "contentType": "video/mp4"]])
        #expect(heldPlan(outputs) == nil)
        #expect(outputs.lastEntry?["playerState"] == "PLAYING")
        let broken = harness.request(["type": "LOAD", "media": media("http://h/broken.mp4")])
        #expect(broken.first(type: "LOAD_FAILED")?["detailedErrorCode"] == 104)
        let invalid = harness.request(["type": "LOAD", "media": ["contentType": "video/mp4"]])
        #expect(invalid.first(type: "INVALID_REQUEST")?["reason"] == "INVALID_PARAMS")
    }

    @Test func aFailedFetchFailsTheLoadWithAnErrorSession() throws {
        var harness = fetchingPlayer()
        let old = try #require(heldPlan(harness.request(["type": "LOAD", "media": media("http://h/old.mp4", duration: 60)])))
        _ = harness.player.fetchCompleted(token: old.token, failure: nil, now: .zero)
        #expect(harness.status?["playerState"] == "PLAYING")
        let held = harness.request(["type": "QUEUE_LOAD", "requestId": 40, "items": items(3)])
        let plan = try #require(heldPlan(held))
        #expect(plan.targets.map(\.url) == ["http://h/0.mp4", "http://h/1.mp4", "http://h/2.mp4"])
        let failed = harness.player.fetchCompleted(
            token: plan.token, failure: MediaFetchFailure(url: "http://h/1.mp4", detailedErrorCode: 103), now: harness.now)
        // The old session is interrupted, the new one fails on the item that could not be fetched.
        #expect(failed.broadcasts.first?["status"]?[0]?["idleReason"] == "INTERRUPTED")
        let loadFailed = try #require(failed.first(type: "LOAD_FAILED"))
        #expect(loadFailed["requestId"] == 40)
        #expect(loadFailed["detailedErrorCode"] == 103)
        #expect(loadFailed["itemId"] == 3)  // items 2, 3, 4 (1 was the old movie)
        #expect(failed.lastEntry?["playerState"] == "IDLE")
        #expect(failed.lastEntry?["idleReason"] == "ERROR")
        #expect(harness.player.session == nil)
    }

    @Test func aNewerLoadCancelsAHeldOne() throws {
        var harness = fetchingPlayer()
        let first = try #require(heldPlan(harness.request(["type": "LOAD", "requestId": 1, "media": media("http://h/a.mp4")])))
        let second = harness.request(["type": "LOAD", "requestId": 2, "media": media("http://h/b.mp4")])
        #expect(second.contains(.pendingReply(token: first.token, ["type": "LOAD_CANCELLED", "requestId": 1])))
        let secondPlan = try #require(heldPlan(second))
        #expect(harness.player.fetchCompleted(token: first.token, failure: nil, now: .zero).isEmpty)
        let done = harness.player.fetchCompleted(token: secondPlan.token, failure: nil, now: .zero)
        #expect(done.lastEntry?["media"]?["contentId"] == "http://h/b.mp4")
    }

    @Test func aFailedInsertInsertsNothing() throws {
        var harness = fetchingPlayer()
        let load = try #require(heldPlan(harness.request(["type": "LOAD", "media": media("http://h/a.mp4", duration: 60)])))
        _ = harness.player.fetchCompleted(token: load.token, failure: nil, now: .zero)
        let held = harness.command(["type": "QUEUE_INSERT", "requestId": 9, "items": items(2, prefix: "http://i/")])
        let insert = try #require(heldPlan(held))
        #expect(insert.targets.map(\.url) == ["http://i/0.mp4", "http://i/1.mp4"])
        let failed = harness.player.fetchCompleted(
            token: insert.token, failure: MediaFetchFailure(url: "http://i/0.mp4", detailedErrorCode: 104), now: .zero)
        #expect(failed == [.reply(["type": "LOAD_FAILED", "requestId": 9, "detailedErrorCode": 104])])
        #expect(harness.player.session?.items.count == 1)

        let again = try #require(heldPlan(harness.command(["type": "QUEUE_INSERT", "requestId": 10, "items": items(2, prefix: "http://i/")])))
        let inserted = harness.player.fetchCompleted(token: again.token, failure: nil, now: .zero)
        #expect(inserted.first(type: "QUEUE_CHANGE")?["changeType"] == "INSERT")
        #expect(harness.player.session?.items.count == 3)
    }

    @Test func checksFollowWhatAPlayerAccepts() {
        let check = MediaFetchCheck(origin: "https://www.gstatic.com", requestedRange: 0...15)
        #expect(check.corsAllows(["*"]) && check.corsAllows(["https://www.gstatic.com"]))
        #expect(!check.corsAllows([]) && !check.corsAllows(["https://evil.example"]) && !check.corsAllows(["*", "*"]))
        #expect(MediaFetchCheck.isWebVTT(Array("WEBVTT".utf8)))
        #expect(MediaFetchCheck.isWebVTT([0xEF, 0xBB, 0xBF] + Array("WEBVTT - title\n".utf8)))
        #expect(!MediaFetchCheck.isWebVTT(Array("WEBVTTX\n".utf8)))
        #expect(!MediaFetchCheck.isWebVTT(Array("1\n00:00:01,000 --> 00:00:02,000\n".utf8)))
        var media = EmulatedReceiverFetch(kind: .media, url: "http://h/m", requestId: 1, statusCode: 206, contentType: "video/mp4",
                                      contentRange: "bytes 0-15/100", corsAllowed: true)
        #expect(check.problem(with: media, requiresCORS: true) == nil)
        media.contentRange = "bytes 10-25/100"
        #expect(check.problem(with: media, requiresCORS: true)?.code == .malformedResponse)
        media.contentRange = nil
        media.statusCode = 200
        media.contentType = "application/octet-stream"
        #expect(check.problem(with: media, requiresCORS: false) == nil)
        media.contentType = nil
        #expect(check.problem(with: media, requiresCORS: false)?.code == .contentType)
        #expect(HTTPURL(parsing: "http://[::1]:8080/a/b?c=d#frag") == HTTPURL(parsing: "http://[::1]:8080/a/b?c=d"))
        #expect(HTTPURL(parsing: "http://[::1]:8080/x")?.host == "::1")
        #expect(HTTPURL(parsing: "http://h?q")?.target == "/?q")
        #expect(HTTPURL(parsing: "http://h")?.port == 80)
        #expect(HTTPURL(parsing: "https://h/x") == nil)
        #expect(HTTPURL(parsing: "http://user@h/x") == nil)
        #expect(HTTPURL(parsing: "http://h:99999/x") == nil)
        #expect(HTTPURL(parsing: "http:///x") == nil)
    }
}
