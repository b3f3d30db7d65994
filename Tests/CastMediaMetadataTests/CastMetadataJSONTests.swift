import CastJSON
import Foundation
import Testing

@testable import CastMediaMetadata

/// The hand-written `init(json:)` decoders of the metadata models, and the Codable path that delegates to them.
@Suite("Metadata models decode from a JSON tree")
struct CastMetadataJSONTests {
    @Test func imagesBothWays() throws {
        let json: JSONValue = ["url": "https://h/a.jpg", "width": 480.0, "height": 270, "extra": true]
        let image = try CastImage(json: json)
        #expect(image == CastImage(url: URL(string: "https://h/a.jpg")!, width: 480, height: 270))
        #expect(try JSONDecoder().decode(CastImage.self, from: Data(json.serialized().utf8)) == image)
        #expect(try json.decode(as: CastImage.self) == image)
        // A size that is not a whole number, or not a number, is ignored.
        let sized = try CastImage(json: ["url": "https://h/b.jpg", "width": 1.5, "height": "big"])
        #expect(sized.width == nil && sized.height == nil)
        // The URL is required.
        for bad: JSONValue in [[:], ["url": nil], ["url": 1], ["url": ""], "https://h/a.jpg", nil] {
            let error = try #require(throws: JSONError.self) { try CastImage(json: bad) }
            #expect(error.code == .typeMismatch)
            #expect(throws: DecodingError.self) { try JSONDecoder().decode(CastImage.self, from: Data(bad.serialized().utf8)) }
        }
    }

    @Test func metadataTypeBothWays() throws {
        #expect(try CastMetadataType(json: 3) == .musicTrack)
        #expect(try CastMetadataType(json: 100.0) == .user)
        #expect(try CastMetadataType(json: -7).rawValue == -7)
        for bad: JSONValue in [1.5, "1", nil, 1e300, [1]] {
            #expect(throws: JSONError.self) { try CastMetadataType(json: bad) }
            #expect(throws: DecodingError.self) {
                try JSONDecoder().decode(CastMetadataType.self, from: Data(bad.serialized().utf8))
            }
        }
        #expect(try JSONDecoder().decode(CastMetadataType.self, from: Data("4".utf8)) == .photo)
    }

    @Test func metadataBothWays() throws {
        let texts = [
            #"{"metadataType":1,"title":"Big Buck Bunny","images":[{"url":"http://h/a.jpg","width":480}],"x":{"y":[1]}}"#,
            #"{"title":"no type"}"#,
            #"{"metadataType":null,"title":"null type"}"#,
            #"{"metadataType":3.0,"songName":"s","artistName":"a","trackNumber":2}"#,
        ]
        for text in texts {
            let json = try JSONValue(parsing: text)
            let metadata = try CastMetadata(json: json)
            #expect(try JSONDecoder().decode(CastMetadata.self, from: Data(text.utf8)) == metadata)
            #expect(try json.decode(as: CastMetadata.self) == metadata)
            // Every member is kept (a null metadataType is written back as generic).
            #expect(try CastMetadata(json: metadata.json) == metadata)
        }
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(CastMetadata.self, from: Data(#"{"metadataType":"movie"}"#.utf8))
        }
        // The images accessor reads each entry with CastImage(json:), skipping bad ones.
        let metadata = try CastMetadata(json: ["images": [["url": "http://h/1.jpg"], ["url": 1], 5, ["url": "http://h/2.jpg"]]])
        #expect(metadata.images.map(\.url.absoluteString) == ["http://h/1.jpg", "http://h/2.jpg"])
    }

    @Test func customDataKeepsAnyValue() throws {
        for text in ["null", "1", #""x""#, "[1,{}]", #"{"a":{"b":[true]}}"#] {
            let json = try JSONValue(parsing: text)
            #expect(try JSONDecoder().decode(CastCustomData.self, from: Data(text.utf8)) == CastCustomData(json))
            #expect(try json.decode(as: CastCustomData.self) == CastCustomData(json))
        }
    }
}
