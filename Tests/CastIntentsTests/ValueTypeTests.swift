import CastIntents
import Foundation
import Testing

@Suite("Value types and validation")
struct ValueTypeTests {
    @Test func mediaItemRejectsBadIdentifiers() async throws {
        #expect(await castIntentsError { _ = try MediaItem(identifier: "", type: .song) }?.code == .emptyIdentifier)
        let long = String(repeating: "é", count: 257)  // 514 UTF-8 bytes
        #expect(await castIntentsError { _ = try MediaItem(identifier: long, type: .song) }?.code == .identifierTooLong)
        let atLimit = String(repeating: "a", count: MediaItem.maximumIdentifierLength)
        #expect(try MediaItem(identifier: atLimit, type: .song).identifier == atLimit)
        #expect(await castIntentsError { _ = try MediaItem(identifier: "a\u{0}b", type: .song) }?.code == .invalidIdentifier)
        #expect(await castIntentsError { _ = try MediaItem(identifier: "a\nb", type: .song) }?.code == .invalidIdentifier)
        #expect(
            await castIntentsError { _ = try MediaItem(identifier: "x", type: .song, containerIdentifier: "") }?.code
                == .emptyIdentifier)
    }

    @Test func mediaItemTitles() async throws {
        let maximum = String(repeating: "🎧", count: MediaItem.maximumTitleLength)
        #expect(try MediaItem(identifier: "x", title: maximum, type: .song).title == maximum)
        let error = await castIntentsError { _ = try MediaItem(identifier: "x", title: maximum + "!", type: .song) }
        #expect(error?.code == .titleTooLong)
        #expect(error?.message.contains("1001") == true)
        #expect(await castIntentsError { _ = try MediaItem(identifier: "x", title: "", type: .song) }?.code == .emptyTitle)
        #expect(await castIntentsError { _ = try MediaItem(identifier: "x", title: " \t", type: .song) }?.code == .emptyTitle)
        #expect(try MediaItem(identifier: "x", title: nil, type: .song).title == nil)
    }

    @Test func mediaItemArtworkMustBeAbsolute() async throws {
        let relative = try #require(URL(string: "art/cover.png"))
        #expect(
            await castIntentsError { _ = try MediaItem(identifier: "x", type: .song, artworkURL: relative) }?.code
                == .invalidArtworkURL)
        let absolute = try #require(URL(string: "https://example.invalid/cover.png"))
        #expect(try MediaItem(identifier: "x", type: .song, artworkURL: absolute).artworkURL == absolute)
    }

    @Test func mediaItemTypes() async throws {
        #expect(MediaItemType.allKnown.count == Set(MediaItemType.allKnown).count)
        for type in MediaItemType.allKnown {
            #expect(type.isKnown)
            #expect(try type.validatedAsKnown() == type)
        }
        #expect(MediaItemType.podcastEpisode.mediaKind == .audio)
        #expect(MediaItemType.audiobook.mediaKind == .audio)
        #expect(MediaItemType.movie.mediaKind == .video)
        #expect(MediaItemType.tvEpisode.mediaKind == .video)
        #expect(MediaItemType.musicVideo.mediaKind == .video)

        let future = try MediaItemType(validating: "hologram")
        #expect(!future.isKnown)
        #expect(future.mediaKind == nil)
        #expect(await castIntentsError { _ = try future.validatedAsKnown() }?.code == .unknownMediaItemType)
        for bad in ["", "two words", "émission", String(repeating: "a", count: 65), "semi;colon"] {
            #expect(await castIntentsError { _ = try MediaItemType(validating: bad) }?.code == .invalidMediaItemType)
            #expect(await castIntentsError { _ = try MediaItem(identifier: "x", type: MediaItemType(rawValue: bad)) }?.code == .invalidMediaItemType)
        }
    }

    @Test func unknownTypesRoundTripThroughJSON() throws {
        let json = #"{"identifier":"x","title":"Hologram","type":"hologram"}"#
        let item = try JSONDecoder().decode(MediaItem.self, from: Data(json.utf8))
        #expect(item.type.rawValue == "hologram")
        #expect(!item.type.isKnown)
        let encoded = try JSONEncoder().encode(item)
        #expect(try JSONDecoder().decode(MediaItem.self, from: encoded) == item)
    }

    @Test(arguments: [
        #"{"identifier":"","type":"song"}"#,
        #"{"identifier":"x","type":""}"#,
        #"{"identifier":"x","type":"not a type"}"#,
        #"{"identifier":"x","type":"song","title":""}"#,
        #"{"identifier":"x","type":"song","artworkURL":"relative/path"}"#,
        #"{"identifier":"x"}"#,
        #"{"identifier":42,"type":"song"}"#,
        #"[1,2,3]"#,
        #"{"identifier":"x","type":"song","containerIdentifier":"a\u0000b"}"#,
    ])
    func malformedMediaItemJSONIsADecodingError(json: String) {
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(MediaItem.self, from: Data(json.utf8)) }
    }

    @Test func intentValidation() async throws {
        let item = try Fixture.episode(1)
        for speed in [0.0, 0.24, 4.01, -1, .nan, .infinity] {
            #expect(
                await castIntentsError { _ = try PlayMediaIntent(mediaItems: [item], playbackSpeed: speed) }?.code
                    == .invalidPlaybackSpeed)
        }
        #expect(try PlayMediaIntent(mediaItems: [item], playbackSpeed: 0.25).playbackSpeed == 0.25)
        #expect(try PlayMediaIntent(mediaItems: [item], playbackSpeed: 4).playbackSpeed == 4)
        let many = Array(repeating: item, count: PlayMediaIntent.maximumItemCount + 1)
        #expect(await castIntentsError { _ = try PlayMediaIntent(mediaItems: many) }?.code == .tooManyItems)
        #expect(
            await castIntentsError { _ = try PlayMediaIntent(mediaItems: [item], repeatMode: PlaybackRepeatMode(rawValue: "")) }?
                .code == .invalidRepeatMode)

        let empty = try PlayMediaIntent()
        #expect(empty.isEmpty)
        #expect(await castIntentsError { try empty.validateHasContent() }?.code == .emptyIntent)
    }

    @Test func intentDerivedProperties() throws {
        let show = try Fixture.show(3)
        let episode = try Fixture.episode(1, show: 3)
        let both = try PlayMediaIntent(mediaItems: [episode], mediaContainer: show)
        #expect(both.primaryItem == episode)
        #expect(both.containerIdentifier == "show-3")
        let onlyContainer = try PlayMediaIntent(mediaContainer: show)
        #expect(onlyContainer.primaryItem == show)
        #expect(onlyContainer.containerIdentifier == "show-3")
        let onlyItem = try PlayMediaIntent(mediaItems: [episode])
        #expect(onlyItem.containerIdentifier == "show-3")
        let loose = try PlayMediaIntent(mediaItems: [MediaItem(identifier: "track", type: .song)])
        #expect(loose.containerIdentifier == nil)
    }

    @Test func intentJSONRoundTrip() throws {
        let intent = try PlayMediaIntent(
            mediaItems: [Fixture.episode(1), Fixture.episode(2)], mediaContainer: Fixture.show(1), playShuffled: true,
            repeatMode: .all, resumePlayback: false, playbackSpeed: 1.3)
        let data = try JSONEncoder().encode(intent)
        #expect(try JSONDecoder().decode(PlayMediaIntent.self, from: data) == intent)
        let future = #"{"mediaContainer":{"identifier":"s","type":"podcastShow"},"repeatMode":"shuffleRepeat"}"#
        let decoded = try JSONDecoder().decode(PlayMediaIntent.self, from: Data(future.utf8))
        #expect(decoded.repeatMode?.rawValue == "shuffleRepeat")
        #expect(decoded.repeatMode?.isKnown == false)
        let badSpeed = #"{"mediaContainer":{"identifier":"s","type":"podcastShow"},"playbackSpeed":99}"#
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(PlayMediaIntent.self, from: Data(badSpeed.utf8)) }
    }

    @Test func interactionValidation() async throws {
        let intent = try Fixture.playEpisode(1)
        #expect(await castIntentsError { _ = try Interaction(intent: intent, identifier: "") }?.code == .emptyIdentifier)
        #expect(
            await castIntentsError { _ = try Interaction(intent: intent, groupIdentifier: "") }?.code == .emptyIdentifier)
        let a = try Interaction(intent: intent)
        let b = try Interaction(intent: intent)
        #expect(a.identifier != b.identifier)
        #expect(await castIntentsError { try Interaction(intent: PlayMediaIntent()).validateForDonation() }?.code == .emptyIntent)
        let nan = try Interaction(intent: intent, date: Date(timeIntervalSinceReferenceDate: .nan))
        #expect(await castIntentsError { try nan.validateForDonation() }?.code == .invalidDate)
        let data = try JSONEncoder().encode(a)
        #expect(try JSONDecoder().decode(Interaction.self, from: data) == a)
    }

    @Test func predictionModes() async throws {
        #expect(PredictionMode.default.isKnown)
        #expect(PredictionMode.onlyPredictSuggestedIntents.isKnown)
        #expect(!PredictionMode(rawValue: "onlyFavourites").isKnown)
        #expect(await castIntentsError { _ = try PredictionMode(validating: "") }?.code == .invalidPredictionMode)
    }

    @Test func errorDescriptions() {
        let error = CastIntentsError(code: .titleTooLong, message: "too long")
        #expect(error.description == "titleTooLong: too long")
        #expect(PlayMediaFailure(code: .itemNotFound, message: "gone").description == "itemNotFound: gone")
    }
}
