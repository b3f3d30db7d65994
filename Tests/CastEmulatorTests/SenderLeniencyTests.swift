import CastJSON
import Foundation
import Testing
@testable import CastEmulator

/// What real senders send that a strict validator would refuse, read the way a Cast receiver reads it;
/// and every request the receiver still refuses recorded as a violation, with the request.
@Suite("Receiver leniency and refusals")
struct SenderLeniencyTests {
    @Test func vlcLoadWithStringBooleansAndNumbersAutoplays() throws {
        var h = EngineHarness()
        h.launchMediaReceiver()
        // VLC 3.0's LOAD, as it sends it: autoplay and currentTime as strings, no duration.
        let out = h.media(1, [
            "type": "LOAD", "requestId": 7, "autoplay": "false", "currentTime": "0",
            "media": ["contentId": "http://127.0.0.1:8010/stream", "streamType": "LIVE", "contentType": "video/x-matroska",
                      "metadata": ["metadataType": 0, "title": "clip"]],
        ])
        let entry = try #require(out.json(type: "MEDIA_STATUS").last?["status"]?[0])
        // The Web Receiver tests autoplay in JavaScript: the string "false" is truthy, VLC never sends PLAY.
        #expect(entry["playerState"] == "PLAYING")
        #expect(entry["currentTime"] == 0)
        #expect(h.engine.violations.isEmpty, "\(h.engine.violations)")
    }

    @Test func booleansNumbersAndNullsAreCoerced() throws {
        var h = EngineHarness()
        h.launchMediaReceiver()
        let out = h.media(1, [
            "type": "LOAD", "requestId": "8", "autoplay": 0, "currentTime": "2.5",
            "media": ["contentId": "http://h/a.mp4", "contentType": "video/mp4", "streamType": .null, "duration": "30",
                      "metadata": .null, "tracks": [["trackId": "1", "type": "TEXT", "language": "en"]]],
            "activeTrackIds": ["1"],
        ])
        let entry = try #require(out.json(type: "MEDIA_STATUS").last?["status"]?[0])
        #expect(out.json(type: "MEDIA_STATUS").last?["requestId"] == 8)
        #expect(entry["playerState"] == "PAUSED" && entry["currentTime"] == 2.5 && entry["activeTrackIds"] == [1])
        // A null streamType is BUFFERED; the duration is echoed as a number.
        #expect(entry["media"]?["streamType"] == "BUFFERED" && entry["media"]?["duration"] == 30)
        #expect(entry["media"]?["tracks"]?[0]?["trackId"] == 1)
        let session = try #require(entry["mediaSessionId"]?.intValue)
        let seek = h.media(1, ["type": "SEEK", "requestId": 9, "mediaSessionId": .string(String(session)), "currentTime": "12",
                               "resumeState": .null])
        #expect(seek.json(type: "MEDIA_STATUS").last?["status"]?[0]?["currentTime"] == 12)
        let muted = h.receiver(1, ["type": "SET_VOLUME", "requestId": 10, "volume": ["muted": "true", "level": .null]])
        #expect(muted.json(type: "RECEIVER_STATUS").last?["status"]?["volume"]?["muted"] == true)
        #expect(h.engine.violations.isEmpty, "\(h.engine.violations)")
    }

