import CastMediaTestSupport
import CastJSON
import Foundation
import Testing

@testable import CastMedia
import CastTestSupport

@Suite("Mutated statuses never crash")
struct MediaStatusMutationTests {
    static let values: [JSONValue] = [
        .null, true, 0, -1, 1.5, 1e300, "", "PLAYING", "#FF000080", [], [1, "x"], [:], ["a": 1],
    ]

    /// Replaces random members of a real status with values of the wrong type: decoding either
    /// succeeds (tolerant fields) or throws, and never traps.
    @Test(arguments: [11, 12, 13] as [UInt64])
    func wrongTypedMembers(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        let original = try JSONValue(parsing: MediaModelDecodingTests.chromecastAudio)
        var decoded = 0
        for _ in 0..<300 {
            var message = original
            var entry = message["status"]![0]!
            var media = entry["media"] ?? [:]
            for _ in 0..<Int.random(in: 1...4, using: &random) {
                let value = Self.values.randomElement(using: &random)!
                if Bool.random(using: &random), let key = entry.objectValue?.keys.randomElement(using: &random) {
                    entry[key] = value
                } else if let key = media.objectValue?.keys.randomElement(using: &random) {
                    media[key] = value
                }
            }
            if entry["media"] != nil { entry["media"] = media }
            message["status"] = [entry]
            if let status = try? message.decode(as: MediaStatusMessage.self) {
                decoded += 1
                _ = status.first.map { MediaPosition.estimate(from: $0, elapsed: .seconds(1)) }
            }
        }
        #expect(decoded > 0)
    }
}
