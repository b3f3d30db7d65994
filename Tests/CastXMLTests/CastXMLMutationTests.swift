import Foundation
import Testing

@testable import CastXML
import CastTestSupport

@Suite("Mutated input never crashes")
struct CastXMLMutationTests {
    static let seed = """
        <?xml version="1.0" encoding="UTF-8"?>
        <root xmlns="urn:schemas-upnp-org:device-1-0" xmlns:i="http://www.itunes.com/dtds/podcast-1.0.dtd">
          <device a="1" i:b="2"><friendlyName>Living &amp; Room</friendlyName><![CDATA[x<y]]></device>
          <i:image href="http://127.0.0.1/a.jpg"/><!-- c --><?pi data?>
        </root>
        """

    /// Random byte edits of a valid document: every result is a tree or a typed error.
    @Test(arguments: [1, 2, 3] as [UInt64])
    func randomMutations(seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        let original = Array(Self.seed.utf8)
        let alphabet = Array("<>&;!?/=\"' []-:#xX0a%".utf8) + [0, 0xFF, 0xC3]
        var parsed = 0
        for _ in 0..<400 {
            var bytes = original
            for _ in 0..<Int.random(in: 1...6, using: &random) {
                let index = Int.random(in: 0..<bytes.count, using: &random)
                switch Int.random(in: 0..<3, using: &random) {
                case 0: bytes[index] = alphabet.randomElement(using: &random)!
                case 1: bytes.remove(at: index)
                default: bytes.insert(alphabet.randomElement(using: &random)!, at: index)
                }
            }
            do {
                let document = try CastXMLDocument(parsing: Data(bytes))
                #expect(!document.root.name.isEmpty)
                parsed += 1
            } catch {
                #expect(!error.message.isEmpty)
            }
        }
        // Some mutations (inside text or attribute values) stay well formed.
        #expect(parsed > 0)
    }
}
