import Testing
@testable import CastMediaServer

@Suite("Byte ranges (RFC 9110 §14)")
struct ByteRangeTests {
    @Test func parsesEveryForm() {
        #expect(HTTPByteRange.parse("bytes=0-499") == [.closed(first: 0, last: 499)])
        #expect(HTTPByteRange.parse("bytes=500-") == [.from(first: 500)])
        #expect(HTTPByteRange.parse("bytes=-500") == [.suffix(length: 500)])
        #expect(HTTPByteRange.parse("BYTES = 1-2 ,\t, 4-") == [.closed(first: 1, last: 2), .from(first: 4)])
        #expect(HTTPByteRange.parse("bytes=0-0,-1") == [.closed(first: 0, last: 0), .suffix(length: 1)])
    }

    @Test(arguments: ["bytes=5-2", "bytes=", "bytes=,", "bytes=abc", "bytes=1-2-3", "bytes=-", "bytes 0-5", "items=0-5",
                      "bytes=0x10-20", "bytes=+1-2", "bytes=1-2;x", "=0-1", "bytes=1 2-3"])
    func malformedOrForeignHeadersAreIgnored(_ header: String) {
        #expect(HTTPByteRange.parse(header) == nil)
        #expect(HTTPByteRange.resolve(header, size: 1000) == .full)
    }

    @Test func hugeNumbersSaturate() {
        #expect(HTTPByteRange.parse("bytes=0-99999999999999999999999") == [.closed(first: 0, last: .max)])
        #expect(HTTPByteRange.resolve("bytes=0-99999999999999999999999", size: 10) == .partial([0..<10]))
        #expect(HTTPByteRange.resolve("bytes=99999999999999999999999-", size: 10) == .unsatisfiable)
    }

    @Test func tooManySpecsAreIgnored() {
        let header = "bytes=" + (0..<65).map { "\($0 * 2)-\($0 * 2)" }.joined(separator: ",")
        #expect(HTTPByteRange.parse(header) == nil)
        let allowed = "bytes=" + (0..<64).map { "\($0 * 2)-\($0 * 2)" }.joined(separator: ",")
        #expect(HTTPByteRange.parse(allowed)?.count == 64)
    }

    @Test func resolvesAgainstSize() {
        #expect(HTTPByteRange.resolve("bytes=0-499", size: 1000) == .partial([0..<500]))
        #expect(HTTPByteRange.resolve("bytes=900-2000", size: 1000) == .partial([900..<1000]))
        #expect(HTTPByteRange.resolve("bytes=500-", size: 1000) == .partial([500..<1000]))
        #expect(HTTPByteRange.resolve("bytes=-500", size: 1000) == .partial([500..<1000]))
        #expect(HTTPByteRange.resolve("bytes=-5000", size: 1000) == .partial([0..<1000]))
        #expect(HTTPByteRange.resolve("bytes=999-", size: 1000) == .partial([999..<1000]))
        #expect(HTTPByteRange.resolve("bytes=1000-", size: 1000) == .unsatisfiable)
        #expect(HTTPByteRange.resolve("bytes=-0", size: 1000) == .unsatisfiable)
        #expect(HTTPByteRange.resolve("bytes=1000-1001,2000-", size: 1000) == .unsatisfiable)
        #expect(HTTPByteRange.resolve(nil, size: 1000) == .full)
    }

    @Test func unsatisfiableSpecsAreDroppedAmongSatisfiableOnes() {
        #expect(HTTPByteRange.resolve("bytes=5000-6000,0-9", size: 1000) == .partial([0..<10]))
    }

    @Test func emptyRepresentation() {
        #expect(HTTPByteRange.resolve("bytes=0-", size: 0) == .unsatisfiable)
        #expect(HTTPByteRange.resolve("bytes=0-0", size: 0) == .unsatisfiable)
        // A suffix spec is satisfiable by definition, but 206 cannot describe zero bytes: send the (empty) whole.
        #expect(HTTPByteRange.resolve("bytes=-10", size: 0) == .full)
    }

    @Test func multipleRangesKeepRequestOrderUnlessCoalesced() {
        #expect(HTTPByteRange.resolve("bytes=500-599,0-99", size: 1000) == .partial([500..<600, 0..<100]))
        #expect(HTTPByteRange.resolve("bytes=0-99,50-149", size: 1000) == .partial([0..<150]))
        #expect(HTTPByteRange.resolve("bytes=0-99,100-199", size: 1000) == .partial([0..<200]))  // adjacent
        #expect(HTTPByteRange.resolve("bytes=500-599,0-99,550-", size: 1000) == .partial([0..<100, 500..<1000]))
        #expect(HTTPByteRange.resolve("bytes=0-0,0-0", size: 1000) == .partial([0..<1]))
    }

