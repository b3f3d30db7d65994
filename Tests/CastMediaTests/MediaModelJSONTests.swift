import CastJSON
import CastMediaMetadata
import Foundation
import Testing

@testable import CastMedia

/// The hand-written `init(json:)` decoders, and the Codable path that delegates to them.
@Suite("Media models decode from a JSON tree")
struct MediaModelJSONTests {
    /// The benchmark fixture: a MEDIA_STATUS with a queue window, tracks, metadata and a text style.
    static let benchmarkFixture: String = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../Benchmarks/media_status.json")
        return (try? String(contentsOf: url, encoding: .utf8)) ?? ""
    }()

    static let statuses: [String] = [
        benchmarkFixture,
        MediaModelDecodingTests.chromecastAudio,
        #"{"type":"MEDIA_STATUS","requestId":1401,"status":[]}"#,
        """
        {"type":"MEDIA_STATUS","status":[{"mediaSessionId":4,"playerState":"IDLE","currentTime":0,"playbackRate":1,
         "supportedMediaCommands":12303,"extendedStatus":{"playerState":"LOADING","mediaSessionId":4,
         "media":{"contentId":"http://h/x.mp4","contentType":"video/mp4","streamType":"BUFFERED"}},
         "liveSeekableRange":{"start":10,"end":100,"isMovingWindow":true,"isLiveDone":false},
         "videoInfo":{"width":1920,"height":1080,"hdrType":"hdr"},"loadingItemId":3,"preloadedItemId":5,
         "breakStatus":{"currentBreakTime":3},"customData":[1,2],
         "queueData":{"id":"q","name":"Mix","queueType":"PLAYLIST","repeatMode":"REPEAT_ALL","shuffle":false,"startIndex":0,
                      "containerMetadata":{"title":"Album"},"items":[{"media":{"contentId":"a"}}]}}]}
        """,
        """
        {"type":"MEDIA_STATUS","status":[{"mediaSessionId":2,"playerState":"WARPING","idleReason":"ALIENS",
         "repeatMode":"REPEAT_SOMETIMES","supportedMediaCommands":1048576,"futureField":{"x":1},
         "media":{"contentId":"c","contentType":"video/mp4","streamType":"HOLOGRAPHIC","breaks":[{"id":"b1"}],
                  "metadata":{"metadataType":42,"title":"T","newThing":true},
                  "tracks":[{"trackId":1,"type":"SMELL","subtype":"AROMA","trackContentId":"x","roles":["main"],"isInband":true}]}},
         {"playerState":"PLAYING"}]}
        """,
        """
        {"type":"MEDIA_STATUS","requestId":1e300,"status":[{"mediaSessionId":3,"supportedMediaCommands":1e300,
         "metadataType":1e300,"activeTrackIds":[1e300],"currentItemId":-1e300,
         "media":{"contentId":"c","contentType":"t","metadata":{"metadataType":1e300},"tracks":[{"trackId":1e300}]}}]}
        """,
    ]

    /// Every way in: `init(json:)`, the tree decoder (`JSONValue.decode(as:)`) and Foundation's `JSONDecoder`.
    @Test(arguments: statuses.indices)
    func everyPathGivesTheSameStatus(index: Int) throws {
        let text = Self.statuses[index]
        let json = try JSONValue(parsing: text)
        let direct = try MediaStatusMessage(json: json)
        #expect(try json.decode(as: MediaStatusMessage.self) == direct)
        #expect(try JSONDecoder().decode(MediaStatusMessage.self, from: Data(text.utf8)) == direct)
        // Each nested model decodes the same on its own, both ways.
        for entry in json["status"]?.arrayValue ?? [] {
            guard let status = try? MediaStatus(json: entry) else { continue }
            #expect(try JSONDecoder().decode(MediaStatus.self, from: Data(entry.serialized().utf8)) == status)
            if let media = entry["media"], let information = status.media {
                #expect(try MediaInformation(json: media) == information)
                #expect(try JSONDecoder().decode(MediaInformation.self, from: Data(media.serialized().utf8)) == information)
            }
            for (element, item) in zip(entry["items"]?.arrayValue ?? [], status.items ?? []) {
                #expect(try QueueItem(json: element) == item)
                #expect(try JSONDecoder().decode(QueueItem.self, from: Data(element.serialized().utf8)) == item)
            }
            for (element, track) in zip(entry["media"]?["tracks"]?.arrayValue ?? [], status.media?.tracks ?? []) {
                #expect(try MediaTrack(json: element) == track)
                #expect(try JSONDecoder().decode(MediaTrack.self, from: Data(element.serialized().utf8)) == track)
            }
        }
    }

    @Test func benchmarkFixtureContent() throws {
        let message = try MediaStatusMessage(json: JSONValue(parsing: Self.benchmarkFixture))
        #expect(message.requestId == 4242)
        let status = try #require(message.first)
        #expect(status.playerState == .playing)
        #expect(status.currentTime == 123.456)
        #expect(status.supportedMediaCommands.rawValue == 274_447)
        #expect(status.activeTrackIds == [1, 3])
        #expect(status.volume == MediaVolume(level: 1, muted: false))
        let media = try #require(status.media)
        #expect(media.metadata?.title == "Big Buck Bunny")
        #expect(media.metadata?.images.count == 2)
        #expect(media.tracks?.map(\.trackId) == [1, 2, 3])
        #expect(media.tracks?[1].name == "Français")
        #expect(media.tracks?[2].type == .audio)
        #expect(media.textTrackStyle?.backgroundColor == CastColor(red: 0, green: 0, blue: 0, alpha: 0xA0))
        #expect(media.textTrackStyle?.fontScale == 1.2)
        #expect(status.items?.map(\.itemId) == [1, 2, 3])
        #expect(status.items?.first?.orderId == 0)
        #expect(status.items?.first?.preloadTime == 20)
    }

    @Test func statusEntriesThatCannotBeReadAreSkipped() throws {
        let json: JSONValue = [
            "requestId": 2.5,
            "status": [
                ["mediaSessionId": 1], ["mediaSessionId": 1.5], ["mediaSessionId": "1"], ["mediaSessionId": nil],
                [:], nil, 7, ["mediaSessionId": 2],
            ],
        ]
        let message = try MediaStatusMessage(json: json)
        #expect(message.requestId == nil)
        #expect(message.status.map(\.mediaSessionId) == [1, 2])
        #expect(try JSONDecoder().decode(MediaStatusMessage.self, from: Data(json.serialized().utf8)) == message)
        // A status that is not an array reads as no session; a message that is not an object fails.
        #expect(try MediaStatusMessage(json: ["status": ["mediaSessionId": 1]]).status.isEmpty)
        #expect(try MediaStatusMessage(json: [:]).status.isEmpty)
        #expect(throws: JSONError.self) { try MediaStatusMessage(json: [1]) }
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(MediaStatusMessage.self, from: Data("[1]".utf8)) }
    }

    @Test func mediaSessionIdIsRequiredAndExact() throws {
        #expect(try MediaStatus(json: ["mediaSessionId": 3.0]).mediaSessionId == 3)
        for bad: JSONValue in [[:], ["mediaSessionId": nil], ["mediaSessionId": 3.5], ["mediaSessionId": "3"],
                               ["mediaSessionId": 1e300], "status", nil] {
            let error = try #require(throws: JSONError.self) { try MediaStatus(json: bad) }
            #expect(error.code == .typeMismatch)
            #expect(throws: DecodingError.self) { try JSONDecoder().decode(MediaStatus.self, from: Data(bad.serialized().utf8)) }
        }
    }

    @Test func wrongTypedMembersReadAsAbsentOrDefault() throws {
        let status = try MediaStatus(json: [
            "mediaSessionId": 1, "playerState": 5, "idleReason": true, "currentTime": "12", "playbackRate": nil,
            "supportedMediaCommands": 3.5, "volume": ["level": "loud"], "activeTrackIds": [1, "2"], "media": "x",
            "currentItemId": 1.5, "loadingItemId": "2", "preloadedItemId": false, "items": [["itemId": 1], 2],
            "repeatMode": 1, "queueData": [], "customData": nil, "breakStatus": nil,
            "liveSeekableRange": ["start": "0"], "videoInfo": ["width": 1.5], "extendedStatus": ["media": [:]],
        ])
        #expect(status == MediaStatus(mediaSessionId: 1, playerState: .unknown))
        // The same members with the right types.
        let good = try MediaStatus(json: [
            "mediaSessionId": 1, "playerState": "PAUSED", "idleReason": "ERROR", "currentTime": 12, "playbackRate": 2,
            "supportedMediaCommands": 3, "volume": ["level": 0.5, "muted": nil], "activeTrackIds": [1, 2.0],
            "media": ["contentId": "x"], "currentItemId": 1, "loadingItemId": 2, "preloadedItemId": 3,
            "items": [["itemId": 1], [:]], "repeatMode": "REPEAT_ALL", "queueData": ["shuffle": true],
            "customData": "cd", "breakStatus": ["b": 1], "liveSeekableRange": ["start": 0, "isLiveDone": nil],
            "videoInfo": ["width": 640, "hdrType": "dv"], "extendedStatus": ["playerState": "LOADING", "media": nil],
        ])
        #expect(good.playerState == .paused && good.idleReason == .error)
        #expect(good.currentTime == 12 && good.playbackRate == 2)
        #expect(good.supportedMediaCommands == [.pause, .seek])
        #expect(good.volume == MediaVolume(level: 0.5))
        #expect(good.activeTrackIds == [1, 2])
        #expect(good.media == MediaInformation(contentId: "x", contentType: ""))
        #expect(good.currentItemId == 1 && good.loadingItemId == 2 && good.preloadedItemId == 3)
        #expect(good.items == [QueueItem(itemId: 1, media: nil, autoplay: nil), QueueItem(media: nil, autoplay: nil)])
        #expect(good.repeatMode == .all)
        #expect(good.queueData == QueueData(shuffle: true))
        #expect(good.customData == CastCustomData("cd"))
        #expect(good.breakStatus == ["b": 1])
        #expect(good.liveSeekableRange == LiveSeekableRange(start: 0))
        #expect(good.videoInfo == VideoInformation(width: 640, hdrType: .dolbyVision))
        #expect(good.extendedStatus == ExtendedMediaStatus(playerState: .loading))
        #expect(good.isLoading)
        let text = try JSONValue(encoding: good).serialized()
        #expect(try JSONDecoder().decode(MediaStatus.self, from: Data(text.utf8)) == good)
    }

    @Test func strictSmallModels() throws {
        #expect(try MediaVolume(json: [:]) == MediaVolume())
        #expect(throws: JSONError.self) { try MediaVolume(json: ["muted": "no"]) }
        #expect(throws: JSONError.self) { try MediaVolume(json: 1) }
        #expect(try LiveSeekableRange(json: ["end": 5, "isMovingWindow": false]) == LiveSeekableRange(end: 5, isMovingWindow: false))
        #expect(throws: JSONError.self) { try LiveSeekableRange(json: ["isMovingWindow": 1]) }
        #expect(throws: JSONError.self) { try VideoInformation(json: ["hdrType": 1]) }
        #expect(throws: JSONError.self) { try VideoInformation(json: ["height": "1080"]) }
        #expect(try VideoInformation(json: ["height": 1080.0, "hdrType": nil]) == VideoInformation(height: 1080))
        #expect(throws: JSONError.self) { try ExtendedMediaStatus(json: [:]) }
        #expect(throws: JSONError.self) { try ExtendedMediaStatus(json: ["playerState": nil]) }
        #expect(throws: JSONError.self) { try ExtendedMediaStatus(json: ["playerState": "LOADING", "media": 1]) }
        #expect(throws: JSONError.self) { try ExtendedMediaStatus(json: ["playerState": "LOADING", "mediaSessionId": 0.5]) }
        let extended = try ExtendedMediaStatus(json: ["playerState": "LOADING", "mediaSessionId": 9, "media": ["contentId": "m"]])
        #expect(extended == ExtendedMediaStatus(playerState: .loading, media: MediaInformation(contentId: "m", contentType: ""),
                                                mediaSessionId: 9))
        // The Codable path fails the same way, as a DecodingError.
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(ExtendedMediaStatus.self, from: Data(#"{"mediaSessionId":1}"#.utf8))
        }
        #expect(try SupportedMediaCommands(json: 15.0) == [.pause, .seek, .streamVolume, .streamMute])
        #expect(throws: JSONError.self) { try SupportedMediaCommands(json: 1.5) }
        #expect(throws: JSONError.self) { try SupportedMediaCommands(json: "15") }
        #expect(throws: JSONError.self) { try SupportedMediaCommands(json: 1e300) }
    }

    @Test func mediaInformationKeepsUnknownMembersAndDropsBadTracks() throws {
        let json: JSONValue = [
            "contentId": 1, "contentType": nil, "streamType": "live", "duration": "long", "entity": "e",
            "metadata": ["metadataType": "movie"], "tracks": [["trackId": 1], ["type": "TEXT"]],
            "textTrackStyle": ["foregroundColor": "#FFF", "edgeColor": "#ＦＦＦ", "fontScale": "big", "windowType": "NORMAL"],
            "hlsSegmentFormat": "ts_aac", "hlsVideoSegmentFormat": "fmp4", "mediaCategory": "AUDIO",
            "startAbsoluteTime": 1.5, "customData": ["k": "v"], "breaks": [["id": "b1"]], "userActionStates": nil,
        ]
        let media = try MediaInformation(json: json)
        #expect(media.contentId == "" && media.contentType == "")
        #expect(media.streamType == .live)
        #expect(media.duration == nil && media.metadata == nil && media.tracks == nil)
        #expect(media.textTrackStyle == TextTrackStyle(foregroundColor: .white, windowType: .normal))
        #expect(media.hlsSegmentFormat == .tsAAC && media.hlsVideoSegmentFormat == .fmp4 && media.mediaCategory == .audio)
        #expect(media.entity == "e" && media.startAbsoluteTime == 1.5 && media.customData == ["k": "v"])
        // Unknown members, null ones included, are kept; known members of the wrong type are not.
        #expect(media.additionalFields == ["breaks": [["id": "b1"]], "userActionStates": nil])
        #expect(try JSONDecoder().decode(MediaInformation.self, from: Data(json.serialized().utf8)) == media)
        let echoed = try JSONValue(encoding: media)
        #expect(echoed["breaks"] == [["id": "b1"]])
        #expect(try MediaInformation(json: echoed) == media)
        #expect(throws: JSONError.self) { try MediaInformation(json: "media") }
    }

    @Test func queueItemsAndQueueData() throws {
        let json: JSONValue = [
            "itemId": 4, "media": 1, "autoplay": "yes", "startTime": 2, "playbackDuration": 30, "preloadTime": "p",
            "activeTrackIds": [1], "customData": 0, "orderId": 2.5, "x-extra": ["y": true],
        ]
        let item = try QueueItem(json: json)
        #expect(item == QueueItem(itemId: 4, media: nil, autoplay: nil, startTime: 2, playbackDuration: 30,
                                  activeTrackIds: [1], customData: CastCustomData(0), additionalFields: ["x-extra": ["y": true]]))
        #expect(try JSONDecoder().decode(QueueItem.self, from: Data(json.serialized().utf8)) == item)
        #expect(try QueueItem(json: JSONValue(encoding: item)) == item)
        #expect(throws: JSONError.self) { try QueueItem(json: [1]) }

        let data = try QueueData(json: [
            "id": "q", "name": 1, "description": "d", "entity": nil, "queueType": "ALBUM", "repeatMode": "REPEAT_SINGLE",
            "shuffle": 1, "items": [["itemId": 1], nil], "startIndex": 1.0, "startTime": 5, "containerMetadata": nil,
        ])
        #expect(data == QueueData(id: "q", description: "d", queueType: .album, repeatMode: .single, startIndex: 1, startTime: 5))
        #expect(try QueueData(json: ["items": [["itemId": 1], [:]]]).items?.count == 2)
    }

    @Test func tracks() throws {
        let json: JSONValue = [
            "trackId": 7, "type": nil, "subtype": "CAPTIONS", "trackContentId": "c", "trackContentType": 1,
            "name": "N", "language": "de", "isInband": "no", "roles": ["main", 1], "customData": ["a": 1],
        ]
        let track = try MediaTrack(json: json)
        #expect(track == MediaTrack(trackId: 7, type: .text, subtype: .captions, contentId: "c", name: "N", language: "de",
                                    customData: ["a": 1]))
        #expect(try JSONDecoder().decode(MediaTrack.self, from: Data(json.serialized().utf8)) == track)
        #expect(try MediaTrack(json: ["trackId": 1, "roles": ["main"], "isInband": true]).roles == ["main"])
        #expect(throws: JSONError.self) { try MediaTrack(json: ["type": "AUDIO"]) }
        #expect(throws: JSONError.self) { try MediaTrack(json: ["trackId": "1"]) }
    }

    @Test func stringEnumerationsAndColours() throws {
        #expect(try PlayerState(json: "PLAYING") == .playing)
        #expect(try StreamType(json: "none") == StreamType.none)
        #expect(try RepeatMode(json: "REPEAT_NEVER").rawValue == "REPEAT_NEVER")
        #expect(throws: JSONError.self) { try IdleReason(json: 1) }
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(QueueType.self, from: Data("1".utf8)) }
        #expect(try JSONDecoder().decode(QueueType.self, from: Data(#""ALBUM""#.utf8)) == .album)
        #expect(try CastColor(json: "#0000FF80") == CastColor(red: 0, green: 0, blue: 255, alpha: 128))
        #expect(throws: JSONError.self) { try CastColor(json: "#12") }
        #expect(throws: JSONError.self) { try CastColor(json: 0xFF) }
        // Fullwidth digits are not colours (they used to trap).
        #expect(CastColor(cssString: "#ＦＦＦ") == nil)
        #expect(CastColor(cssString: "#abcd") == CastColor(red: 0xAA, green: 0xBB, blue: 0xCC, alpha: 0xDD))
        #expect(CastColor(cssString: "#") == nil)
        #expect(CastColor(cssString: "#1234567890") == nil)
    }
}
