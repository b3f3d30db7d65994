import Foundation
import Testing

@_spi(Fuzzing) @testable import CastTransport

@Suite("Device-auth fuzz entry point")
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
