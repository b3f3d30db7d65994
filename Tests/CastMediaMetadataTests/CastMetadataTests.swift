import CastJSON
import Foundation
import Testing

@testable import CastMediaMetadata

@Suite("CastMetadata wire format")
struct CastMetadataWireTests {
    @Test func seedInitializers() throws {
        let none = CastMetadata(title: "Video", metadataType: .movie, image: nil)
        #expect(none.images.isEmpty)
        #expect(none.imageUrl() == nil)
        let image = CastImage(url: URL(string: "https://example.com/poster.jpg"))
        let one = CastMetadata(title: "Video", metadataType: .movie, image: image)
        #expect(one.imageUrl()?.absoluteString == "https://example.com/poster.jpg")
        let image1 = try #require(CastImage(url: URL(string: "https://example.com/poster1.jpg")))
        let image2 = try #require(CastImage(url: URL(string: "https://example.com/poster2.jpg")))
        let many = CastMetadata(title: "Video", metadataType: .movie, images: [image1, image2])
        #expect(many.imageUrl(matching: CastImageHints(type: .background, width: 1920, height: 1080)) == image1.url)
        #expect(many.json == [
            "metadataType": 1, "title": "Video",
            "images": [["url": "https://example.com/poster1.jpg"], ["url": "https://example.com/poster2.jpg"]],
        ])
    }

    @Test func decodesReferenceLoadMetadata() throws {
        let json = try JSONValue(parsing: #"{"metadataType":0,"title":"Big Buck Bunny","images":[{"url":"http://host/a.jpg"}]}"#)
        let metadata = try json.decode(as: CastMetadata.self)
        #expect(metadata.metadataType == .generic)
        #expect(metadata.title == "Big Buck Bunny")
        #expect(metadata.images == [CastImage(url: URL(string: "http://host/a.jpg")!)])
        #expect(try JSONValue(encoding: metadata) == json)
    }

    @Test func everyTypeAndField() throws {
        var tv = CastMetadata(title: "Pilot", metadataType: .tvShow)
        tv.seriesTitle = "The Show"
        tv.season = 1
        tv.episode = 2
        tv.originalAirdate = "2020-01-02"
        #expect(tv.json == ["metadataType": 2, "title": "Pilot", "seriesTitle": "The Show", "season": 1, "episode": 2,
                            "originalAirdate": "2020-01-02"])

        var track = CastMetadata(title: "Song", metadataType: .musicTrack)
        track.artist = "Artist"
        track.albumName = "Album"
        track.albumArtist = "Band"
        track.composer = "Composer"
        track.trackNumber = 3
        track.discNumber = 1
        track.releaseDate = "2011-05-06"
        let trackBack = try track.json.decode(as: CastMetadata.self)
        #expect(trackBack == track)
        #expect(trackBack.composer == "Composer" && trackBack.trackNumber == 3 && trackBack.discNumber == 1)

        var photo = CastMetadata(title: "Sunset", metadataType: .photo)
        photo.location = "Geneva"
        photo.latitude = 46.2
        photo.longitude = 6.15
        photo.width = 4000
        photo.height = 3000
        photo.creationDateTime = "2019-07-01T20:00:00Z"
        photo.artist = "Me"
        #expect(photo.json["latitude"] == 46.2)
        #expect(try photo.json.decode(as: CastMetadata.self).longitude == 6.15)

        var movie = CastMetadata(title: "Film", metadataType: .movie)
        movie.studio = "Studio"
        movie.subtitle = "Sub"
        #expect(movie.json["studio"] == "Studio")

        var chapter = CastMetadata(title: "Chapter One", metadataType: .audiobookChapter)
        chapter.bookTitle = "Book"
        chapter.chapterNumber = 1
        chapter.chapterTitle = "Beginnings"
        #expect(chapter.json == ["metadataType": 5, "title": "Chapter One", "bookTitle": "Book", "chapterNumber": 1,
                                 "chapterTitle": "Beginnings"])

        var user = CastMetadata(title: "Mine", metadataType: CastMetadataType(rawValue: 101))
        user[field: "custom"] = ["a": 1]
        #expect(user.json["metadataType"] == 101)
        #expect(user.metadataType.description == "user(101)")
        user.title = nil
        #expect(user.json["title"] == nil)
    }

    @Test func tolerantDecoding() throws {
        let json = try JSONValue(parsing: """
            {"metadataType":9,"type":9,"songName":"Old Song","artistName":"Old Artist","seasonNumber":4,
             "future":{"nested":[1,2]},"images":[{"url":"http://a/1.jpg","width":10,"height":"big"},{"nourl":true}]}
            """)
        let metadata = try json.decode(as: CastMetadata.self)
        #expect(metadata.metadataType.rawValue == 9)
        #expect(metadata.title == "Old Song")
        #expect(metadata.artist == "Old Artist")
        #expect(metadata.season == 4)
        #expect(metadata.images.count == 1)
        #expect(metadata.images.first?.width == 10 && metadata.images.first?.height == nil)
        #expect(metadata[field: "future"] == ["nested": [1, 2]])
        // Nothing lost when echoed back.
        #expect(metadata.json == json)
    }

    @Test func missingTypeIsGenericAndBadTypeFails() throws {
        #expect(try JSONValue(parsing: #"{"title":"x"}"#).decode(as: CastMetadata.self).metadataType == .generic)
        #expect(throws: JSONError.self) { try JSONValue(parsing: #"{"metadataType":"movie"}"#).decode(as: CastMetadata.self) }
        #expect(throws: JSONError.self) { try CastMetadata(json: [1, 2]) }
    }

    @Test func metadataTypeValues() {
        #expect([CastMetadataType.generic, .movie, .tvShow, .musicTrack, .photo, .audiobookChapter, .user].map(\.rawValue)
            == [0, 1, 2, 3, 4, 5, 100])
    }
}