    @Test func everyRefusalIsAViolationWithItsRequest() throws {
        var h = EngineHarness()
        h.launchMediaReceiver()
        let refused = h.media(1, ["type": "LOAD", "requestId": 3, "autoplay": true, "media": ["contentType": "video/mp4"]])
        #expect(refused.json(type: "INVALID_REQUEST").first?["reason"] == "INVALID_PARAMS")
        h.media(1, ["type": "PAUSE", "requestId": 4, "mediaSessionId": 1])
        h.receiver(1, ["type": "LAUNCH", "requestId": 5, "appId": "NOPE0000"])
        h.receiver(1, ["type": "FLY", "requestId": 6])
        let violations = h.engine.violations
        #expect(violations.count == 4, "\(violations)")
        #expect(violations.allSatisfy { $0.kind == .refusedRequest })
        #expect(violations[0].message.contains("INVALID_PARAMS") && violations[0].request?.contains(#""requestId":3"#) == true)
        #expect(violations[1].message.contains("INVALID_PLAYER_STATE"))
        #expect(violations[2].message.contains("LAUNCH_ERROR (NOT_FOUND)") && violations[2].request?.contains("NOPE0000") == true)
        #expect(violations[3].description.contains("request: "))
        // A string that is not a number stays invalid.
        h.media(1, ["type": "LOAD", "requestId": 7, "currentTime": "soon", "media": ["contentId": "http://h/a", "contentType": "video/mp4"]])
        #expect(h.engine.violations.count == 5)
    }

    @Test func defaultDurationEndsBufferedMediaWithFinished() throws {
        var h = EngineHarness {
            $0.defaultMediaDuration = 600
            $0.heartbeat = EmulatedReceiverHeartbeat(pingInterval: .seconds(5), silenceTimeout: .seconds(100_000))
        }
        h.launchMediaReceiver()
        let out = h.media(1, ["type": "LOAD", "requestId": 2, "media": ["contentId": "http://h/a.mp4", "contentType": "video/mp4"]])
        #expect(out.json(type: "MEDIA_STATUS").last?["status"]?[0]?["media"]?["duration"] == 600)
        let ended = h.advance(by: .seconds(600))
        let finished = try #require(ended.json(type: "MEDIA_STATUS").last?["status"]?[0])
        #expect(finished["playerState"] == "IDLE" && finished["idleReason"] == "FINISHED")
    }

    @Test func liveMediaGetsNoDefaultDuration() throws {
        var h = EngineHarness { $0.defaultMediaDuration = 600 }
        h.launchMediaReceiver()
        let out = h.media(1, ["type": "LOAD", "requestId": 2, "media": ["contentId": "http://h/live", "contentType": "video/mp4",
                                                                      "streamType": "LIVE"]])
        #expect(out.json(type: "MEDIA_STATUS").last?["status"]?[0]?["media"]?["duration"] == nil)
        #expect(h.engine.app?.media?.nextDeadline == nil)
    }

    @Test func probedDurationsFillTheMediaAndLiveProbesMakeItLive() throws {
        var player = PlayerHarness()
        player.player.fetchesMedia = true
        player.player.defaultDuration = 600
        let held = player.request(["type": "LOAD", "requestId": 3, "media": ["contentId": "http://h/a.mp4", "contentType": "video/mp4"]])
        guard case .fetch(let plan) = held.last else {
            Issue.record("the load must wait for its fetch: \(held)")
            return
        }
        let done = player.player.fetchCompleted(token: plan.token, failure: nil, durations: ["http://h/a.mp4": .seconds(10)], now: .zero)
        #expect(done.lastEntry?["media"]?["duration"] == 10)
        let second = player.request(["type": "LOAD", "requestId": 4, "media": ["contentId": "http://h/l.m3u8", "contentType": "application/x-mpegurl"]])
        guard case .fetch(let livePlan) = second.last else {
            Issue.record("the second load must wait for its fetch")
            return
        }
        let live = player.player.fetchCompleted(token: livePlan.token, failure: nil, durations: ["http://h/l.m3u8": .live], now: .zero)
        #expect(live.lastEntry?["media"]?["duration"] == nil && live.lastEntry?["media"]?["streamType"] == "LIVE")
    }

