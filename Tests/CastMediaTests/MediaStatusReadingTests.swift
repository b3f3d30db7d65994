import CastJSON
import CastMediaMetadata
import CastTestSupport
import Foundation
import Testing

@_spi(Fuzzing) @testable import CastMedia

/// MEDIA_STATUS read from the payload's bytes (`MediaStatusMessage(utf8:)`, the pull reader) against the
/// reference, `MediaStatusMessage(json:)` on a parsed `JSONValue`: the same message, or the same error code.
@Suite("MEDIA_STATUS from bytes matches the tree decoder")
struct MediaStatusReadingTests {
    /// Both outcomes for `text`; fails the test when they differ.
    static func expectSameOutcome(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) {
        expectSameOutcome(Array(text.utf8), sourceLocation: sourceLocation)
    }

    static func expectSameOutcome(_ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) {
        let (fast, reference) = bytes.withUnsafeBufferPointer(CastMediaFuzzing.statusDecoderOutcomes)
        switch (fast, reference) {
        case (.success(let fast), .success(let reference)):
            #expect(fast == reference, "\(String(decoding: bytes, as: UTF8.self))", sourceLocation: sourceLocation)
        case (.failure(let fast), .failure(let reference)):
            #expect(fast.code == reference.code, "\(fast) / \(reference)", sourceLocation: sourceLocation)
        default:
            Issue.record("bytes: \(fast); tree: \(reference); input \(String(decoding: bytes, as: UTF8.self))",
                         sourceLocation: sourceLocation)
        }
    }

