import CastJSON
import CastCore
import Testing

@testable import CastEmulator

/// The receiver's state machine against senders that push its limits (issue 45): statuses too large
/// for one message, floods of virtual connections, 64-bit request ids. Every message it asks to send
/// must fit a Cast frame, and no sender is dropped for what another did.
@Suite("Receiver engine at hostile edges")
struct HostileEdgesEngineTests {
    static let title32600 = String(repeating: "a", count: 32_600)

    /// Every message in `actions` fits a Cast frame.
    static func expectFrames(_ actions: [ReceiverAction], sourceLocation: SourceLocation = #_sourceLocation) {
        for (_, envelope) in actions.sent {
            #expect(envelope.encodedSize <= CastFrame.maxBodySize, "a \(envelope.encodedSize)-byte message", sourceLocation: sourceLocation)
        }
    }

    static func load(title: String, requestId: Int = 5) -> JSONValue {
        ["type": "LOAD", "requestId": JSONValue(requestId), "media": [
            "contentId": "http://127.0.0.1:1/a.mp4", "contentType": "video/mp4", "streamType": "BUFFERED",
            "metadata": ["metadataType": 0, "title": .string(title)],
        ]]
    }

    /// Before: the MEDIA_STATUS of this LOAD (the title as `media` and in the queue item) was over
    /// 64 KiB; the shell's send refused it and closed the loader's socket, and the status broadcast closed
    /// every other sender's. Now the LOAD is refused with a clear error and nothing else changes.
    @Test func aLoadWhoseStatusCouldNotBeSentIsRefusedAndNobodyIsDropped() throws {
        var h = EngineHarness()
        h.launchMediaReceiver(socket: 1)
        h.open(2)
        h.connect(2, from: "sender-2")
        h.connect(2, from: "sender-2", to: h.transportId)
        let actions = h.media(1, Self.load(title: Self.title32600))
        Self.expectFrames(actions)
        #expect(actions.closedSockets.isEmpty)
        let refusal = try #require(actions.json(to: 1, type: "INVALID_REQUEST").first)
        #expect(refusal["reason"] == "INVALID_PARAMS")
        #expect(refusal["requestId"] == 5)
        let explanation = refusal["customData"]?["message"]?.stringValue ?? ""
        #expect(explanation.contains("twice"), "\(explanation)")
        #expect(actions.json(type: "MEDIA_STATUS").isEmpty, "nothing was loaded")
        #expect(h.engine.violations.last?.kind == .refusedRequest)
        #expect(h.engine.app?.media?.session == nil)
        // Both senders are still served: a smaller title loads and both hear of it.
        let loaded = h.media(1, Self.load(title: String(repeating: "b", count: 32_000), requestId: 6))
        Self.expectFrames(loaded)
        #expect(loaded.json(to: 1, type: "MEDIA_STATUS").count == 1)
        #expect(loaded.json(to: 2, type: "MEDIA_STATUS").count == 1)
    }

    /// A queue of three large items passes the LOAD rule item by item, but a status with the previous,
    /// current and next items would not fit: it is written with the current item alone, and a second
    /// sender with a long id gets a GET_STATUS reply that fits too.
    @Test func aStatusOfLargeItemsIsWindowedToFit() throws {
        var h = EngineHarness()
        h.launchMediaReceiver(socket: 1)
        let items: [JSONValue] = (0..<3).map { index in
            ["media": ["contentId": .string("http://127.0.0.1:1/\(index).mp4"), "contentType": "video/mp4",
                       "streamType": "BUFFERED", "duration": 60,
                       "metadata": ["metadataType": 0, "title": .string(String(repeating: "x", count: 18_000))]]]
        }
        let loaded = h.media(1, ["type": "QUEUE_LOAD", "requestId": 3, "items": .array(items), "startIndex": 1])
        Self.expectFrames(loaded)
        let status = try #require(loaded.json(to: 1, type: "MEDIA_STATUS").first)
        let entry = try #require(status["status"]?.arrayValue?.first)
        #expect(entry["items"]?.arrayValue?.count == 1, "the current item alone")
        #expect(entry["media"]?["metadata"]?["title"]?.stringValue?.count == 18_000, "the media is whole")
        // The next command's status (its tail not reusable across fits) fits too.
        let next = h.media(1, ["type": "QUEUE_NEXT", "requestId": 4, "mediaSessionId": entry["mediaSessionId"] ?? 0])
        Self.expectFrames(next)
        #expect(next.json(to: 1, type: "MEDIA_STATUS").count == 1)
        // A sender whose id is long: the unicast reply leaves room for it.
        let long = String(repeating: "s", count: 3_000)
        h.open(2)
        h.connect(2, from: long, to: h.transportId)
        let reply = h.media(2, ["type": "GET_STATUS", "requestId": 9], from: long)
        Self.expectFrames(reply)
        #expect(reply.json(to: 2, type: "MEDIA_STATUS").count == 1)
        #expect(reply.closedSockets.isEmpty)
    }