    @Test func customAppRepliesCarryTheRequestId() throws {
        struct Handler: EmulatedReceiverAppHandler {
            func handle(_ message: EmulatedReceiverAppMessage) -> [EmulatedReceiverAppResponse] {
                if message.json?["type"] == "OWN" { return [.reply(["type": "OWN", "requestId": 99])] }
                return [.reply(["type": "ANSWER"]), .broadcast(["type": "NEWS"])]
            }
        }
        let namespace = "urn:x-cast:com.example.echo"
        var h = EngineHarness {
            $0.apps = [EmulatedReceiverApp(appId: "ABCD1234", displayName: "Echo", namespaces: [namespace], handler: Handler())]
        }
        h.open(1)
        h.connect(1)
        h.receiver(1, ["type": "LAUNCH", "appId": "ABCD1234", "requestId": 1])
        h.connect(1, to: h.transportId)
        let out = h.send(1, ["type": "ASK", "requestId": 12], namespace: namespace, to: h.transportId)
        #expect(out.json(type: "ANSWER").first?["requestId"] == 12)
        #expect(out.json(type: "NEWS").first?["requestId"] == nil)
        let own = h.send(1, ["type": "OWN", "requestId": 13], namespace: namespace, to: h.transportId)
        #expect(own.json(type: "OWN").first?["requestId"] == 99)
    }

    @Test func eurekaInfoMatchesTheAdvertisement() throws {
        let configuration = EmulatedReceiverConfiguration(name: "Den TV", id: UUID(uuidString: "99f3c58b-f347-1cc1-0cd8-7f79d33599cf")!)
        let advertisement = EmulatedReceiverAdvertisement(configuration: configuration, port: 8009)
        let info = EurekaInfo(advertisement: advertisement, kind: .video)
        let (status, body) = info.response(forTarget: "/setup/eureka_info?params=device_info,name")
        #expect(status == 200)
        #expect(body["name"] == "Den TV" && body["version"] == nil)
        #expect(body["device_info"]?["ssdp_udn"] == "99f3c58b-f347-1cc1-0cd8-7f79d33599cf")
        #expect(body["device_info"]?["model_name"] == .string(advertisement.txt["md"]!))
        #expect(body["device_info"]?["capabilities"]?["display_supported"] == true)
        #expect(info.response(forTarget: "/setup/eureka_info").body["multizone"] != nil)
        #expect(info.response(forTarget: "/ssdp/device-desc.xml").status == 404)
        #expect(info.response(forTarget: "/setup/eureka_info?params=" + String(repeating: "x", count: 5000)).status == 414)
        let group = EmulatedReceiverConfiguration(name: "Upstairs", kind: .group(members: [EmulatedReceiverGroupMember(name: "A")]))
        let groupInfo = EurekaInfo(advertisement: EmulatedReceiverAdvertisement(configuration: group, port: 42000), kind: group.kind)
        let groups = groupInfo.response(forTarget: "/setup/eureka_info?params=multizone").body["multizone"]?["groups"]
        #expect(groups?[0]?["elected_leader"] == "self" && groups?[0]?["cast_port"] == 42000)
        #expect(groupInfo.document["device_info"]?["capabilities"]?["display_supported"] == false)
    }
}

extension SenderLeniencyTests {
    @Test func mediaWithoutADurationIsProbedEvenWithADefault() throws {
        var player = PlayerHarness()
        player.player.fetchesMedia = true
        player.player.defaultDuration = 600
        let held = player.request(["type": "LOAD", "requestId": 3, "media": ["contentId": "http://h/a.mp4", "streamType": .null]])
        guard case .fetch(let plan) = held.last else {
            Issue.record("the load must wait for its fetch: \(held)")
            return
        }
        #expect(plan.targets.map(\.probesDuration) == [true])
        // A fetch that found nothing leaves the default.
        let done = player.player.fetchCompleted(token: plan.token, failure: nil, now: .zero)
        #expect(done.lastEntry?["media"]?["duration"] == 600)
        let given = player.request(["type": "LOAD", "requestId": 4, "media": ["contentId": "http://h/b.mp4", "duration": 5]])
        guard case .fetch(let second) = given.last else {
            Issue.record("the second load must wait for its fetch")
            return
        }
        #expect(second.targets.map(\.probesDuration) == [false])
    }
}
