import CastTestSupport
import Testing

@testable import CastJSON

/// `UTF8Text.string(validating:)` builds long, mostly-ASCII text piece by piece (ASCII runs and runs of
/// bytes above 0x7F); it must give exactly what the standard library's validator gives: the same string,
/// or `nil` for the same inputs.
@Suite struct UTF8TextTests {
    /// Both results for `bytes`; fails the test when they differ.
    static func expectSameAsStandardLibrary(_ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) {
        let ours = bytes.withUnsafeBufferPointer { UTF8Text.string(validating: $0) }
        let reference = bytes.withUnsafeBufferPointer { String(validating: $0, as: UTF8.self) }
        #expect(ours == reference, "\(bytes.count) bytes", sourceLocation: sourceLocation)
        if let ours, let reference {
            #expect(Array(ours.utf8) == Array(reference.utf8), sourceLocation: sourceLocation)
        }
    }

    /// Valid and invalid sequences: two-, three- and four-byte characters, a lone continuation byte, a
    /// truncated sequence, an overlong encoding, a surrogate, a code point past U+10FFFF, bytes never valid.
    static let sequences: [[UInt8]] = [
        Array("é".utf8), Array("中".utf8), Array("😀".utf8), Array("ç".utf8) + Array("ü".utf8),
        [0x80], [0xC3], [0xE4, 0xB8], [0xC0, 0xAF], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xFF], [0xFE, 0xC3, 0xA9],
    ]

    @Test func longTextWithFewNonASCIIRunsMatches() {
        let ascii = Array(String(repeating: "https://example.com/a-long-ascii-run/", count: 8).utf8)
        for sequence in Self.sequences {
            // At the start, in the middle, at the end, twice, and next to each other.
            Self.expectSameAsStandardLibrary(sequence + ascii)
            Self.expectSameAsStandardLibrary(ascii + sequence + ascii)
            Self.expectSameAsStandardLibrary(ascii + sequence)
            Self.expectSameAsStandardLibrary(ascii + sequence + ascii + sequence + ascii)
            Self.expectSameAsStandardLibrary(ascii + sequence + Array("é".utf8) + ascii)
        }
    }

    @Test func manyRunsFallBackAndMatch() {
        // More runs than are joined piece by piece: the rest goes to the standard library's validator.
        var bytes: [UInt8] = []
        for index in 0..<(UTF8Text.maximumPieces * 3) {
            bytes += Array("word \(index) ".utf8) + Array("é".utf8)
        }
        Self.expectSameAsStandardLibrary(bytes)
        Self.expectSameAsStandardLibrary(bytes + [0x80])
        var invalidEarly = bytes
        invalidEarly.insert(0xFF, at: 10)
        Self.expectSameAsStandardLibrary(invalidEarly)
    }

    @Test func seededMixturesMatch() {
        var generator = SeededGenerator(seed: 19)
        for _ in 0..<2_000 {
            var bytes: [UInt8] = []
            let pieces = Int.random(in: 1...40, using: &generator)
            for _ in 0..<pieces {
                if Bool.random(using: &generator) {
                    bytes += (0..<Int.random(in: 0...200, using: &generator)).map { _ in UInt8.random(in: 0x20...0x7E, using: &generator) }
                } else if Int.random(in: 0..<10, using: &generator) == 0 {
                    bytes += (0..<Int.random(in: 1...4, using: &generator)).map { _ in UInt8.random(in: 0x80...0xFF, using: &generator) }
                } else {
                    bytes += Self.sequences[Int.random(in: 0..<4, using: &generator)]
                }
            }
            Self.expectSameAsStandardLibrary(bytes)
        }
    }

    /// The scan for the first byte above 0x7F (thirty-two bytes a round, then eight, then one): every
    /// position of one such byte in texts of every length up to 80, found from three starts (the text's,
    /// halfway to the byte, the byte's own), and none in ASCII text from every start.
    @Test func firstNonASCIIFindsTheFirstHighByte() {
        for count in 0...80 {
            var bytes = [UInt8](repeating: UInt8(ascii: "a"), count: count)
            for start in 0...count {
                let none = bytes.withUnsafeBufferPointer { UTF8Text.firstNonASCII($0, from: start) }
                #expect(none == count, "\(count) ASCII bytes from \(start)")
            }
            for position in 0..<count {
                bytes[position] = position % 2 == 0 ? 0x80 : 0xFF
                for start in [0, position / 2, position] {
                    let found = bytes.withUnsafeBufferPointer { UTF8Text.firstNonASCII($0, from: start) }
                    #expect(found == position, "high byte at \(position) of \(count), from \(start)")
                }
                bytes[position] = UInt8(ascii: "a")
            }
        }
    }

    @Test func shortTextAndEmptyInputMatch() {
        Self.expectSameAsStandardLibrary([])
        Self.expectSameAsStandardLibrary(Array("plain".utf8))
        for sequence in Self.sequences {
            Self.expectSameAsStandardLibrary(Array("Fran".utf8) + sequence + Array("ais".utf8))
        }
    }

    /// The byte-by-byte validator that replaced the standard library's for runs of non-ASCII bytes: every
    /// sequence of one or two bytes, every three-byte sequence from a three- or four-byte lead, and seeded
    /// random runs of up to six bytes, alone and between ASCII text, against `String(validating:as:)`.
    @Test func validatorMatchesTheStandardLibrary() {
        func check(_ bytes: [UInt8]) {
            let reference = bytes.withUnsafeBufferPointer { String(validating: $0, as: UTF8.self) } != nil
            let ours = bytes.withUnsafeBufferPointer { UTF8Text.isValid($0) }
            if ours != reference { Issue.record("\(bytes.map { String($0, radix: 16) }): ours \(ours), reference \(reference)") }
        }
        for first in UInt8(0x80)...0xFF {
            check([first])
            for second in UInt8(0x00)...0xFF { check([first, second]) }
        }
        for lead in UInt8(0xE0)...0xF7 {
            for second in UInt8(0x70)...0xCF {
                for third in [UInt8(0x41), 0x7F, 0x80, 0x9F, 0xA0, 0xBF, 0xC0] { check([lead, second, third]) }
            }
        }
        var generator = SeededGenerator(seed: 26)
        for _ in 0..<20_000 {
            let run = (0..<Int.random(in: 1...6, using: &generator)).map { _ in UInt8.random(in: 0x80...0xFF, using: &generator) }
            check(run)
            check(Array("ab".utf8) + run + Array("cd".utf8))
            Self.expectSameAsStandardLibrary(Array(String(repeating: "x", count: 150).utf8) + run + Array("end".utf8))
        }
        for sequence in Self.sequences { check(sequence) }
    }
}
