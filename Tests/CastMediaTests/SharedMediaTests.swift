import CastJSON
import CastMetadata
import Foundation
import Testing

@testable import CastMedia

/// A status's `media` (and a queue item's, and an extended status's) sits behind one shared reference: copies
/// of a status share it, the items and statuses that repeat a `media` share one model, and the values still
/// behave as values.
@Suite("Media shared between statuses")
struct SharedMediaTests {
    static let media = #"{"contentId":"https://example.com/a.mp4","contentType":"video/mp4","metadata":{"metadataType":1,"title":"A"}}"#
    static let message = #"{"type":"MEDIA_STATUS","requestId":3,"status":[{"mediaSessionId":1,"media":\#(media),"#
        + #""items":[{"itemId":1,"media":\#(media)}],"extendedStatus":{"playerState":"LOADING","media":\#(media)}}]}"#

    @Test func aRepeatedMediaIsOneModel() throws {
        let status = try #require(try MediaStatusMessage(utf8: Array(Self.message.utf8)).first)
        let box = try #require(status.mediaBox)
        #expect(status.items?.first?.mediaBox === box)
        // A copy retains the box; it does not copy the media.
        let copy = status
        #expect(copy.mediaBox === box)
        #expect(copy == status)
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
        let status = try #require(try MediaStatusMessage(utf8: Array(Self.message.utf8)).first)
        var copy = status
        copy.media?.contentType = "audio/mp4"
        copy.items?[0].media?.metadata = nil
        copy.extendedStatus?.media = nil
        #expect(copy.media?.contentType == "audio/mp4")
        #expect(status.media?.contentType == "video/mp4")
        #expect(status.items?.first?.media?.metadata?.title == "A")
        #expect(copy.items?.first?.media?.metadata == nil)
        #expect(status.extendedStatus?.media?.contentId == "https://example.com/a.mp4")
        #expect(copy != status)
        // Equal media in two different models compare and hash as equal.
        var rebuilt = copy
        rebuilt.media = status.media
        rebuilt.items = status.items
        rebuilt.extendedStatus = ExtendedMediaStatus(playerState: .loading, media: status.media)
        #expect(rebuilt.mediaBox !== status.mediaBox)  // setting a media makes a model of its own
        #expect(rebuilt == status)
        #expect(rebuilt.hashValue == status.hashValue)
    }

    @Test func encodingWritesTheMediaUnderItsWireName() throws {
        let status = try #require(try MediaStatusMessage(utf8: Array(Self.message.utf8)).first)
        let encoded = try JSONEncoder().encode(status)
        let tree = try JSONValue(parsing: encoded)
        #expect(tree["media"]?["contentId"]?.stringValue == "https://example.com/a.mp4")
        #expect(tree["items"]?[0]?["media"]?["metadata"]?["title"]?.stringValue == "A")
        #expect(tree["extendedStatus"]?["media"]?["contentType"]?.stringValue == "video/mp4")
        #expect(tree["mediaBox"] == nil)
        #expect(try JSONDecoder().decode(MediaStatus.self, from: encoded) == status)
        // Absent members stay absent.
        let bare = try JSONValue(parsing: JSONEncoder().encode(MediaStatus(mediaSessionId: 2, playerState: .idle)))
        #expect(bare["media"] == nil)
        #expect(bare["extendedStatus"] == nil)
        #expect(bare["mediaSessionId"]?.intValue == 2)
    }
}
