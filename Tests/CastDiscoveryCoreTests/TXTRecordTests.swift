import CastDiscoveryTestSupport
import Foundation
import Testing

@_spi(Fuzzing) import CastDIAL
@_spi(Fuzzing) @testable import CastDiscoveryCore

/// A real Google Home Mini TXT record (avahi-browse capture, cast-protocol.md §6.1).
let homeMiniTXT: [(key: String, value: String)] = [
    ("id", "99f3c58bf3471cc10cd87f79d33599cf"), ("cd", "56AED3E829D7ACE11EED6FDAA059A193"),
    ("rm", "34432AD6C4E19CD9"), ("ve", "05"), ("md", "Google Home Mini"), ("ic", "/setup/icon.png"),
    ("fn", "Kitchen speaker"), ("ca", "199172"), ("st", "0"), ("bs", "FA8FCA7B4DCD"), ("nf", "1"), ("rs", ""),
]

func raw(_ entries: [String]) -> [[UInt8]] { entries.map { Array($0.utf8) } }

@Suite struct TXTRecordTests {
    @Test func parsesARealDevice() throws {
        let record = try CastTXTRecord(homeMiniTXT)
        let endpoint = CastDeviceEndpoint(address: "10.0.0.7", family: .ipv4, port: 8009, interfaceIndex: 2, interfaceName: "eth0")
        let device = try CastDevice(txt: record, endpoints: [endpoint], serviceName: "Google-Home-Mini-99f3c58bf3471cc10cd87f79d33599cf")
        #expect(device.id.description == "99f3c58b-f347-1cc1-0cd8-7f79d33599cf")
        #expect(device.friendlyName == "Kitchen speaker")
        #expect(device.model == "Google Home Mini")
        #expect(device.protocolVersion == 5)
        #expect(device.isBusy == false)
        #expect(device.receiverStatusText == nil)
        #expect(device.iconPath == "/setup/icon.png")
        // 199172 = 0x30a04: audioOut (4) | 0x30a00 unknown high bits; not video, not a group.
        #expect(device.capabilities.contains(.audioOut))
        #expect(!device.capabilities.contains(.videoOut))
        #expect(!device.isGroup)
        #expect(device.capabilities.rawValue == 199_172)
        #expect(device.txtRecord["bs"] == "FA8FCA7B4DCD")
        #expect(device.preferredEndpoint == endpoint)
        #expect(device.sources == [.mdns])
    }

    @Test func capabilitiesDecodeTheDocumentedBits() {
        let caps = CastDeviceCapabilities(rawValue: 4101)  // 4096 + 4 + 1
        #expect(caps.contains([.videoOut, .audioOut]))
        #expect(!caps.contains(.videoIn) && !caps.contains(.audioIn) && !caps.contains(.multizoneGroup))
        #expect(caps.description == "videoOut|audioOut|0x1000")
        #expect(CastDeviceCapabilities(rawValue: 63).description == "videoOut|videoIn|audioOut|audioIn|devMode|multizoneGroup")
    }

    @Test func groupsComeFromCapabilitiesAndPortNeverFromTheName() throws {
        let groupPort = CastDeviceEndpoint(address: "10.0.0.9", family: .ipv4, port: 32_187)
        let devicePort = CastDeviceEndpoint(address: "10.0.0.9", family: .ipv4, port: 8009)
        let id = "42feced1d94238232fba92623e2682f3"
        // Bit 5 set: a group, whatever the port.
        let flagged = try CastDevice(txt: CastTXTRecord([("id", id), ("fn", "Downstairs"), ("ca", "2084")]), endpoints: [devicePort])
        #expect(flagged.isGroup)
        // No `ca`: decided by the port, like pychromecast.
        let unflagged = try CastDevice(txt: CastTXTRecord([("id", id), ("fn", "Downstairs")]), endpoints: [groupPort])
        #expect(unflagged.isGroup)
        #expect(!(try CastDevice(txt: CastTXTRecord([("id", id), ("fn", "TV")]), endpoints: [devicePort])).isGroup)
        // A group-sounding name on a plain speaker is not a group.
        let named = try CastDevice(txt: CastTXTRecord([("id", id), ("fn", "Group"), ("md", "Google Cast Group"), ("ca", "4")]),
                                   endpoints: [devicePort])
        #expect(!named.isGroup)
        // `ca` advertised without bit 5 on another port (an emulator on a test port) is not a group.
        let emulator = try CastDevice(txt: CastTXTRecord([("id", id), ("fn", "Emu"), ("ca", "5")]), endpoints: [groupPort])
        #expect(!emulator.isGroup)
    }