@Suite("Image pickers")
struct CastImagePickerTests {
    let metadata = CastMetadata(title: "x", images: [
        CastImage(url: URL(string: "http://h/small.jpg")!, width: 100, height: 100),
        CastImage(url: URL(string: "http://h/large.jpg")!, width: 1000, height: 1000),
        CastImage(url: URL(string: "http://h/medium.jpg")!, width: 400, height: 400),
    ])

    @Test func defaultPickerReturnsTheFirstImage() {
        #expect(metadata.imageUrl()?.lastPathComponent == "small.jpg")
        #expect(metadata.imageUrl(matching: CastImageHints(type: .background, width: 900, height: 900))?.lastPathComponent == "small.jpg")
    }

    @Test func closestSizePicker() {
        let picker = ClosestSizeImagePicker()
        #expect(metadata.imageUrl(matching: CastImageHints(type: .miniController, width: 300, height: 300), picker: picker)?.lastPathComponent == "medium.jpg")
        #expect(metadata.imageUrl(matching: CastImageHints(type: .background, width: 2000, height: 2000), picker: picker)?.lastPathComponent == "large.jpg")
        #expect(metadata.imageUrl(matching: nil, picker: picker)?.lastPathComponent == "small.jpg")
    }

    @Test func hugeSizesDoNotOverflow() {
        let metadata = CastMetadata(title: "x", images: [
            CastImage(url: URL(string: "http://h/a.jpg")!, width: Int.max / 2, height: Int.max / 2),
            CastImage(url: URL(string: "http://h/b.jpg")!, width: 10, height: 10),
        ])
        #expect(metadata.imageUrl(matching: CastImageHints(type: .background, width: 5, height: 5),
                                  picker: ClosestSizeImagePicker())?.lastPathComponent == "b.jpg")
    }

    struct BackgroundOnlyPicker: CastImagePicker {
        func image(matching hints: CastImageHints?, from metadata: CastMetadata) -> CastImage? {
            hints?.type == .background ? metadata.images.last : nil
        }
    }

    @Test func customPicker() {
        #expect(metadata.imageUrl(matching: CastImageHints(type: .background), picker: BackgroundOnlyPicker())?.lastPathComponent == "medium.jpg")
        #expect(metadata.imageUrl(matching: CastImageHints(type: .castDialog), picker: BackgroundOnlyPicker()) == nil)
    }
}

@Suite("Custom data")
struct CastCustomDataTests {
    struct Analytics: Codable, Equatable {
        var campaign: String
        var position: Int
        var tags: [String]
    }

    @Test func roundTripsAnyCodable() throws {
        let value = Analytics(campaign: "spring", position: 3, tags: ["a", "b"])
        let data = try CastCustomData(encoding: value)
        #expect(data["campaign"] == "spring")
        #expect(try data.decoded(as: Analytics.self) == value)
        #expect(try value.encodedAsCustomData() == data)
        let encoded = try JSONEncoder().encode(data)
        #expect(try JSONDecoder().decode(CastCustomData.self, from: encoded) == data)
    }

    @Test func shapeMismatchIsTyped() {
        let data: CastCustomData = ["campaign": 1]
        do {
            _ = try data.decoded(as: Analytics.self)
            Issue.record("decoded a mismatched shape")
        } catch {
            #expect(error.code == .typeMismatch)
        }
        #expect(throws: JSONError.self) { try CastCustomData(encoding: Double.nan) }
    }
}

@Suite("The 64 KiB rule")
struct CastMessageSizeTests {
    @Test func protobufArithmetic() {
        // 2 + 2 fixed bytes; "a"/"b"/"c": 3 bytes each; payload of 10: 1 + 1 + 10.
        #expect(CastMessageSize.encodedSize(sourceId: "a", destinationId: "b", namespace: "c", payloadUTF8Count: 10) == 4 + 9 + 12)
        // A 200-byte payload needs a 2-byte length.
        #expect(CastMessageSize.encodedSize(sourceId: "", destinationId: "", namespace: "", payloadUTF8Count: 200) == 4 + 6 + 203)
        #expect(CastMessageSize.varintSize(127) == 1)
        #expect(CastMessageSize.varintSize(128) == 2)
        #expect(CastMessageSize.varintSize(70_000) == 3)
    }

    @Test func checkNamesTheSize() throws {
        try CastMessageSize.check(size: 65_536, what: "LOAD")
        do {
            try CastMessageSize.check(size: 65_537, what: "LOAD")
            Issue.record("accepted 65 537 bytes")
        } catch {
            #expect(error.size == 65_537)
            #expect(error.description.contains("65537"))
            #expect(error.description.contains("LOAD"))
        }
    }

    @Test func jsonSize() {
        let json: JSONValue = ["type": "LOAD", "title": .string(String(repeating: "x", count: 70_000))]
        let size = CastMessageSize.encodedSize(sourceId: "sender-0", destinationId: "web-1",
                                               namespace: "urn:x-cast:com.google.cast.media", json: json)
        #expect(size > CastMessageSize.limit)
        #expect(size == 4 + (2 + 8) + (2 + 5) + (2 + 32) + 1 + 3 + json.serializedData().count)
    }
}