    /// Before: each CONNECT with a new source id was kept (100 000 of them on one socket cost 21 MB and
    /// 13 s of CPU). Now a socket holds at most 16; more are answered CLOSE, and a socket that keeps
    /// trying is closed with its reason.
    @Test func virtualConnectionsPerSocketAreCapped() {
        var h = EngineHarness()
        h.open(1)
        let limit = h.engine.settings.maximumVirtualConnections
        #expect(limit == 16)
        for index in 0..<limit { #expect(h.connect(1, from: "sender-\(index)").json(type: "CLOSE").isEmpty) }
        #expect(h.connect(1, from: "sender-0").json(type: "CLOSE").isEmpty, "an open one may be opened again")
        #expect(h.engine.sockets[1]?.connections.count == limit)
        var closed: [Int] = []
        for index in limit..<(3 * limit) {
            let actions = h.connect(1, from: "sender-\(index)")
            if h.engine.sockets[1] != nil || !actions.closedSockets.isEmpty {
                #expect(actions.json(to: 1, type: "CLOSE").count == 1)
            }
            closed += actions.closedSockets
            if !closed.isEmpty { break }
        }
        #expect(closed == [1], "the socket is closed after \(limit) refused CONNECTs")
        #expect(h.engine.sockets[1] == nil, "and its state is gone")
        #expect(h.engine.violations.filter { $0.kind == .tooManyVirtualConnections }.count == limit)
    }

    @Test func theViolationRecordIsBounded() {
        var h = EngineHarness()
        h.open(1)
        for index in 0..<(ReceiverEngine.maximumViolations + 50) {
            h.send(1, ["type": "GET_STATUS", "requestId": JSONValue(index)], namespace: Wire.receiver, from: "nobody")
        }
        #expect(h.engine.violations.count <= ReceiverEngine.maximumViolations)
        #expect(h.engine.violationCount == ReceiverEngine.maximumViolations + 50)
        #expect(h.engine.violations.last?.request?.contains("\(ReceiverEngine.maximumViolations + 49)") == true, "the newest are kept")
    }

    /// Before: a `requestId` of 2^63−1 was recorded as missing and the request ignored. Now any integer an
    /// `Int` holds is accepted and echoed with all its digits.
    @Test(arguments: ["9223372036854775807", "-9223372036854775808", "9007199254740993"])
    func sixtyFourBitRequestIdsAreAnsweredExactly(id: String) throws {
        var h = EngineHarness()
        h.launchMediaReceiver(socket: 1)
        let status = h.send(1, text: #"{"type":"GET_STATUS","requestId":\#(id)}"#, namespace: Wire.receiver)
        let text = try #require(status.sent.first?.envelope.payload).text
        #expect(text.contains(#""requestId":\#(id),"#), "\(text.prefix(80))")
        let load = h.send(1, text: #"{"type":"LOAD","requestId":\#(id),"media":{"contentId":"http://h/a.mp4","contentType":"video/mp4"}}"#,
                          namespace: Wire.media, to: h.transportId)
        let statusText = try #require(load.sent.first { $0.envelope.namespace == Wire.media }?.envelope.payload).text
        #expect(statusText.hasPrefix(#"{"requestId":\#(id),"#), "\(statusText.prefix(80))")
        let refused = h.send(1, text: #"{"type":"QUEUE_NEXT","requestId":\#(id),"mediaSessionId":999}"#,
                             namespace: Wire.media, to: h.transportId)
        let error = try #require(refused.sent.first?.envelope.payload).text
        #expect(error.contains(#""requestId":\#(id),"#), "\(error)")
        #expect(!h.engine.violations.contains { $0.kind == .missingRequestId })
    }
}

extension CastMessage.Payload {
    /// The text of a string payload ("" for a binary one).
    var text: String {
        if case .string(let text) = self { return text }
        return ""
    }
}
