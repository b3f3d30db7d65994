@testable import CastTLS
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

    static func varintField(_ number: UInt64, _ value: UInt64) -> [UInt8] { field(number, wireType: 0, varint(value)) }
    static func bytesField(_ number: UInt64, _ bytes: [UInt8]) -> [UInt8] { field(number, wireType: 2, lengthDelimited(bytes)) }
    static func stringField(_ number: UInt64, _ text: String) -> [UInt8] { bytesField(number, Array(text.utf8)) }

    /// A valid body, field by field: version, source, destination, namespace, payload type, payload.
    static let version = varintField(1, 0)
    static let source = stringField(2, "sender-0")
    static let destination = stringField(3, "receiver-0")
    static let namespace = stringField(4, "urn:x-cast:n")
    static let stringType = varintField(5, 0)
    static let text = stringField(6, "{}")
    static let minimal = version + source + destination + namespace + stringType + text

    /// A body, whether a proto2 parser accepts it, and why.
    struct Variant: Sendable, CustomTestStringConvertible {
        var name: String
        var body: [UInt8]
        var accepted: Bool
        var testDescription: String { name }
        init(_ name: String, _ body: [UInt8], accepted: Bool) {
            self.name = name
            self.body = body
            self.accepted = accepted
        }
    }

    /// The input FuzzCastFrame trapped on (issue 22, main at 8441ffa, after 1 284 787 executions): the
    /// namespace field (4) also occurs with wire type 0, which proto2 keeps as an unknown field; the
    /// hand-written codec rejected it. (The NUL and backspace characters in the ids were not the cause.)
    static let issue22Finding: [UInt8] = hex(
        "080879080808080808080822080808001a00080822200822017520222008080808001a043a003a00320808080800280028002800080812080808080808080808080808080803")

    static func hex(_ text: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var index = text.startIndex
        while index < text.endIndex {
            let next = text.index(index, offsetBy: 2)
            bytes.append(UInt8(text[index..<next], radix: 16)!)
            index = next
        }
        return bytes
    }

    @Test func issue22FindingDecodesAsSwiftProtobufDecodesIt() throws {
        let expected = CastMessage(
            sourceId: String(repeating: "\u{8}", count: 8), destinationId: ":\u{0}:\u{0}", namespace: "u",
            payload: .string("\u{8}\u{8}\u{8}\u{0}(\u{0}(\u{0}"))
        #expect(try CastMessage(referenceBody: Self.issue22Finding) == expected)
        #expect(try CastMessage(body: Self.issue22Finding) == expected)
    }

    /// Groups nested `depth` deep under unknown field 20, around an unknown varint.
    static func nestedGroups(_ depth: Int) -> [UInt8] {
        let open = [UInt8](Array(repeating: field(20, wireType: 3, []), count: depth).joined())
        let close = [UInt8](Array(repeating: field(20, wireType: 4, []), count: depth).joined())
        return open + varintField(21, 1) + close
    }

    /// Every proto2 rule for `CastMessage`'s fields, with the outcome a proto2 parser gives.
    static let variants: [Variant] = [
        // Unknown fields of every wire type.
        Variant("unknown varint field skipped", base + varintField(20, 123_456), accepted: true),
        Variant("unknown fixed32 and fixed64 fields skipped", base + field(21, wireType: 5, [1, 2, 3, 4]) + field(22, wireType: 1, [UInt8](repeating: 9, count: 8)), accepted: true),
        Variant("unknown length-delimited field skipped", bytesField(30, [1, 2, 3]) + base, accepted: true),
        Variant("unknown group skipped", base + field(20, wireType: 3, []) + field(20, wireType: 4, []), accepted: true),
        Variant("unknown group holding every wire type", field(20, wireType: 3, varintField(1, 9) + field(2, wireType: 1, [UInt8](repeating: 0, count: 8)) + bytesField(3, [0xFF, 0xFE]) + field(4, wireType: 5, [0, 0, 0, 0]) + field(5, wireType: 3, []) + field(5, wireType: 4, [])) + field(20, wireType: 4, []) + base, accepted: true),
        Variant("groups nested 99 deep", base + nestedGroups(99), accepted: true),
        Variant("groups nested 100 deep", base + nestedGroups(100), accepted: false),
        Variant("end-group tag closing another group", base + field(20, wireType: 3, []) + field(21, wireType: 4, []), accepted: false),
        Variant("end-group tag with no open group", base + field(20, wireType: 4, []), accepted: false),
        Variant("group never closed", base + field(20, wireType: 3, varintField(1, 1)), accepted: false),
        Variant("group holding invalid UTF-8 (bytes, not checked)", base + field(20, wireType: 3, bytesField(2, [0xC3, 0x28])) + field(20, wireType: 4, []), accepted: true),
        Variant("field number 0 inside a group", base + field(20, wireType: 3, [0x00, 0x01]) + field(20, wireType: 4, []), accepted: false),
        Variant("wire type 6", base + field(20, wireType: 6, [0]), accepted: false),
        Variant("wire type 7", base + field(20, wireType: 7, [0]), accepted: false),
        Variant("largest field number", base + varintField(536_870_911, 1), accepted: true),
        // A known field with another wire type is an unknown field.
        Variant("source id as a varint", base + varintField(2, 1), accepted: true),
        Variant("namespace as a varint (issue 22)", version + source + destination + varintField(4, 8) + namespace + stringType + text, accepted: true),
        Variant("namespace only as a varint", version + source + destination + varintField(4, 8) + stringType + text, accepted: false),
        Variant("payload as fixed32", base + field(6, wireType: 5, [1, 2, 3, 4]), accepted: true),
        Variant("protocol version packed (length-delimited)", bytesField(1, [0]) + Array(base.dropFirst(2)), accepted: false),
        Variant("payload type packed after a valid one", base + bytesField(5, [1]), accepted: true),
        Variant("source id as a group", base + field(2, wireType: 3, stringField(2, "x")) + field(2, wireType: 4, []), accepted: true),
        Variant("continued as fixed64, remaining_length as bytes", base + field(8, wireType: 1, [UInt8](repeating: 1, count: 8)) + bytesField(9, [1]), accepted: true),
        // Repeated occurrences of non-repeated fields: the last wins; fields in any order.
        Variant("a repeated field's last value wins", base + stringField(2, "other"), accepted: true),
        Variant("fields in reverse order", text + stringType + namespace + destination + source + version, accepted: true),
        Variant("payload type BINARY then STRING", minimal + varintField(5, 1) + stringType, accepted: true),
        Variant("payload type STRING then BINARY, both payloads", minimal + bytesField(7, [1, 2]) + varintField(5, 1), accepted: true),
        Variant("continued and remaining_length are read", base + varintField(8, 1) + varintField(9, 77), accepted: true),
        Variant("continued and remaining_length with 64-bit values", base + varintField(8, UInt64.max) + varintField(9, UInt64.max), accepted: true),
        // Required fields.
        Variant("missing protocol version", source + destination + namespace + stringType + text, accepted: false),
        Variant("missing source id", version + destination + namespace + stringType + text, accepted: false),
        Variant("missing destination id", version + source + namespace + stringType + text, accepted: false),
        Variant("missing namespace", version + source + destination + stringType + text, accepted: false),
        Variant("missing payload type", version + source + destination + namespace + text, accepted: false),
        Variant("STRING without payload_utf8", version + source + destination + namespace + stringType + bytesField(7, [1]), accepted: false),
        Variant("BINARY without payload_binary", version + source + destination + namespace + varintField(5, 1) + text, accepted: false),
        Variant("empty source id", version + stringField(2, "") + destination + namespace + stringType + text, accepted: false),
        Variant("empty body", [], accepted: false),
        // Unknown values of the required enums.
        Variant("unknown protocol version", [0x08, 0x07] + Array(base.dropFirst(2)), accepted: false),
        Variant("known then unknown protocol version", minimal + varintField(1, 7), accepted: true),
        Variant("unknown then known protocol version", varintField(1, 7) + minimal, accepted: true),
        Variant("CASTV2_1_3 protocol version", minimal + varintField(1, 3), accepted: true),
        Variant("unknown payload type after a known one", base + varintField(5, 5), accepted: true),
        Variant("only an unknown payload type", version + source + destination + namespace + varintField(5, 2) + text, accepted: false),
        // Enum varints are truncated to 32 bits.
        Variant("protocol version 2^32 (truncates to 0)", varintField(1, 1 << 32) + Array(minimal.dropFirst(2)), accepted: true),
        Variant("payload type 2^32 + 1 (truncates to BINARY)", version + source + destination + namespace + varintField(5, 1 << 32 | 1) + bytesField(7, [9]), accepted: true),
        Variant("protocol version -1 (ten bytes)", varintField(1, UInt64.max) + Array(minimal.dropFirst(2)), accepted: false),
        Variant("payload type 2^31 + 1", version + source + destination + namespace + varintField(5, 1 << 31 | 1) + bytesField(7, [9]), accepted: false),
        // Varints and tags.
        Variant("overlong protocol version varint", [0x08, 0x80, 0x80, 0x00] + Array(minimal.dropFirst(2)), accepted: true),
        Variant("ten-byte varint", base + field(20, wireType: 0, [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01]), accepted: true),
        Variant("ten-byte varint with bits past the 64th", base + field(20, wireType: 0, [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F]), accepted: true),
        Variant("eleven-byte varint", base + field(20, wireType: 0, [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x80, 0x01]), accepted: false),
        Variant("overlong five-byte tag", [0x88, 0x80, 0x80, 0x80, 0x00, 0x00] + Array(minimal.dropFirst(2)), accepted: true),
        Variant("overlong six-byte tag", [0x88, 0x80, 0x80, 0x80, 0x80, 0x00, 0x00] + Array(minimal.dropFirst(2)), accepted: false),
        Variant("tag past 32 bits", base + [0xA0, 0x80, 0x80, 0x80, 0x10, 0x00], accepted: false),
        Variant("overlong six-byte tag inside a group", base + field(20, wireType: 3, [0x88, 0x80, 0x80, 0x80, 0x80, 0x00, 0x01]) + field(20, wireType: 4, []), accepted: true),
        Variant("truncated varint", base + [0x80], accepted: false),
        Variant("truncated tag", base + [0x88], accepted: false),
        Variant("length past the end", base + field(6, wireType: 2, [0x7F, 0x41]), accepted: false),
        Variant("unknown length past the end", base + field(20, wireType: 2, [0x05, 0x41]), accepted: false),
        Variant("truncated unknown fixed64", base + field(20, wireType: 1, [1, 2, 3]), accepted: false),
        Variant("truncated unknown fixed32", base + field(20, wireType: 5, [1, 2, 3]), accepted: false),
        Variant("field number zero", base + [0x00, 0x01], accepted: false),
        // Strings hold any valid UTF-8, NUL and control characters included.
        Variant("NUL and control characters in ids", version + stringField(2, "a\u{0}\u{1}\u{8}\u{1B}\u{7F}") + stringField(3, "\u{0}") + namespace + stringType + stringField(6, "\u{0}\r\n\t"), accepted: true),
        Variant("every UTF-8 length, noncharacters, U+10FFFF", version + source + destination + bytesField(4, Array("é✓😀".utf8) + [0xEF, 0xBF, 0xBF, 0xEF, 0xB7, 0x90, 0xF4, 0x8F, 0xBF, 0xBF]) + stringType + text, accepted: true),
        Variant("byte-order mark in a string", minimal + stringField(2, "\u{FEFF}x"), accepted: true),
        Variant("invalid UTF-8 in a string", base + bytesField(6, [0x7B, 0xC3, 0x28, 0x7D]), accepted: false),
        Variant("UTF-8 surrogate", base + bytesField(2, [0xED, 0xA0, 0x80]), accepted: false),
        Variant("overlong UTF-8 NUL", base + bytesField(3, [0xC0, 0x80]), accepted: false),
        Variant("code point past U+10FFFF", base + bytesField(4, [0xF4, 0x90, 0x80, 0x80]), accepted: false),
        Variant("truncated UTF-8 sequence", base + bytesField(6, [0xE2, 0x82]), accepted: false),
        Variant("lone continuation byte", base + bytesField(6, [0x80]), accepted: false),
        Variant("invalid UTF-8 in an overwritten string", bytesField(2, [0xFF]) + base, accepted: false),
        Variant("invalid UTF-8 in payload_binary", version + source + destination + namespace + varintField(5, 1) + bytesField(7, [0xFF, 0xC0]), accepted: true),
    ]

    @Test(arguments: variants)
    func agreesWithSwiftProtobuf(_ variant: Variant) {
        let ours = Result { () throws(CastTransportError) in try CastMessage(body: variant.body) }
        let reference = Result { () throws(CastTransportError) in try CastMessage(referenceBody: variant.body) }
        switch (ours, reference) {
        case (.success(let mine), .success(let theirs)):
            #expect(mine == theirs)
            #expect(variant.accepted, "both decoders accepted it")
        case (.failure(let error), .failure):
            #expect(error.code == .malformedMessage)
            #expect(!variant.accepted, "both decoders rejected it: \(error)")
        default: Issue.record("hand-written \(ours), SwiftProtobuf \(reference)")
        }
    }

    @Test func theLastOccurrenceOfAFieldWins() throws {
        let message = try CastMessage(body: Self.minimal + Self.stringField(2, "b") + Self.bytesField(7, [1]) + Self.varintField(5, 1) + Self.stringField(3, "c"))
        #expect(message == CastMessage(sourceId: "b", destinationId: "c", namespace: "urn:x-cast:n", payload: .binary(Data([1]))))
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

    /// A connection's decoder reuses the ids and namespaces of earlier frames (`RecentWireStrings`):
    /// a long stream of mutants, some valid and many repeating or nearly repeating earlier strings
    /// (same length, one byte apart; invalid UTF-8 of a cached length; more distinct strings than
    /// the cache holds), decodes through one cache exactly as SwiftProtobuf decodes each alone.
    @Test func repeatedIdsDecodeAsEachFrameAlone() {
        var generator = SeededGenerator(seed: 0x1D5)
        var recent = RecentWireStrings()
        let ids = ["sender-0", "sender-1", "sender-\u{FF}", "receiver-0", "0123456789abcdef0123456789abcdef0123",
                   "0123456789abcdef0123456789abcdeF0123", "urn:x-cast:com.google.cast.media", "urn:x-cast:com.google.cast.medib",
                   "a", "b", "c", "d", "e", "f", "g"]
        var reused = 0
        for round in 0..<4_000 {
            func pick() -> String { ids[Int(generator.next() % UInt64(ids.count))] }
            var body = Self.version + Self.stringField(2, pick()) + Self.stringField(3, pick())
                + Self.stringField(4, pick()) + Self.stringType + Self.text
            if round % 3 == 0, !body.isEmpty {
                // Break a byte: often inside a string field, sometimes into invalid UTF-8.
                let position = Int(generator.next() % UInt64(body.count))
                body[position] ^= round % 2 == 0 ? 0x80 : 0x01
            }
            let ours = body.withUnsafeBytes { bytes in
                Result { () throws(CastTransportError) in try CastMessage(bodyBytes: bytes, recent: &recent) }
            }
            let reference = Result { () throws(CastTransportError) in try CastMessage(referenceBody: body) }
            switch (ours, reference) {
            case (.success(let mine), .success(let theirs)):
                #expect(mine == theirs, "round \(round)")
                reused += 1
            case (.failure, .failure): break
            default: Issue.record("round \(round) \(body): with the cache \(ours), SwiftProtobuf \(reference)")
            }
        }
        #expect(reused > 2_000)
    }

    /// The platform's namespaces decode to the one shared constant each (`CastWireStrings`), so the
    /// engines' comparisons against those constants find them equal by their bits; a name one byte
    /// away, or a custom one, is a string of its own with the same text it had on the wire.
    @Test func platformNamespacesDecodeToTheSharedConstants() throws {
        func storage(_ string: String) -> UnsafeRawPointer? {
            var string = string
            return string.withUTF8 { UnsafeRawPointer($0.baseAddress) }
        }
        let shared = [CastWireStrings.connection, CastWireStrings.heartbeat, CastWireStrings.deviceAuth,
                      CastWireStrings.receiver, CastWireStrings.media, CastWireStrings.multizone]
        // A connection's cache (twice: a miss, then a hit) and a one-off decode's, which keeps nothing.
        for var recent in [RecentWireStrings(), RecentWireStrings(), RecentWireStrings(keeps: false)] {
            for name in shared + ["urn:x-cast:com.google.cast.medib", "urn:x-cast:com.example.chat"] {
                let body = Self.version + Self.stringField(2, "sender-0") + Self.stringField(3, "receiver-0")
                    + Self.stringField(4, name) + Self.stringType + Self.text
                let message = try body.withUnsafeBytes { bytes throws(CastTransportError) in try CastMessage(bodyBytes: bytes, recent: &recent) }
                #expect(message.namespace == name)
                let isShared = shared.contains(name)
                #expect((storage(message.namespace) == storage(name)) == isShared, "\(name)")
            }
        }
    }
}