    /// A real device's status (the `FuzzMediaStatus` seed, captured from a Chromecast Audio).
    static let realDevice: String = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../Fuzz/Seeds/FuzzMediaStatus/real-device.json")
        return (try? String(contentsOf: url, encoding: .utf8)) ?? ""
    }()

    @Test(arguments: MediaModelJSONTests.statuses.indices)
    func repositorySamplesDecodeTheSame(index: Int) throws {
        let text = MediaModelJSONTests.statuses[index]
        let reference = try MediaStatusMessage(json: JSONValue(parsing: text))
        #expect(try MediaStatusMessage(utf8: Array(text.utf8)) == reference)
        // From a String's own storage too (the frame decoder hands over the payload as a String).
        #expect(try MediaStatusMessage(utf8: text.utf8) == reference)
    }

    @Test func realDeviceCaptureDecodesTheSame() throws {
        #expect(!Self.realDevice.isEmpty)
        let reference = try MediaStatusMessage(json: JSONValue(parsing: Self.realDevice))
        let fast = try MediaStatusMessage(utf8: Self.realDevice.utf8)
        #expect(fast == reference)
        #expect(fast.first?.mediaSessionId == 1)
    }

    @Test func benchmarkFixtureDecodesEveryField() throws {
        let fast = try MediaStatusMessage(utf8: MediaModelJSONTests.benchmarkFixture.utf8)
        #expect(fast.requestId == 4242)
        let status = try #require(fast.first)
        #expect(status.media?.tracks?.count == 3)
        #expect(status.items?.count == 3)
        #expect(status.media?.metadata?.title == "Big Buck Bunny")
        #expect(status.media?.tracks?[1].name == "Français")
        #expect(status.queueData?.name == "Blender films")
        #expect(status.videoInfo?.width == 1920)
        #expect(status.media?.textTrackStyle?.fontScale == 1.2)
    }

    /// Edge inputs: escapes, surrogates, numbers, nulls, unknown fields, wrong types, repeated members,
    /// trailing commas, and documents that are not JSON at all.
    static let edges: [String] = [
        // Not an object, or not JSON.
        "", " ", "null", "[]", "42", #""MEDIA_STATUS""#, "{", "}", "{}", "{,}", #"{"status":[],}"#, #"{"status":[,]}"#,
        #"{"status":[]} x"#, #"{"status":[]}  "#, "\u{FEFF}{}", #"{"a" 1}"#, #"{"a":1,,}"#, #"{"a":}"#, #"{'a':1}"#,
        #"[{"mediaSessionId":1}]"#, #"{"status":[{"mediaSessionId":1}],}"#, #"{"status":[{"mediaSessionId":1},]}"#,
        // requestId and status of every type.
        #"{"requestId":null,"status":null}"#, #"{"requestId":"7","status":{}}"#, #"{"requestId":7.5,"status":"x"}"#,
        #"{"requestId":-0,"status":[null,1,"s",true,[],{}]}"#, #"{"requestId":9007199254740993,"status":[]}"#,
        #"{"requestId":1e2,"status":[{"mediaSessionId":1.0}]}"#, #"{"requestId":1E+2}"#, #"{"requestId":1e400}"#,
        #"{"requestId":01}"#, #"{"requestId":-}"#, #"{"requestId":1.}"#, #"{"requestId":.5}"#, #"{"requestId":+1}"#,
        #"{"requestId":1,"requestId":"x"}"#, #"{"requestId":"x","requestId":2}"#,
        #"{"status":[{"mediaSessionId":1}],"status":5}"#, #"{"status":5,"status":[{"mediaSessionId":2}]}"#,
        // mediaSessionId and the scalar members.
        #"{"status":[{"mediaSessionId":"1"},{"mediaSessionId":null},{"mediaSessionId":2,"mediaSessionId":null}]}"#,
        #"{"status":[{"mediaSessionId":null,"mediaSessionId":3,"playerState":7,"currentTime":"1","playbackRate":null}]}"#,
        #"{"status":[{"mediaSessionId":1,"playerState":"PAUSED","playerState":null,"idleReason":"ERROR","currentTime":-1.5e-7}]}"#,
        #"{"status":[{"mediaSessionId":1,"supportedMediaCommands":1.5,"activeTrackIds":[1,2.5],"currentItemId":true}]}"#,
        #"{"status":[{"mediaSessionId":1,"activeTrackIds":[],"loadingItemId":-3,"preloadedItemId":1e15,"repeatMode":[]}]}"#,
        #"{"status":[{"mediaSessionId":1,"activeTrackIds":[1,],"volume":{"level":"x"},"videoInfo":{"width":1.5}}]}"#,
        #"{"status":[{"mediaSessionId":1,"volume":{"level":0.5,"muted":true},"volume":null,"customData":null}]}"#,
        #"{"status":[{"mediaSessionId":1,"customData":{"a":[1,{"b":null}]},"breakStatus":[],"extendedStatus":{}}]}"#,
        #"{"status":[{"mediaSessionId":1,"extendedStatus":{"playerState":"LOADING","media":5},"liveSeekableRange":{"start":"0"}}]}"#,
        #"{"status":[{"mediaSessionId":1,"queueData":{"items":[1]},"queueData":{"name":"n","items":[{}]}}]}"#,
        // The nested models read from the stream (volume, video info, metadata, text track style, queue
        // data): strict members, repeated members (the last one decides), null, and values of other types.
        #"{"status":[{"mediaSessionId":1,"volume":{"level":"x","level":0.5}},{"mediaSessionId":2,"volume":{"level":0.5,"level":"x"}}]}"#,
        #"{"status":[{"mediaSessionId":1,"volume":{"muted":null,"level":1,"other":[1]}},{"mediaSessionId":2,"volume":{"muted":1}}]}"#,
        #"{"status":[{"mediaSessionId":1,"volume":"x"},{"mediaSessionId":2,"volume":[]},{"mediaSessionId":3,"volume":{}}]}"#,
        #"{"status":[{"mediaSessionId":1,"videoInfo":{"width":1920,"height":1080.5}},{"mediaSessionId":2,"videoInfo":{"width":"1","width":1}}]}"#,
        #"{"status":[{"mediaSessionId":1,"videoInfo":{"hdrType":5}},{"mediaSessionId":2,"videoInfo":{"hdrType":null,"width":1e300}}]}"#,
        #"{"status":[{"mediaSessionId":1,"videoInfo":{"width":9007199254740993,"height":-0,"hdrType":"hdr","x":{}}}]}"#,
        #"{"status":[{"mediaSessionId":1,"media":{"metadata":{"metadataType":1.0,"title":"t"}}},{"mediaSessionId":2,"media":{"metadata":{"metadataType":null}}}]}"#,
        #"{"status":[{"mediaSessionId":1,"media":{"metadata":{"metadataType":1,"metadataType":"x"}}},{"mediaSessionId":2,"media":{"metadata":{"metadataType":"x","metadataType":3}}}]}"#,
        #"{"status":[{"mediaSessionId":1,"media":{"metadata":{"metadataType":9007199254740993}}},{"mediaSessionId":2,"media":{"metadata":{"metadataType":-2e0,"images":[{"url":"u"}],"title":null}}}]}"#,
        #"{"status":[{"mediaSessionId":1,"media":{"metadata":{"title":"a","title":"b","x":{"y":[1,{"z":null}]},"":0}}},{"mediaSessionId":2,"media":{"metadata":[]}}]}"#,
        #"{"status":[{"mediaSessionId":1,"media":{"metadata":{"\u0074itle":"escaped key","metadata\u0054ype":4,"caf\u00e9":"é"}}}]}"#,
        #"{"status":[{"mediaSessionId":1,"media":{"metadata":{"metadataType":2.5e-1}}},{"mediaSessionId":2,"media":{"metadata":{"metadataType":true}}}]}"#,
        ##"{"status":[{"mediaSessionId":1,"media":{"textTrackStyle":{"foregroundColor":"#zz","backgroundColor":"#000000A0","backgroundColor":5,"edgeType":1,"fontScale":"1"}}}]}"##,
        ##"{"status":[{"mediaSessionId":1,"media":{"textTrackStyle":{"windowColor":"#FFF","customData":null,"fontFamily":"x","fontStyle":"BOLD","unknown":[]}}}]}"##,
        #"{"status":[{"mediaSessionId":1,"media":{"textTrackStyle":"x"}},{"mediaSessionId":2,"media":{"textTrackStyle":{"customData":{"a":1},"customData":null}}}]}"#,
        #"{"status":[{"mediaSessionId":1,"queueData":{"items":[{"itemId":1},{"itemId":2}],"startIndex":1.5,"shuffle":"no","containerMetadata":null}}]}"#,
        #"{"status":[{"mediaSessionId":1,"queueData":{"containerMetadata":{"a":1},"queueType":"ALBUM","repeatMode":5,"startTime":"0","id":1}}]}"#,
        #"{"status":[{"mediaSessionId":1,"queueData":null},{"mediaSessionId":2,"queueData":{"items":null,"items":[{"itemId":3}],"description":"d","entity":"e"}}]}"#,
        // Long values with a few non-ASCII characters (built piece by piece), and with many.
        #"{"status":[{"mediaSessionId":1,"media":{"contentId":""# + String(repeating: "a", count: 200) + "é" + String(repeating: "b", count: 100) + #""}}]}"#,
        #"{"status":[{"mediaSessionId":1,"media":{"contentId":""# + String(repeating: "ça ", count: 120) + #"","x":""# + String(repeating: "中", count: 60) + #""}}]}"#,
        // media, tracks and items.
        #"{"status":[{"mediaSessionId":1,"media":null},{"mediaSessionId":2,"media":[]},{"mediaSessionId":3,"media":{}}]}"#,
        #"{"status":[{"mediaSessionId":1,"media":{"contentId":5,"contentType":null,"streamType":"LIVE","duration":"x"}}]}"#,
        #"{"status":[{"mediaSessionId":1,"media":{"contentId":"a","unknown":null,"other":{"x":[1,2]},"unknown":3}}]}"#,
        #"{"status":[{"mediaSessionId":1,"media":{"metadata":{"metadataType":"1"},"textTrackStyle":{"fontScale":"big"}}}]}"#,
        #"{"status":[{"mediaSessionId":1,"media":{"metadata":{"metadataType":2.5,"title":"t"},"metadata":{"title":"u"}}}]}"#,
        #"{"status":[{"mediaSessionId":1,"media":{"tracks":[{"trackId":1},{"trackId":"2"}]}}]}"#,
        #"{"status":[{"mediaSessionId":1,"media":{"tracks":[{"trackId":1,"type":null,"roles":["a",1],"isInband":"yes"}]}}]}"#,
        #"{"status":[{"mediaSessionId":1,"media":{"tracks":[{"trackId":1,"roles":["a","b"],"isInband":false}],"tracks":null}}]}"#,
        #"{"status":[{"mediaSessionId":1,"media":{"tracks":[null]}}]}"#, #"{"status":[{"mediaSessionId":1,"media":{"tracks":{}}}]}"#,
        #"{"status":[{"mediaSessionId":1,"items":[{"itemId":1,"media":{"contentId":"a"},"extra":[null]},{"itemId":"2"}]}]}"#,
        #"{"status":[{"mediaSessionId":1,"items":[{"itemId":1},5]}]}"#, #"{"status":[{"mediaSessionId":1,"items":[]}]}"#,
        #"{"status":[{"mediaSessionId":1,"items":[{"autoplay":null,"startTime":"0","orderId":1e300,"customData":false}]}]}"#,
        // Escapes, surrogates and non-ASCII text, in values and in member names.
        #"{"status":[{"mediaSessionId":1,"media":{"contentId":"a\"b\\c\/d\b\f\n\r\t\u0041\u00e9\u4e2d\ud83d\ude00"}}]}"#,
        #"{"status":[{"\u006dediaSessionId":1,"media":{"content\u0049d":"x","\u00e9":"accent key","ключ":"значение"}}]}"#,
        #"{"status":[{"mediaSessionId":1,"media":{"contentId":"\ud83d"}}]}"#,
        #"{"status":[{"mediaSessionId":1,"media":{"contentId":"\ude00"}}]}"#,
        #"{"status":[{"mediaSessionId":1,"media":{"contentId":"\ud83d\u0041"}}]}"#,
        #"{"status":[{"mediaSessionId":1,"media":{"contentId":"\u12"}}]}"#, #"{"status":[{"mediaSessionId":1,"x":"\q"}]}"#,
        #"{"status":[{"mediaSessionId":1,"x":"\u00"}]}"#, #"{"x":"\"#, #"{"x":"abc"#, #"{"x":"a\u0000b"}"#,
        "{\"x\":\"tab\there\"}", "{\"x\":\"nl\nhere\"}", "{\"status\":[{\"mediaSessionId\":1,\"media\":{\"contentId\":\"ü\"}}]}",
        // Literals and whitespace.
        #"{"status":[{"mediaSessionId":1,"x":tru}]}"#, #"{"status":[{"mediaSessionId":1,"x":nul}]}"#,
        #"{"status":[{"mediaSessionId":1,"x":falsey}]}"#, " \t\r\n{ \"status\" : [ { \"mediaSessionId\" : 1 } ] } \n",
        #"{"status":[{"mediaSessionId":1}]}/* comment */"#, "{\"status\":[{\"mediaSessionId\":1}]}\u{0B}",
    ]

    @Test(arguments: edges.indices)
    func edgeInputsGiveTheSameOutcome(index: Int) {
        Self.expectSameOutcome(Self.edges[index])
    }

    @Test func invalidUTF8AndDepthGiveTheSameOutcome() {
        // Invalid UTF-8 in a value, in a skipped value and in a member name; an overlong encoding; a lone
        // continuation byte; a truncated sequence at the end.
        let prefix = Array(#"{"status":[{"mediaSessionId":1,"media":{"contentId":""#.utf8)
        let suffix = Array(#""}}]}"#.utf8)
        for bad: [UInt8] in [[0xFF], [0xC0, 0xAF], [0x80], [0xE2, 0x82], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80]] {
            Self.expectSameOutcome(prefix + bad + suffix)
            Self.expectSameOutcome(Array(#"{"skipped":""#.utf8) + bad + Array(#"","status":[]}"#.utf8))
            Self.expectSameOutcome(Array(#"{"status":[{"mediaSessionId":1,""#.utf8) + bad + Array(#"":1}]}"#.utf8))
        }
        Self.expectSameOutcome(Array(#"{"x":"é"}"#.utf8) + [0xC3])
        // Nesting at and past the limit, in a skipped member and in a kept one (`customData`).
        for depth in [510, 511, 512, 513] {
            let nested = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
            Self.expectSameOutcome(#"{"skipped":"# + nested + "}")
            Self.expectSameOutcome(#"{"status":[{"mediaSessionId":1,"customData":"# + nested + "}]}")
        }
    }

    /// A `media` repeated byte for byte in `items` is read once and reused: the same message as the tree,
    /// also when the repeat would nest past the depth limit where the first did not, and when the repeat
    /// differs in its last bytes.
    @Test func repeatedMediaGivesTheSameOutcome() {
        // The first media object opens at depth 4, the one in `items` at depth 6.
        for levels in 504...509 {
            let nested = String(repeating: "[", count: levels) + String(repeating: "]", count: levels)
            let media = #"{"contentId":"a","customData":"# + nested + "}"
            Self.expectSameOutcome(#"{"status":[{"mediaSessionId":1,"media":"# + media + #","items":[{"itemId":1,"media":"# + media + "}]}]}")
        }
        let media = #"{"contentId":"https://example.com/a.mp4","contentType":"video/mp4","metadata":{"metadataType":1,"title":"A"}}"#
        let other = #"{"contentId":"https://example.com/a.mp4","contentType":"video/mp4","metadata":{"metadataType":1,"title":"B"}}"#
        for items in ["[{\"media\":\(media)},{\"media\":\(media)}]", "[{\"media\":\(other)},{\"media\":\(media)}]",
                      "[{\"media\":null},{\"media\":\(media) }]", "[{\"media\":\(media.dropLast())}]"] {
            Self.expectSameOutcome(#"{"status":[{"mediaSessionId":1,"media":"# + media + #","items":"# + items + "}]}")
            Self.expectSameOutcome(#"{"status":[{"mediaSessionId":1,"items":"# + items + #","media":"# + media + "}]}")
        }
        let decoded = try? MediaStatusMessage(utf8: Array((#"{"status":[{"mediaSessionId":1,"media":"# + media + #","items":[{"media":"# + media + "}]}]}").utf8))
        #expect(decoded?.first?.items?.first?.media == decoded?.first?.media)
        #expect(decoded?.first?.media?.metadata?.title == "A")
    }

    /// Reads `texts` in order with one ``MediaStatusMemory``, as a media channel does, and holds each result
    /// to the tree's (or each error code to the tree's).
    static func expectSameOutcomesRemembering(_ texts: [[UInt8]], sourceLocation: SourceLocation = #_sourceLocation) {
        var memory = MediaStatusMemory()
        for bytes in texts {
            let before = memory.entries.map(\.value)
            let remembering = Result { () throws(JSONError) in try MediaStatusMessage.routed(utf8: bytes, remembering: &memory) }
            let reference = Result { () throws(JSONError) in try MediaStatusMessage(json: JSONValue(parsing: Data(bytes))) }
            switch (remembering, reference) {
            case (.success(let fast), .success(let reference)):
                #expect(fast.message == reference, "\(String(decoding: bytes, as: UTF8.self))", sourceLocation: sourceLocation)
            case (.failure(let fast), .failure(let reference)):
                #expect(fast.code == reference.code, "\(fast) / \(reference)", sourceLocation: sourceLocation)
                #expect(memory.entries.map(\.value) == before, "a message that did not read changed the memory",
                        sourceLocation: sourceLocation)
            default:
                Issue.record("remembering: \(remembering); tree: \(reference); input \(String(decoding: bytes, as: UTF8.self))",
                             sourceLocation: sourceLocation)
            }
            #expect(memory.count <= MediaStatusMemory.capacity, sourceLocation: sourceLocation)
        }
    }

    /// A `media` remembered from an earlier status is reused when a later one repeats its bytes: the planted
    /// model comes back, so the bytes were not read again.
    @Test func aMediaRememberedFromAnEarlierStatusIsReused() throws {
        let media = #"{"contentId":"https://example.com/a.mp4","contentType":"video/mp4","metadata":{"metadataType":1,"title":"A"}}"#
        let status = Array((#"{"type":"MEDIA_STATUS","requestId":3,"status":[{"mediaSessionId":1,"media":"# + media + "}]}").utf8)
        var memory = MediaStatusMemory()
        let first = try MediaStatusMessage.routed(utf8: status, remembering: &memory)
        #expect(first.type == "MEDIA_STATUS")
        #expect(first.message.first?.media?.metadata?.title == "A")
        #expect(memory.count == 1)
        var planted = try #require(first.message.first?.media)
        planted.contentType = "planted"
        memory.entries[0].media = MediaBox(planted)
        let second = try MediaStatusMessage.routed(utf8: status, remembering: &memory)
        #expect(second.message.first?.media?.contentType == "planted")
        // One byte different: read again.
        let changed = Array(String(decoding: status, as: UTF8.self).replacingOccurrences(of: #""A""#, with: #""B""#).utf8)
        let third = try MediaStatusMessage.routed(utf8: changed, remembering: &memory)
        #expect(third.message.first?.media?.contentType == "video/mp4")
        #expect(third.message.first?.media?.metadata?.title == "B")
        // Most recent first: the new media, then the one it did not repeat.
        #expect(memory.entries.first?.media.media.metadata?.title == "B")
        #expect(memory.count == 2)
    }

    /// Statuses read in a row with one memory give what the tree gives, whatever repeats: the same status
    /// again, its media in the queue window, a window of three items that comes back shifted, a media
    /// changed in its last bytes, a remembered media that would now nest past the depth limit, and
    /// statuses that do not read at all (which leave the memory as it was).
    @Test func statusesReadInARowWithOneMemoryGiveTheSameOutcome() {
        func media(_ title: String) -> String {
            #"{"contentId":"https://example.com/\#(title).mp4","contentType":"video/mp4","metadata":{"metadataType":1,"title":"\#(title)"}}"#
        }
        func status(_ current: String, window: [String], requestId: Int = 1) -> [UInt8] {
            let items = window.enumerated().map { #"{"itemId":\#($0.offset + 1),"media":\#(media($0.element))}"# }
            return Array(#"{"type":"MEDIA_STATUS","requestId":\#(requestId),"status":[{"mediaSessionId":1,"items":[\#(items.joined(separator: ","))],"media":\#(media(current))}]}"#.utf8)
        }
        var texts: [[UInt8]] = [
            status("a", window: ["a", "b"]), status("a", window: ["a", "b"], requestId: 2),
            status("b", window: ["a", "b", "c"]), status("c", window: ["b", "c", "d"]), status("d", window: ["c", "d", "e"]),
            status("a", window: []), status("ab", window: ["a"]), Array("{".utf8), status("a", window: ["a"]),
            Array(#"{"status":[{"mediaSessionId":1,"media":{"contentId":"x"}}]} x"#.utf8), status("a", window: ["a"]),
        ]
        // A media remembered from a status's `media` (opening at depth 4, nesting to 511), then repeated in
        // its queue data's items (opening at depth 7: past the limit of 512), then where it was.
        let deep = #"{"contentId":"a","customData":"# + String(repeating: "[", count: 507) + String(repeating: "]", count: 507) + "}"
        let shallow = Array((#"{"status":[{"mediaSessionId":1,"media":"# + deep + "}]}").utf8)
        let deeper = Array((#"{"status":[{"mediaSessionId":1,"queueData":{"items":[{"media":"# + deep + "}]}}]}").utf8)
        texts += [shallow, deeper, shallow]
        texts += MediaModelJSONTests.statuses.map { Array($0.utf8) } + MediaModelJSONTests.statuses.map { Array($0.utf8) }
        texts += [Array(Self.realDevice.utf8), Array(Self.realDevice.utf8)]
        Self.expectSameOutcomesRemembering(texts)
    }

    /// A media remembered from a status's `media` is reused where its repeat still nests within the depth
    /// limit (the planted model comes back), and not a level past it (both readers fail alike): the
    /// repeat sits in the queue data's items, three levels deeper than where it was remembered, and the
    /// media's own nesting grows one level at a time across the limit.
    @Test func aRememberedMediaIsReusedUpToTheDepthLimitAndNotPastIt() throws {
        var reused = 0
        var refused = 0
        for levels in 500...510 {
            let media = #"{"contentId":"a","customData":"# + String(repeating: "[", count: levels)
                + String(repeating: "]", count: levels) + "}"
            let shallow = Array((#"{"status":[{"mediaSessionId":1,"media":"# + media + "}]}").utf8)
            let deeper = Array((#"{"status":[{"mediaSessionId":1,"queueData":{"items":[{"media":"# + media + "}]}}]}").utf8)
            var memory = MediaStatusMemory()
            // Past the limit at the top already: nothing to remember (both readers refuse it, tested above).
            guard let first = try? MediaStatusMessage.routed(utf8: shallow, remembering: &memory) else { continue }
            #expect(first.message.first?.media?.contentId == "a")
            var planted = try #require(memory.entries.first?.media.media)
            planted.contentType = "planted"
            memory.entries[0].media = MediaBox(planted)
            let reference = Result { () throws(JSONError) in try MediaStatusMessage(json: JSONValue(parsing: Data(deeper))) }
            let remembering = Result { () throws(JSONError) in try MediaStatusMessage.routed(utf8: deeper, remembering: &memory) }
            switch (reference, remembering) {
            case (.success, .success(let read)):
                #expect(read.message.first?.queueData?.items?.first?.media?.contentType == "planted", "levels \(levels)")
                reused += 1
            case (.failure(let tree), .failure(let error)):
                #expect(tree.code == error.code, "levels \(levels)")
                refused += 1
            default:
                Issue.record("levels \(levels): tree \(reference), remembering \(remembering)")
            }
        }
        // The range crosses the limit: some repeats were reused, the deeper ones refused.
        #expect(reused > 0 && refused > 0, "reused \(reused), refused \(refused)")
    }

    /// Seeded mutations of the repository's statuses read in a row with one memory: each mutation comes
    /// after its unmutated original, so most remembered media are a byte or two away from the next.
    @Test func mutatedStatusesReadInARowGiveTheSameOutcome() {
        var generator = SeededGenerator(seed: 23)
        let samples = MediaModelJSONTests.statuses.map { Array($0.utf8) } + [Array(Self.realDevice.utf8)]
        var texts: [[UInt8]] = []
        for round in 0..<1_000 {
            let original = samples[round % samples.count]
            var bytes = original
            for _ in 0..<Int.random(in: 1...2, using: &generator) where !bytes.isEmpty {
                let at = Int.random(in: 0..<bytes.count, using: &generator)
                if Bool.random(using: &generator) { bytes[at] = UInt8.random(in: 0...255, using: &generator) } else { bytes.remove(at: at) }
            }
            texts += [original, bytes, original]
        }
        Self.expectSameOutcomesRemembering(texts)
    }

    /// Seeded mutations of the repository's statuses (bytes flipped, inserted, deleted, and JSON tokens
    /// spliced in): whatever the input, both decoders agree.
    @Test func mutatedStatusesGiveTheSameOutcome() {
        var generator = SeededGenerator(seed: 19)
        let samples = MediaModelJSONTests.statuses.map { Array($0.utf8) } + [Array(Self.realDevice.utf8)]
        let tokens = ["null", "true", "1.5", "-0", "1e400", "\"x\"", "[]", "{}", ",", "]", "}", "\"\\u00e9\"", "[1,]", "\u{FF}"]
            .map { Array($0.utf8) }
        for round in 0..<3_000 {
            var bytes = samples[round % samples.count]
            for _ in 0..<Int.random(in: 1...3, using: &generator) where !bytes.isEmpty {
                let at = Int.random(in: 0..<bytes.count, using: &generator)
                switch Int.random(in: 0..<4, using: &generator) {
                case 0: bytes[at] = UInt8.random(in: 0...255, using: &generator)
                case 1: bytes.remove(at: at)
                case 2: bytes.insert(contentsOf: tokens.randomElement(using: &generator)!, at: at)
                default:
                    // Replace a value after a ':' with a token of another type.
                    if let colon = bytes[at...].firstIndex(of: UInt8(ascii: ":")) {
                        let end = bytes[(colon + 1)...].firstIndex { $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "}") } ?? bytes.count
                        bytes.replaceSubrange((colon + 1)..<end, with: tokens.randomElement(using: &generator)!)
                    }
                }
            }
            Self.expectSameOutcome(bytes)
        }
    }

    @Test func errorsAreTyped() {
        #expect(throws: JSONError.self) { try MediaStatusMessage(utf8: Array("{".utf8)) }
        do {
            _ = try MediaStatusMessage(utf8: Array("[1]".utf8))
            Issue.record("an array decoded as a MEDIA_STATUS")
        } catch {
            #expect(error.code == .typeMismatch)
        }
        do {
            _ = try MediaStatusMessage(utf8: Array("[1] x".utf8))
            Issue.record("trailing text decoded")
        } catch {
            #expect(error.code == .malformed)
        }
    }
}

/// QUEUE_ITEMS read from the payload's bytes (`QueueItem.queueItems(utf8:)`) against the tree: the items
/// of the last `items` array, elements that are not objects skipped, each as `QueueItem(json:)` reads it.
@Suite("QUEUE_ITEMS from bytes matches the tree decoder")
struct QueueItemsReadingTests {
    static func outcomes(_ text: String) -> (bytes: Result<[QueueItem]?, JSONError>, tree: Result<[QueueItem]?, JSONError>) {
        let fast = Result { () throws(JSONError) -> [QueueItem]? in try QueueItem.queueItems(utf8: Array(text.utf8)) }
        let tree = Result { () throws(JSONError) -> [QueueItem]? in
            try JSONValue(parsing: text)["items"]?.arrayValue?.compactMap { try? QueueItem(json: $0) }
        }
        return (fast, tree)
    }

    @Test("the same items, or none, or the same error", arguments: [
        #"{"type":"QUEUE_ITEMS","requestId":4,"items":[{"itemId":1,"autoplay":true,"media":{"contentId":"a.mp3","contentType":"audio/mpeg","metadata":{"metadataType":3,"title":"A"}}},{"itemId":2,"orderId":1,"customData":{"k":1}}]}"#,
        #"{"items":[5],"items":[null,{"itemId":"x","media":7},{"itemId":2,"activeTrackIds":[1,"2"],"extra":{}},[],{"media":{"contentId":"a"},"media":{"contentId":"b","tracks":[{"trackId":1}]}}]}"#,
        #"{"items":{"itemId":1}}"#, #"{"items":[{"itemId":1}],"items":7}"#, #"[{"items":[]}]"#, #"{"type":"QUEUE_ITEMS"}"#,
        #"{"items":[{"itemId":1}"#, #"{"items":[{"startTime":1e400}]}"#,
    ])
    func sameAsTheTree(text: String) throws {
        let (fast, tree) = Self.outcomes(text)
        switch (fast, tree) {
        case (.success(let fast), .success(let tree)): #expect(fast == tree)
        case (.failure(let fast), .failure(let tree)): #expect(fast.code == tree.code)
        default: Issue.record("the byte reader gave \(fast), the tree \(tree)")
        }
    }

    @Test("items read from bytes keep what the tree keeps")
    func fields() throws {
        let items = try #require(try QueueItem.queueItems(utf8: Array(#"{"items":[7,{"itemId":3,"preloadTime":5,"media":{"contentId":"x","contentType":"video/mp4"},"orderId":2,"custom":true}]}"#.utf8)))
        #expect(items.count == 1)
        #expect(items[0].itemId == 3 && items[0].preloadTime == 5 && items[0].orderId == 2 && items[0].media?.contentId == "x")
        #expect(items[0].additionalFields["custom"] == true)
    }
}