    @Test func missingRequiredKeysAreRejected() {
        expectCode(.missingKey) { _ = try CastDevice(txt: try CastTXTRecord([("fn", "TV")])) }
        expectCode(.missingKey) { _ = try CastDevice(txt: try CastTXTRecord([("id", "99f3c58bf3471cc10cd87f79d33599cf")])) }
        expectCode(.missingKey) {
            _ = try CastDevice(txt: try CastTXTRecord([("id", "99f3c58bf3471cc10cd87f79d33599cf"), ("fn", "")]))
        }
    }

    @Test func nonUTF8IsRejected() {
        var name = Array("fn=Caf".utf8)
        name += [0xc3, 0x28]  // invalid continuation byte
        expectCode(.invalidUTF8) {
            _ = try CastDevice(txt: try CastTXTRecord(rawEntries: raw(["id=99f3c58bf3471cc10cd87f79d33599cf"]) + [name]))
        }
        expectCode(.invalidUTF8) { _ = try CastTXTRecord(rawEntries: [[0xff, 0xfe, UInt8(ascii: "="), 0x31]]) }
        // Valid UTF-8 in a key that is not printable ASCII.
        expectCode(.malformedTXT) { _ = try CastTXTRecord(rawEntries: [Array("clé=1".utf8)]) }
    }

    @Test func duplicateKeysAreRejectedCaseInsensitively() {
        expectCode(.duplicateKey) { _ = try CastTXTRecord(rawEntries: raw(["fn=A", "md=x", "fn=B"])) }
        expectCode(.duplicateKey) { _ = try CastTXTRecord(rawEntries: raw(["ID=1", "id=2"])) }
    }

    @Test func overLongValuesAndRecordsAreRejected() {
        expectCode(.valueTooLong) { _ = try CastTXTRecord(rawEntries: [Array("fn=".utf8) + [UInt8](repeating: 0x41, count: 253)]) }
        // 255 bytes exactly is fine.
        #expect((try? CastTXTRecord(rawEntries: [Array("fn=".utf8) + [UInt8](repeating: 0x41, count: 252)])) != nil)
        let many = (0..<40).map { Array("k\($0)=".utf8) + [UInt8](repeating: 0x41, count: 240) }
        expectCode(.recordTooLarge) { _ = try CastTXTRecord(rawEntries: many) }
    }

    @Test func badIDsAndNumbersAreRejected() {
        func device(_ pairs: [(key: String, value: String)]) throws {
            _ = try CastDevice(txt: try CastTXTRecord(pairs))
        }
        expectCode(.invalidDeviceID) { try device([("id", "zz"), ("fn", "TV")]) }
        expectCode(.invalidDeviceID) { try device([("id", "99f3c58bf3471cc10cd87f79d33599cX"), ("fn", "TV")]) }
        expectCode(.invalidDeviceID) { try device([("id", "99f3c58bf3471cc10cd87f79d33599cf00"), ("fn", "TV")]) }
        expectCode(.invalidNumber) { try device([("id", "99f3c58bf3471cc10cd87f79d33599cf"), ("fn", "TV"), ("ca", "-1")]) }
        expectCode(.invalidNumber) { try device([("id", "99f3c58bf3471cc10cd87f79d33599cf"), ("fn", "TV"), ("ca", "0x10")]) }
        expectCode(.invalidNumber) {
            try device([("id", "99f3c58bf3471cc10cd87f79d33599cf"), ("fn", "TV"), ("ca", "99999999999999999999")])
        }
        expectCode(.invalidNumber) { try device([("id", "99f3c58bf3471cc10cd87f79d33599cf"), ("fn", "TV"), ("st", "2")]) }
        expectCode(.invalidNumber) { try device([("id", "99f3c58bf3471cc10cd87f79d33599cf"), ("fn", "TV"), ("ve", "100")]) }
    }

