import CastMedia
import Foundation
import Testing
@testable import Castor

@Suite struct ResumeStateTests {
    @Test func anIndexOutsideTheAssetsGivesNil() {
        #expect(CastResumeState(assets: [], options: CastLoadOptions()) == nil)
        #expect(CastResumeState(assets: [Assets.movie(1)], options: CastLoadOptions(index: 1)) == nil)
        #expect(CastResumeState(assets: [Assets.movie(1)], options: CastLoadOptions(index: -3))?.options.index == 0)
        #expect(CastLoadOptions(playbackSpeed: 7).playbackSpeed == 2)
    }

    @Test func codableRoundTrip() throws {
        var state = try #require(CastResumeState(
            assets: [Assets.movie(1), .identifier("id-2"), .entity("https://example.com/entity/3")],
            options: CastLoadOptions(index: 2, time: .milliseconds(12_500), shouldPlay: false, playbackSpeed: 1.5, repeatMode: .one)))
        state.setMediaSelection(language: "fr", for: .audible)
        state.setMediaSelection(language: "en", for: .legible)
        let data = try JSONEncoder().encode(state)
        let decoded = try JSONDecoder().decode(CastResumeState.self, from: data)
        #expect(decoded == state)
        #expect(decoded.mediaSelectionLanguage(for: .audible) == "fr")
        #expect(decoded.mediaSelectionCharacteristics == [.audible, .legible])
        #expect(decoded.options.time == .milliseconds(12_500))
    }

    @Test func decodingRejectsAnIndexOutOfRange() throws {
        let json = #"{"assets":[],"options":{"index":0,"shouldPlay":true,"playbackSpeed":1,"repeatMode":"off"},"languages":{}}"#
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(CastResumeState.self, from: Data(json.utf8)) }
        let bad = #"{"assets":[{"kind":{"identifier":{"_0":"x"}}}],"options":{"index":0},"languages":{"smell":"en"}}"#
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(CastResumeState.self, from: Data(bad.utf8)) }
    }

    @Test func builtFromTheReceiversQueue() throws {
        let tracks = [MediaTrack.audio(id: 1, language: "en"), MediaTrack.audio(id: 2, language: "de"),
                      MediaTrack.text(id: 3, contentId: "https://example.com/fr.vtt", language: "fr")]
        var media = Assets.movie(2).mediaInformation
        media.tracks = tracks
        let items = [QueueItem(itemId: 10, media: Assets.movie(1).mediaInformation), QueueItem(itemId: 11, media: media)]
        var status = MediaStatus(mediaSessionId: 1, playerState: .paused, currentTime: 42)
        status.currentItemId = 11
        status.media = media
        status.activeTrackIds = [2, 3]
        status.playbackRate = 1.25
        status.repeatMode = .allAndShuffle
        let state = try #require(CastPlayer.resumeState(status: status, items: items, position: nil))
        #expect(state.assets.count == 2)
        #expect(state.options.index == 1)
        #expect(state.options.time == .seconds(42))
        #expect(state.options.shouldPlay == false)
        #expect(state.options.playbackSpeed == 1.25)
        #expect(state.options.repeatMode == .all)
        #expect(state.mediaSelectionLanguage(for: .audible) == "de")
        #expect(state.mediaSelectionLanguage(for: .legible) == "fr")
        // The start asset carries its tracks, so the ids that were on come back exactly; they survive a file.
        #expect(state.options.activeTrackIds == [2, 3])
        let decoded = try JSONDecoder().decode(CastResumeState.self, from: try JSONEncoder().encode(state))
        #expect(decoded.options.activeTrackIds == [2, 3])
        // An asset without tracks gets none (ids would mean nothing to it).
        status.currentItemId = 10
        #expect(try #require(CastPlayer.resumeState(status: status, items: items, position: nil)).options.activeTrackIds == nil)
    }

    /// A position a receiver reports can be any number; past a century it resumes at a century (it
    /// trapped `Duration(seconds:)` before 2026-11-27).
    @Test func aHugeReportedPositionResumesAtACentury() throws {
        var status = MediaStatus(mediaSessionId: 1, playerState: .playing, currentTime: 1e300)
        status.media = Assets.movie(1).mediaInformation
        let state = try #require(CastPlayer.resumeState(status: status, items: [], position: nil))
        #expect(state.options.time == .seconds(100 * 365.25 * 86_400))
    }

    @Test func assetsSurviveTheRoundTripThroughMediaInformation() {
        for asset in [Assets.movie(1), Assets.movie(2, live: true), CastAsset.identifier("abc"), .entity("https://e/x")] {
            #expect(CastAsset(media: asset.mediaInformation) == asset)
        }
    }
}