    @Test func contentRangeText() {
        #expect(HTTPByteRange.contentRange(0..<1, size: 1) == "bytes 0-0/1")
        #expect(HTTPByteRange.contentRange(5_368_708_120..<5_368_709_120, size: 5_368_709_120)
                    == "bytes 5368708120-5368709119/5368709120")
        #expect(HTTPByteRange.unsatisfiedContentRange(size: 42) == "bytes */42")
    }
}

@Suite("HTTP dates")
struct HTTPDateTests {
    @Test func formatsIMFFixdate() {
        #expect(HTTPDate.format(784_111_777) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(HTTPDate.format(0) == "Thu, 01 Jan 1970 00:00:00 GMT")
        #expect(HTTPDate.format(951_782_400) == "Tue, 29 Feb 2000 00:00:00 GMT")
        #expect(HTTPDate.format(4_102_444_799) == "Thu, 31 Dec 2099 23:59:59 GMT")
    }

    @Test func parsesAllThreeFormats() {
        #expect(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT") == 784_111_777)
        #expect(HTTPDate.parse("Sunday, 06-Nov-94 08:49:37 GMT") == 784_111_777)
        #expect(HTTPDate.parse("Sun Nov  6 08:49:37 1994") == 784_111_777)
        #expect(HTTPDate.parse("Sat, 21 Nov 2026 14:00:00 GMT") == 1_795_269_600)
    }

    @Test(arguments: ["", "yesterday", "Sun, 06 Nov 1994 08:49:37 UTC", "Sun, 31 Feb 1994 08:49:37 GMT",
                      "Sun, 06 Nov 1994 24:00:00 GMT", "Sun, 6 Nov 1994 08:49:37 GMT", "Sun, 06 Foo 1994 08:49:37 GMT"])
    func rejectsInvalidDates(_ text: String) {
        #expect(HTTPDate.parse(text) == nil)
    }

    @Test func roundTrips() {
        for seconds: Int64 in [0, 1, 86_399, 86_400, 1_000_000_000, 1_795_269_600, 2_147_483_648, 4_102_444_799] {
            #expect(HTTPDate.parse(HTTPDate.format(seconds)) == seconds)
        }
    }

    /// Found by FuzzMediaRequest (issue 22), minimized: a year before 1000 parsed but was formatted without its leading
    /// zeros (`Wed, 01 Jan 420 …`), which is not an HTTP date and does not read back; a file modified in such a year got
    /// an invalid `Last-Modified`. Years are written with four digits, and times outside 0000–9999 are clamped to it.
    @Test func yearsAreFourDigits() {
        #expect(HTTPDate.parse("Thu, 01 Jan 0420 00:00:00 GMT") == -48_913_286_400)
        #expect(HTTPDate.format(-48_913_286_400) == "Wed, 01 Jan 0420 00:00:00 GMT")
        #expect(HTTPDate.parse(HTTPDate.format(-48_913_286_400)) == -48_913_286_400)
        #expect(HTTPDate.parse(HTTPDate.format(-61_346_678_400)) == -61_346_678_400)  // Thu, 01 Jan 0026
        #expect(HTTPDate.format(.min) == "Sat, 01 Jan 0000 00:00:00 GMT")
        #expect(HTTPDate.format(.max) == "Fri, 31 Dec 9999 23:59:59 GMT")
        #expect(HTTPDate.parse(HTTPDate.format(.max)) == 253_402_300_799)
    }

    /// Numeric fields are digits only (`4DIGIT`, `2DIGIT`): a sign was accepted by `Int(_:)`.
    @Test(arguments: ["Thu, 01 Jan +420 00:00:00 GMT", "Thu, 01 Jan -420 00:00:00 GMT", "Thu, +1 Jan 2026 00:00:00 GMT",
                      "Thu, 01 Jan 2026 +0:00:00 GMT", "Thursday, 01-Jan-+6 00:00:00 GMT", "Thu Jan +1 00:00:00 2026"])
    func signsAreNotDigits(_ text: String) {
        #expect(HTTPDate.parse(text) == nil)
    }
}