    @Test func idsParseInEveryForm() throws {
        let a = try CastDeviceID(parsing: "99f3c58bf3471cc10cd87f79d33599cf")
        let b = try CastDeviceID(parsing: "uuid:99F3C58B-F347-1CC1-0CD8-7F79D33599CF")
        #expect(a == b)
        #expect(a.txtValue == "99f3c58bf3471cc10cd87f79d33599cf")
        #expect(CastDeviceID.derived(from: "10.0.0.1:8009") == CastDeviceID.derived(from: "10.0.0.1:8009"))
        #expect(CastDeviceID.derived(from: "10.0.0.1:8009") != CastDeviceID.derived(from: "10.0.0.2:8009"))
    }

    @Test func wireFormatRoundTripsAndTruncationIsRejected() throws {
        let record = try CastTXTRecord(homeMiniTXT)
        let again = try CastTXTRecord(wireFormat: record.wireFormat)
        #expect(again == record)
        #expect(again["fn"] == "Kitchen speaker")
        #expect(again["FN"] == "Kitchen speaker")
        var truncated = record.wireFormat
        truncated.removeLast()
        expectCode(.malformedTXT) { _ = try CastTXTRecord(wireFormat: truncated) }
        expectCode(.malformedTXT) { _ = try CastTXTRecord(wireFormat: [3, UInt8(ascii: "="), 0x41, 0x42]) }
        // Boolean attribute (no '=') and an empty string entry.
        let flags = try CastTXTRecord(wireFormat: [4] + Array("flag".utf8) + [0])
        #expect(flags.entries == [.init(key: "flag", value: nil)])
        #expect(flags["flag"] == "")
    }

    @Test func advertisedRecordReadsBack() throws {
        let id = try CastDeviceID(parsing: "0123456789abcdef0123456789abcdef")
        let device = CastDevice(id: id, friendlyName: "Lab TV", model: "Castor Emulator", capabilities: [.videoOut, .audioOut],
                                receiverStatusText: "Default Media Receiver", protocolVersion: 5)
        let record = try device.advertisedTXTRecord()
        let back = try CastDevice(txt: record)
        #expect(back.id == id && back.friendlyName == "Lab TV" && back.model == "Castor Emulator")
        #expect(back.capabilities == [.videoOut, .audioOut] && back.receiverStatusText == "Default Media Receiver")
        #expect(record["ve"] == "05")
        #expect(CastDevice.serviceInstanceName(model: "Chromecast Audio", id: id) == "Chromecast-Audio-0123456789abcdef0123456789abcdef")
        #expect(CastDevice.serviceInstanceName(model: "A very long model name indeed", id: id).hasPrefix("A-very-long-model-na-"))
    }

    @Test func fuzzEntryAcceptsGarbage() {
        let inputs: [[UInt8]] = [[], [0], [255], [5, 0x66, 0x6e, 0x3d, 0xff, 0xfe], Array(repeating: 1, count: 9000),
                                 try! CastTXTRecord(homeMiniTXT).wireFormat]
        for input in inputs {
            input.withUnsafeBytes { CastDiscoveryFuzzing.fuzzTXT($0) }
            input.withUnsafeBytes { CastDIALFuzzing.fuzzDeviceDescription($0) }
        }
    }
}

@Suite struct TXTDictionaryTests {
    @Test func dictionaryRecordsUseTheCastKeyOrder() throws {
        let record = try CastTXTRecord(["rs": "", "fn": "TV", "id": "0123456789abcdef0123456789abcdef", "zz": "1", "ca": "5"])
        #expect(record.entries.map(\.key) == ["id", "fn", "ca", "rs", "zz"])
        expectCode(.malformedTXT) { _ = try CastTXTRecord(["": "x"]) }
    }
}
