import Foundation
import Testing

@_spi(Fuzzing) @testable import CastTLS

@Suite("Device-auth fuzz entry point", .serialized)
struct DeviceAuthFuzzTests {
    @Test("random, truncated and bit-flipped replies never crash the parser and verifier")
    func fuzzInputs() throws {
        var generator = SystemRandomNumberGenerator()
        for length in [0, 1, 2, 3, 7, 16, 64, 255, 1024, 4096] {
            fuzzAuthResponse((0..<length).map { _ in generator.next() })
        }
        // A real reply, then every prefix of it and single-byte corruptions at many offsets.
        let device = try DeviceAuthFixtures.device.get()
        let tls = try DeviceAuthFixtures.tls.get()
        let challenge = CastDeviceAuthenticator().makeChallenge()
        let reply = try #require(device.respond(to: challenge.message, tlsCertificateDER: tls.certificateDER))
        guard case .binary(let payload) = reply.payload else {
            Issue.record("the reply is not binary")
            return
        }
        let bytes = [UInt8](payload)
        #expect(bytes.count > 2000, "a full chain and CRL")
        fuzzAuthResponse(bytes)
        for end in stride(from: 0, through: bytes.count, by: 7) {
            fuzzAuthResponse(Array(bytes[..<end]))
        }
        for offset in stride(from: 0, to: bytes.count, by: 13) {
            var corrupted = bytes
            corrupted[offset] ^= UInt8.random(in: 1...255, using: &generator)
            fuzzAuthResponse(corrupted)
        }
        // The certificates and CRL alone, truncated.
        for blob in [device.deviceCertificateDER, device.crlBundle ?? []] {
            for end in stride(from: 0, through: blob.count, by: 11) {
                fuzzAuthResponse(Array(blob[..<end]))
            }
        }
    }

    @Test("truncated and bit-flipped seeds of the certificate-path target never crash it")
    func certificatePathInputs() throws {
        let seeds = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fuzz/Seeds/FuzzCertificatePath")
        let names = try FileManager.default.contentsOfDirectory(atPath: seeds.path).sorted()
        #expect(names.count == 4)
        var generator = SystemRandomNumberGenerator()
        for name in names {
            let bytes = Array(try Data(contentsOf: seeds.appendingPathComponent(name)))
            fuzzCertificatePath(bytes)
            for end in stride(from: 0, through: bytes.count, by: 97) { fuzzCertificatePath(Array(bytes[..<end])) }
            for offset in stride(from: 0, to: bytes.count, by: 89) {
                var corrupted = bytes
                corrupted[offset] ^= UInt8.random(in: 1...255, using: &generator)
                fuzzCertificatePath(corrupted)
            }
        }
        // The production seed verifies as a whole: the target reaches the path and revocation checks.
        let chain = try CastDeviceAuthenticator.certificatesDER(
            fromPEMOrDER: Array(try Data(contentsOf: seeds.appendingPathComponent("prod-chain.der"))))
        let crl = Array(try Data(contentsOf: seeds.appendingPathComponent("prod-crl.pb")))
        let path = try CastDeviceAuthenticator().verifyCertificatePath(
            chain, crlBundle: crl, crlPolicy: .required, at: Date(timeIntervalSince1970: 1_470_182_400))
        #expect(path.crl != nil)
    }

    @Test("the DER element reader refuses truncation, indefinite and non-minimal lengths, and multi-byte tags")
    func derElements() {
        #expect(deviceAuthDERElements([][...])?.count == 0)
        #expect(deviceAuthDERElements([0x30][...]) == nil)
        #expect(deviceAuthDERElements([0x30, 0x80, 0x00, 0x00][...]) == nil, "indefinite length")
        #expect(deviceAuthDERElements([0x30, 0x81, 0x03, 0x02, 0x01, 0x07][...]) == nil, "long form below 128")
        #expect(deviceAuthDERElements([0x30, 0x82, 0x00, 0x80][...]) == nil, "leading zero length byte")
        #expect(deviceAuthDERElements([0x1F, 0x01, 0x00][...]) == nil, "multi-byte tag")
        #expect(deviceAuthDERElements([0x30, 0x84, 0x7F, 0xFF, 0xFF, 0xFF][...]) == nil, "longer than the buffer")
        let two = deviceAuthDERElements([0x02, 0x01, 0x07, 0x04, 0x00][...])
        #expect(two?.map(\.tag) == [0x02, 0x04])
        #expect(two?.first.map { Array($0.content) } == [0x07])
    }

    @Test("directory names compare as RFC 5280 says: case and spacing folded, RDN prefixes")
    func nameMatching() throws {
        func name(_ rdns: [(UInt8, String)]) -> [UInt8] {
            // SEQUENCE { SET { SEQUENCE { OID 2.5.4.x, UTF8String value } } … }
            func tlv(_ tag: UInt8, _ content: [UInt8]) -> [UInt8] { [tag, UInt8(content.count)] + content }
            return tlv(0x30, rdns.flatMap { tlv(0x31, tlv(0x30, tlv(0x06, [0x55, 0x04, $0.0]) + tlv(0x0C, Array($0.1.utf8)))) })
        }
        let base = try #require(deviceAuthParseName(name([(6, "US"), (10, "Google Inc")])))
        let inside = try #require(deviceAuthParseName(name([(6, "us"), (10, "  google   INC "), (3, "Device")])))
        let outside = try #require(deviceAuthParseName(name([(6, "US"), (10, "Other"), (3, "Device")])))
        #expect(deviceAuthNameIsWithin(inside, base: base))
        #expect(!deviceAuthNameIsWithin(outside, base: base))
        #expect(!deviceAuthNameIsWithin(base, base: inside), "a shorter name is not inside a longer base")
        #expect(deviceAuthParseName([0x30, 0x03, 0x31, 0x01, 0x00]) == nil)
    }

    @Test("the DER splitter handles lengths at and beyond the buffer")
    func derSplitter() {
        #expect(derFirstElementOfSequence([]) == nil)
        #expect(derFirstElementOfSequence([0x30]) == nil)
        #expect(derFirstElementOfSequence([0x30, 0x84, 0xFF, 0xFF, 0xFF, 0xFF]) == nil)
        #expect(derFirstElementOfSequence([0x30, 0x03, 0x02, 0x05, 0x00]) == nil, "inner element overruns the outer one")
        #expect(derFirstElementOfSequence([0x30, 0x03, 0x02, 0x01, 0x07]) == [0x02, 0x01, 0x07])
        #expect(derFirstElementOfSequence([0x30, 0x81, 0x03, 0x02, 0x01, 0x07]) == nil, "long form below 128 is not DER")
    }
}
