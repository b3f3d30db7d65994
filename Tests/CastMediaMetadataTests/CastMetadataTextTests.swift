@_spi(JSONReading) import CastJSON
import Foundation
import Testing

@testable import CastMediaMetadata

/// Metadata read from bytes (`CastMetadata.read(from:)`, the MEDIA_STATUS path) keeps its object as text and
/// reads fields on demand; every accessor must give what metadata read from the tree (`init(json:)`) gives.
@Suite("Metadata kept as text reads like metadata from the tree")
struct CastMetadataTextTests {
    /// Metadata from `text` by the byte reader (nil when it reads none), and by `init(json:)` from the tree.
    static func both(_ text: String) throws -> (bytes: CastMetadata?, tree: CastMetadata?) {
        let bytes = try JSONPullReader.read(Array(text.utf8)) { reader throws(JSONError) in
            try CastMetadata.read(from: &reader)
        }
        let tree = try? CastMetadata(json: JSONValue(parsing: text))
        return (bytes, tree)
    }

    static let objects: [String] = [
        #"{"metadataType":1,"title":"Big Buck Bunny","subtitle":"Blender Foundation","studio":"Blender Foundation","releaseDate":"2008-04-10","images":[{"url":"https://h/a.jpg","width":480,"height":270},{"url":"https://h/b.jpg"}]}"#,
        #"{}"#,
        #"{"metadataType":null}"#,
        #"{"title":"first","title":"last","metadataType":2,"metadataType":3}"#,
        #"{"title":1,"title":"Français","artist":"A\"B\\C","artistName":"old"}"#,
        #"{"metadata\u0054ype":4,"t\u0069tle":"escaped key","season":2.0,"episodeNumber":7}"#,
        #"{ "metadataType" : 4 , "width" : 1.5 , "height" : 1080 , "latitude" : -12.5e1 , "images" : [ ] , }"#,
        #"{"songName":"song","episodeTitle":"episode","seasonNumber":3,"episode":null,"images":[1,{"url":7},{"url":"https://h/c.png","width":"x"}]}"#,
        #"{"metadataType":3,"nested":{"a":[1,{"b":null}],"metadataType":9},"posterUrl":"https://h/p.jpg","":"empty key"}"#,
    ]

    @Test(arguments: objects)
    func everyAccessorMatchesTheTree(text: String) throws {
        let (fromBytes, fromTree) = try Self.both(text)
        let bytes = try #require(fromBytes)
        let tree = try #require(fromTree)
        guard case .text = bytes.storage else {
            Issue.record("metadata read from bytes is not kept as text")
            return
        }
        #expect(bytes == tree)
        #expect(tree == bytes)
        #expect(bytes.hashValue == tree.hashValue)
        #expect(bytes.metadataType == tree.metadataType)
        #expect(bytes.fields == tree.fields)
        #expect(bytes.json == tree.json)
        #expect(bytes.images == tree.images)
        #expect(bytes.title == tree.title && bytes.subtitle == tree.subtitle && bytes.artist == tree.artist)
        #expect(bytes.season == tree.season && bytes.episode == tree.episode && bytes.width == tree.width)
        #expect(bytes.height == tree.height && bytes.latitude == tree.latitude && bytes.posterUrl == tree.posterUrl)
        for name in Array(tree.fields.keys) + ["metadataType", "missing", "title", ""] {
            #expect(bytes[field: name] == tree[field: name], "field \(name)")
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        #expect(try encoder.encode(bytes) == encoder.encode(tree))
    }

    @Test func changesApplyToTheFieldsRead() throws {
        let (fromBytes, fromTree) = try Self.both(Self.objects[0])
        var bytes = try #require(fromBytes)
        var tree = try #require(fromTree)
        bytes.title = "New"
        tree.title = "New"
        bytes[field: "extra"] = [1, 2]
        tree[field: "extra"] = [1, 2]
        bytes.images = []
        tree.images = []
        #expect(bytes == tree)
        #expect(bytes.title == "New" && bytes.studio == "Blender Foundation" && bytes[field: "extra"] == [1, 2])
        #expect(bytes.images.isEmpty)
        // A copy made before a change keeps the fields it had.
        let (original, _) = try Self.both(Self.objects[0])
        var copy = try #require(original)
        let kept = copy
        copy.studio = nil
        #expect(kept.studio == "Blender Foundation" && copy.studio == nil)
    }

    @Test func differentTextCanBeEqualMetadata() throws {
        let (compact, _) = try Self.both(#"{"metadataType":1,"title":"A","studio":"B"}"#)
        let (spaced, _) = try Self.both(#"{ "studio" : "B", "title" : "A", "metadataType" : 1.0 }"#)
        let (other, _) = try Self.both(#"{"metadataType":1,"title":"A","studio":"C"}"#)
        #expect(compact == spaced)
        #expect(compact.hashValue == spaced.hashValue)
        #expect(compact != other)
        #expect(Set([compact, spaced, other]).count == 2)
    }

    @Test func whatTheTreeRejectsReadsAsNoMetadata() throws {
        for text in [#"{"metadataType":1.5}"#, #"{"metadataType":"1"}"#, #"{"metadataType":1,"metadataType":[]}"#,
                     "[]", "null", #""movie""#, "7"] {
            let (bytes, tree) = try Self.both(text)
            #expect(bytes == nil && tree == nil, "\(text)")
        }
        // Not JSON: the reader throws, as the tree parser does.
        for text in [#"{"title":}"#, #"{"title":"a""#, #"{"images":[1,]]}"#] {
            #expect(throws: JSONError.self) { try Self.both(text) }
        }
    }
}
