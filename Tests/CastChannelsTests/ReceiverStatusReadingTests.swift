import Foundation
import CastJSON
import CastCore
import Testing

@_spi(Fuzzing) @testable import CastChannels

/// RECEIVER_STATUS read from its bytes gives what the tree decoder gives, case by case: the rules of
/// `ReceiverStatus(status:)` member by member (the `FuzzReceiverStatusBytes` target checks the same on
/// any input).
@Suite("ReceiverStatus read from bytes")
struct ReceiverStatusReadingTests {
    static func same(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> ReceiverStatus {
        let (fast, tree) = CastChannelsFuzzing.receiverStatusDecoderOutcomes(text)
        let reference = try tree.get()
        let read = try #require(fast, "the byte reader refused it", sourceLocation: sourceLocation)
        #expect(read == reference, sourceLocation: sourceLocation)
        #expect(read.raw == reference.raw, sourceLocation: sourceLocation)
        return read
    }

    static func bothRefuse(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let (fast, tree) = CastChannelsFuzzing.receiverStatusDecoderOutcomes(text)
        #expect(fast == nil, sourceLocation: sourceLocation)
        #expect(throws: CastChannelError.self, sourceLocation: sourceLocation) { try tree.get() }
    }

    @Test("a real device's status, field by field")
    func realDevice() throws {
        let status = try Self.same(#"""
            {"type":"RECEIVER_STATUS","requestId":30,"status":{"applications":[{"appId":"CC1AD845","universalAppId":"CC1AD845",
            "appType":"WEB","displayName":"Default Media Receiver","statusText":"Ready","iconUrl":"","isIdleScreen":false,
            "namespaces":[{"name":"urn:x-cast:com.google.cast.cac"},{"name":"urn:x-cast:com.google.cast.media"}],
            "sessionId":"s-1","transportId":"t-1"}],"isActiveInput":true,"isStandBy":false,"userEq":{},
            "volume":{"controlType":"attenuation","level":0.6,"muted":false,"stepInterval":0.05}}}
            """#)
        let app = try #require(status.applications.first)
        #expect(app.appId == "CC1AD845" && app.transportId == "t-1" && app.sessionId == "s-1" && app.statusText == "Ready")
        #expect(app.namespaces == ["urn:x-cast:com.google.cast.cac", "urn:x-cast:com.google.cast.media"])
        #expect(status.volume == .init(level: 0.6, muted: false, controlType: .attenuation, stepInterval: 0.05))
        #expect(status.isActiveInput == true && status.isStandBy == false)
        #expect(status.raw["userEq"] == .object([:]), "unknown members stay in raw")
    }

    @Test("defaults, wrong types, null and missing members read as the tree reads them")
    func lenientMembers() throws {
        let idle = try Self.same(#"{"status":{"volume":{"level":"loud","muted":1,"stepInterval":null}},"type":"RECEIVER_STATUS"}"#)
        #expect(idle.applications.isEmpty && idle.volume == .init())
        let defaults = try Self.same(#"{"status":{"applications":[{"appId":"A","transportId":"t","isIdleScreen":"yes"}],"applications2":5}}"#)
        #expect(defaults.applications.first?.displayName == "A" && defaults.applications.first?.sessionId == "t")
        _ = try Self.same(#"{"status":{"applications":{"appId":"A"},"isActiveInput":0,"isStandBy":null,"volume":[1]}}"#)
    }

    @Test("a repeated member keeps its last occurrence, whole")
    func repeatedMembers() throws {
        let status = try Self.same(#"""
            {"status":{"applications":[{"appId":"A"}],"applications":[{"appId":"B","transportId":"t","app\u0049d":"C"}],
            "volume":{"level":0.5},"volume":{"muted":true,"muted":null}},"status2":1}
            """#)
        #expect(status.applications.map(\.appId) == ["C"], "an escaped name is the same member")
        #expect(status.volume == .init())
        _ = try Self.same(#"{"status":5,"status":{"volume":{"level":0.1}}}"#)
        Self.bothRefuse(#"{"status":{"volume":{"level":0.1}},"status":5}"#)
        Self.bothRefuse(#"{"status":{"applications":[{"appId":"B","transportId":"t"}],"applications":[{"appId":"A"}]}}"#)
    }

    @Test("namespaces: an object's string name, or a string; anything else is dropped")
    func namespaceShapes() throws {
        let status = try Self.same(#"""
            {"status":{"applications":[{"appId":"A","transportId":"t",
            "namespaces":[7,{"name":3},{"name":"n1","name":"n2"},"n3",null,[],{"other":"x"},{"name":null}]}]}}
            """#)
        #expect(status.applications.first?.namespaces == ["n2", "n3"])
        _ = try Self.same(#"{"status":{"applications":[{"appId":"A","transportId":"t","namespaces":"n"}]}}"#)
    }

    @Test("what the tree decoder refuses, the byte reader refuses, and the connection gets the tree's error")
    func refusals() throws {
        for text in [
            #"{"status":{"applications":[{"appId":"A"}]}}"#, #"{"status":{"applications":[5]}}"#,
            #"{"status":{"applications":[{"appId":"A","transportId":7}]}}"#, #"{"type":"RECEIVER_STATUS"}"#,
            #"{"status":[]}"#, #"[1]"#, #"{"status":{}"#, #"{"status":{"volume":{"level":1e400}}}"#,
        ] {
            Self.bothRefuse(text)
        }
        let message = CastChannelMessage(CastMessage(
            sourceId: "receiver-0", destinationId: "sender-0", namespace: CastNamespace.receiver.rawValue,
            payload: .string(#"{"type":"RECEIVER_STATUS","status":{"applications":[{"appId":"A"}]}}"#)))
        let error = #expect(throws: CastChannelError.self) { try ReceiverStatus.read(from: message) }
        #expect(error?.code == .malformedReply && error?.message == "Application without appId or transportId")
        let notJSON = CastChannelMessage(CastMessage(
            sourceId: "receiver-0", destinationId: "sender-0", namespace: CastNamespace.receiver.rawValue, payload: .string("{")))
        // Text that is not JSON names what is wrong with it (a status nested too deep said
        // "Expected RECEIVER_STATUS, got RECEIVER_STATUS").
        let notJSONError = #expect(throws: CastChannelError.self) { try ReceiverStatus.read(from: notJSON) }
        #expect(notJSONError?.code == .malformedReply)
        #expect(notJSONError?.message == "The message is not valid JSON: Invalid JSON: Expected a string key at byte 1")
        let binary = CastChannelMessage(CastMessage(
            sourceId: "receiver-0", destinationId: "sender-0", namespace: CastNamespace.receiver.rawValue, payload: .binary(Data([1]))))
        #expect(try ReceiverStatus.read(from: binary) == nil)
    }

    @Test("raw is parsed once, on first use, and setting it replaces it")
    func rawIsLazy() throws {
        var status = try #require(ReceiverStatus(messageText: #"{"status":{"volume":{"level":0.5},"extra":[1,2]}}"#))
        let copy = status
        #expect(!status.rawIsParsed, "reading the fields did not build the tree")
        #expect(status.raw["extra"] == [1, 2])
        #expect(copy.rawIsParsed, "copies share the one parse")
        status.raw = ["replaced": true]
        #expect(status.raw == ["replaced": true])
        #expect(status.volume.level == 0.5, "the decoded fields stay as read")
    }
}
