import CastJSON
import CastMediaMetadata
import Foundation
import Testing

@testable import CastMedia

/// A status's `media` (and a queue item's, and an extended status's) sits behind one shared reference: the
/// items and statuses that repeat a `media` share one model, and the values still behave as values.
@Suite("Media shared between statuses")
struct SharedMediaTests {
    static let media = #"{"contentId":"https://example.com/a.mp4","contentType":"video/mp4","metadata":{"metadataType":1,"title":"A"}}"#
    static let message = #"{"type":"MEDIA_STATUS","requestId":3,"status":[{"mediaSessionId":1,"media":\#(media),"#
        + #""items":[{"itemId":1,"media":\#(media)}],"extendedStatus":{"playerState":"LOADING","media":\#(media)}}]}"#

    static func decoded() throws -> MediaStatus {
        try #require(try MediaStatusMessage(utf8: Array(message.utf8)).first)
    }

    @Test func aRepeatedMediaIsOneModel() throws {
        let status = try Self.decoded()
        #expect(status.items?.first?.mediaBox === status.mediaBox)
        #expect(status.mediaBox != nil)
    }

    @Test func theNextMessageThatRepeatsAMediaSharesItsModel() throws {
        var memory = MediaStatusMemory()
        let bytes = Array(Self.message.utf8)
        let first = try #require(try MediaStatusMessage.routed(utf8: bytes, remembering: &memory).message.first)
        let second = try #require(try MediaStatusMessage.routed(utf8: bytes, remembering: &memory).message.first)
        #expect(second.mediaBox === first.mediaBox)
        #expect(second.items?.first?.mediaBox === first.mediaBox)
    }

    @Test func changingTheMediaOfACopyLeavesTheOthersAlone() throws {
        let status = try Self.decoded()
        // One change at a time, each seen by `==` and by nothing else.
        var copy = status
        copy.media?.contentType = "audio/mp4"
        #expect(copy.media?.contentType == "audio/mp4")
        #expect(status.media?.contentType == "video/mp4")
        #expect(status.items?.first?.media?.contentType == "video/mp4")  // it shared the status's model
        #expect(copy != status)
        copy = status
        copy.items?[0].media?.metadata?.title = "B"
        #expect(status.items?.first?.media?.metadata?.title == "A")
        #expect(status.media?.metadata?.title == "A")
        #expect(copy != status)
        copy = status
        copy.extendedStatus?.media?.contentId = "https://example.com/b.mp4"
        #expect(status.extendedStatus?.media?.contentId == "https://example.com/a.mp4")
        #expect(copy != status)
    }

    @Test func equalMediaInDifferentModelsAreEqual() throws {
        let status = try Self.decoded()
        // Every media set anew: each in a model of its own, equal in value.
        var rebuilt = status
        rebuilt.media = status.media
        rebuilt.items = status.items?.map { item in
            var item = item
            item.media = item.media
            return item
        }
        rebuilt.extendedStatus?.media = status.extendedStatus?.media
        #expect(rebuilt.mediaBox !== status.mediaBox)
        #expect(rebuilt.items?.first?.mediaBox !== status.items?.first?.mediaBox)
        #expect(rebuilt.extendedStatus?.mediaBox !== status.extendedStatus?.mediaBox)
        #expect(rebuilt == status)
        #expect(rebuilt.hashValue == status.hashValue)
        #expect(rebuilt.items?.first == status.items?.first)
        #expect(rebuilt.items?.first?.hashValue == status.items?.first?.hashValue)
    }

    /// What a status encodes to, pinned: the members under their wire names in declaration order (the
    /// encoder that replaced the synthesized one writes the same), the required ones always, the
    /// optional ones when present.
    @Test func encodingIsPinned() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let status = try Self.decoded()
        let media = #"{"contentId":"https:\/\/example.com\/a.mp4","contentType":"video\/mp4","metadata":{"metadataType":1,"title":"A"},"streamType":"BUFFERED"}"#
        let expected = #"{"currentTime":0,"extendedStatus":{"media":\#(media),"playerState":"LOADING"},"items":[{"itemId":1,"media":\#(media)}],"#
            + #""media":\#(media),"mediaSessionId":1,"playbackRate":1,"playerState":"UNKNOWN","supportedMediaCommands":0}"#
        #expect(String(decoding: try encoder.encode(status), as: UTF8.self) == expected)
        #expect(try JSONDecoder().decode(MediaStatus.self, from: Data(expected.utf8)) == status)
        let bare = MediaStatus(mediaSessionId: 2, playerState: .idle)
        #expect(String(decoding: try encoder.encode(bare), as: UTF8.self)
            == #"{"currentTime":0,"mediaSessionId":2,"playbackRate":1,"playerState":"IDLE","supportedMediaCommands":0}"#)
    }

    @Test func aPrintedStatusShowsItsMedia() throws {
        let status = try Self.decoded()
        #expect(String(describing: status).contains("https://example.com/a.mp4"))
        #expect(String(reflecting: status).contains("https://example.com/a.mp4"))
    }
}
