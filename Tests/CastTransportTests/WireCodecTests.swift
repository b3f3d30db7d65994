@testable import CastTransport
import Foundation
import Testing
import CastTestSupport

/// The hand-written `CastMessage` codec against SwiftProtobuf's generated one.
@Suite struct WireCodecTests {
    static let messages: [CastMessage] = [
        CastMessage(sourceId: "sender-0", destinationId: "receiver-0", namespace: "urn:x-cast:com.google.cast.tp.connection",
                    payload: .string(#"{"type":"CONNECT"}"#)),
        CastMessage(sourceId: "web-5", destinationId: "*", namespace: "urn:x-cast:com.google.cast.media",
                    payload: .string(String(repeating: "é✓ payload ", count: 400))),
        CastMessage(sourceId: "s", destinationId: "d", namespace: "urn:x-cast:n", payload: .string("")),
        CastMessage(sourceId: "s", destinationId: "d", namespace: "urn:x-cast:bin", payload: .binary(Data((0..<300).map { UInt8($0 % 256) }))),
        CastMessage(sourceId: "s", destinationId: "d", namespace: "urn:x-cast:bin", payload: .binary(Data())),
    ]

    @Test(arguments: messages)
    func encodesExactlyAsSwiftProtobuf(_ message: CastMessage) throws {
        #expect(message.serializedBody() == message.referenceBody)
        #expect(message.encodedSize == message.referenceBody.count)
        #expect(try CastMessage(body: message.referenceBody) == message)
    }

    /// Appends a field with an arbitrary tag to a body.
    static func field(_ number: UInt64, wireType: UInt64, _ payload: [UInt8]) -> [UInt8] {
        varint(number << 3 | wireType) + payload
    }

    static func varint(_ value: UInt64) -> [UInt8] {
        var value = value
        var bytes: [UInt8] = []
        while value >= 0x80 {
            bytes.append(UInt8(value & 0x7F) | 0x80)
            value >>= 7
        }
        return bytes + [UInt8(value)]
    }

    static func lengthDelimited(_ bytes: [UInt8]) -> [UInt8] { varint(UInt64(bytes.count)) + bytes }

    static let base = messages[0].referenceBody

    /// Bodies both decoders must treat alike, accepted or rejected.
    static let variants: [(String, [UInt8])] = [
        ("unknown varint field skipped", base + field(20, wireType: 0, varint(123_456))),
        ("unknown fixed32 and fixed64 fields skipped", base + field(21, wireType: 5, [1, 2, 3, 4]) + field(22, wireType: 1, [UInt8](repeating: 9, count: 8))),
        ("unknown length-delimited field skipped", field(30, wireType: 2, lengthDelimited([1, 2, 3])) + base),
        ("a repeated field's last value wins", base + field(2, wireType: 2, lengthDelimited(Array("other".utf8)))),
        ("continued and remaining_length are read", base + field(8, wireType: 0, [1]) + field(9, wireType: 0, varint(77))),
        ("missing namespace", Array(base.prefix(2)) + field(2, wireType: 2, lengthDelimited([0x61])) + field(3, wireType: 2, lengthDelimited([0x62])) + field(5, wireType: 0, [0]) + field(6, wireType: 2, lengthDelimited([]))),
        ("unknown protocol version", [0x08, 0x07] + Array(base.dropFirst(2))),
        ("unknown payload type", base + field(5, wireType: 0, [5])),
        ("invalid UTF-8 in a string", base + field(6, wireType: 2, lengthDelimited([0x7B, 0xC3, 0x28, 0x7D]))),
        ("truncated varint", base + [0x80]),
        ("length past the end", base + field(6, wireType: 2, [0x7F, 0x41])),
        ("field number zero", base + [0x00, 0x01]),
        ("empty body", []),
        ("ten-byte varint", base + field(20, wireType: 0, [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01])),
    ]

    @Test(arguments: variants)
    func agreesWithSwiftProtobuf(_ name: String, _ body: [UInt8]) {
        let ours = Result { () throws(CastTransportError) in try CastMessage(body: body) }
        let reference = Result { () throws(CastTransportError) in try CastMessage(referenceBody: body) }
        switch (ours, reference) {
        case (.success(let mine), .success(let theirs)): #expect(mine == theirs, "\(name)")
        case (.failure(let error), .failure): #expect(error.code == .malformedMessage, "\(name)")
        default: Issue.record("\(name): hand-written \(ours), SwiftProtobuf \(reference)")
        }
    }

    @Test func wrongWireTypeForAKnownFieldIsMalformed() {
        let body = Self.base + Self.field(2, wireType: 0, [1])
        #expect { try CastMessage(body: body) } throws: { ($0 as? CastTransportError)?.code == .malformedMessage }
    }

    /// A deterministic mutation run: flip, insert and cut bytes of valid bodies; both decoders must agree
    /// on every mutant (the libFuzzer target does the same without bounds).
    @Test func mutantsDecodeAlike() {
        var generator = SeededGenerator(seed: 0xCA57)
        var agreed = 0
        for round in 0..<3_000 {
            var body = Self.messages[round % Self.messages.count].referenceBody
            for _ in 0..<(1 + Int(generator.next() % 3)) where !body.isEmpty {
                let position = Int(generator.next() % UInt64(body.count))
                switch generator.next() % 3 {
                case 0: body[position] ^= UInt8(truncatingIfNeeded: generator.next() | 1)
                case 1: body.insert(UInt8(truncatingIfNeeded: generator.next()), at: position)
                default: body.removeSubrange(position..<min(body.count, position + Int(generator.next() % 4) + 1))
                }
            }
            let ours = Result { () throws(CastTransportError) in try CastMessage(body: body) }
            if case .failure(let error) = ours, error.message.contains("unsupported wire type") { continue }
            let reference = Result { () throws(CastTransportError) in try CastMessage(referenceBody: body) }
            switch (ours, reference) {
            case (.success(let mine), .success(let theirs)):
                #expect(mine == theirs)
                agreed += 1
            case (.failure, .failure): agreed += 1
            default: Issue.record("mutant \(body): hand-written \(ours), SwiftProtobuf \(reference)")
            }
        }
        #expect(agreed > 2_000)
    }
}
