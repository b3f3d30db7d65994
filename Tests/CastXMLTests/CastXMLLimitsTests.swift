import Foundation
import Synchronization
import Testing

@testable import CastXML

/// Structural limits enforced while a document is read, and the time limit, each a typed error
/// (issue 45). Before, libxml2 read any number of attributes per element, comparing each with every
/// earlier one and walking the attribute list to link it: one `<item>` with 8 000 attributes took
/// 0.5 s, 16 000 1.3 s, 32 000 12.6 s and 64 000 74 s, and a 4 MB feed with 350 000 ran past 120 s.
@Suite("CastXML structural limits and deadline")
struct CastXMLLimitsTests {
    /// `<rss><channel><item a0="x" a1="x" …>` with `count` attributes.
    static func feed(attributes count: Int, declaration: String = "") -> String {
        let attributes = (0..<count).map { #"a\#($0)="x""# }.joined(separator: " ")
        return #"\#(declaration)<rss version="2.0"><channel><title>T</title><item \#(attributes)><title>E</title></item></channel></rss>"#
    }

    @Test(arguments: [32_000, 350_000])
    func anElementWithTooManyAttributesIsRefusedBeforeLibxml2ReadsIt(count: Int) {
        let error = #expect(throws: CastXMLError.self) { try CastXMLDocument(parsing: Self.feed(attributes: count)) }
        #expect(error?.code == .tooManyAttributes)
        #expect(error?.message.contains("256 attributes") == true, "\(String(describing: error))")
    }

    @Test func attributesUpToTheLimitAndEqualsSignsOutsideTagsAreAccepted() throws {
        let text = Self.feed(attributes: 256, declaration: #"<?xml version="1.0" encoding="UTF-8"?><!-- a=b c=d -->"#)
            .replacingOccurrences(of: "<title>E</title>", with: #"<title a="1=2">E = mc2 <![CDATA[x=y]]></title><?pi a=b?>"#)
        let document = try CastXMLDocument(parsing: text)
        let item = try #require(document.root.child("channel")?.child("item"))
        #expect(item.attributes.count == 256)
        #expect(item.child("title")?.text == "E = mc2 x=y")
        #expect(item.child("title")?.attribute("a") == "1=2")
    }

    @Test func tooManyElementsAndTooLongATextAreRefused() {
        let elements = "<r>" + String(repeating: "<a/>", count: 250_001) + "</r>"
        let nodes = #expect(throws: CastXMLError.self) { try CastXMLDocument(parsing: elements) }
        #expect(nodes?.code == .tooManyNodes)
        let long = "<r>" + String(repeating: "x", count: (1 << 20) + 1) + "</r>"
        let text = #expect(throws: CastXMLError.self) { try CastXMLDocument(parsing: long) }
        #expect(text?.code == .textTooLarge)
        #expect(text?.message.contains("1048576 bytes") == true)
        let value = #"<r a=""# + String(repeating: "x", count: 2_000) + #""/>"#
        let small = CastXMLParseOptions(maxTextSize: 1_000)
        let valueError = #expect(throws: CastXMLError.self) { try CastXMLDocument(parsing: value, options: small) }
        #expect(valueError?.code == .textTooLarge)
    }

    /// UTF-16 documents are scanned in 2-byte code units: their markup is counted the same way.
    @Test func utf16DocumentsAreCountedInTheirCodeUnits() throws {
        for encoding in [String.Encoding.utf16LittleEndian, .utf16BigEndian] {
            let bom: [UInt8] = encoding == .utf16LittleEndian ? [0xFF, 0xFE] : [0xFE, 0xFF]
            let good = Data(bom) + Self.feed(attributes: 3).data(using: encoding)!
            #expect(try CastXMLDocument(parsing: good).root.child("channel")?.child("item")?.attributes.count == 3)
            let hostile = Data(bom) + Self.feed(attributes: 300).data(using: encoding)!
            let error = #expect(throws: CastXMLError.self) { try CastXMLDocument(parsing: hostile) }
            #expect(error?.code == .tooManyAttributes, "\(encoding)")
        }
        let ebcdic = Data([0x4C, 0x6F, 0xA7, 0x94, 0x40])
        #expect(throws: CastXMLError.self) { try CastXMLDocument(parsing: ebcdic) }
    }

    /// A clock that moves one second each time it is read: the time limit is checked between the chunks
    /// libxml2 reads (and while the tree is copied), so a long document passes it after a few reads.
    final class TickingClock: Clock, Sendable {
        typealias Instant = ContinuousClock.Instant
        private let start = ContinuousClock.now
        private let reads = Mutex(0)
        var now: Instant { start.advanced(by: .seconds(reads.withLock { reads in defer { reads += 1 }; return reads })) }
        var minimumResolution: Duration { .zero }
        func sleep(until deadline: Instant, tolerance: Duration?) async throws {}
    }

    @Test func theTimeLimitIsATypedError() {
        let document = "<r>" + String(repeating: "<a>text</a>", count: 10_000) + "</r>"  // 110 KB: many chunks
        let options = CastXMLParseOptions(timeLimit: .seconds(3))
        let error = #expect(throws: CastXMLError.self) { try CastXMLDocument(parsing: document, options: options, clock: TickingClock()) }
        #expect(error?.code == .timedOut)
        #expect(throws: Never.self) { try CastXMLDocument(parsing: document, options: CastXMLParseOptions(timeLimit: nil), clock: TickingClock()) }
    }
}
