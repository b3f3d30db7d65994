@testable import CastMPRIS
import CastMedia
import CastQueue
import Testing

/// Snapshot in, MPRIS properties out.
@Suite struct MPRISStateTests {
    @Test func withoutMediaThePlayerIsStoppedWithNoTrack() {
        let state = Fixtures.state(MPRISSnapshot(identity: "Kitchen"))
        #expect(state.playbackStatus == .stopped)
        #expect(state.currentTrack == MPRISNames.noTrack)
        #expect(state.metadata.isEmpty)
        #expect(!state.canPlay && !state.canPause && !state.canSeek && !state.canGoNext && !state.canGoPrevious)
        #expect(state.rootProperties["Identity"] == .string("Kitchen"))
        #expect(state.rootProperties["CanRaise"] == .bool(false))
        #expect(state.rootProperties["DesktopEntry"] == .string("castor"))
    }

    @Test func playingSongMapsToMetadataAndCapabilities() {
        let state = Fixtures.state(Fixtures.playing())
        #expect(state.playbackStatus == .playing)
        #expect(state.currentTrack == "/org/castor/Track/7_2")
        #expect(state.metadata["mpris:trackid"] == .objectPath("/org/castor/Track/7_2"))
        #expect(state.metadata["xesam:title"] == .string("Song 2"))
        #expect(state.metadata["xesam:artist"] == .strings(["Artist 2"]))
        #expect(state.metadata["xesam:album"] == .string("Album 2"))
        #expect(state.metadata["mpris:length"] == .int64(200_000_000))
        #expect(state.metadata["mpris:artUrl"] == .string("http://example.com/art2.png"))
        #expect(state.position == 10_000_000)
        #expect(state.canPlay && state.canPause && state.canSeek && state.canGoNext && state.canGoPrevious)
        #expect(state.volume == 0.5)
        #expect(state.tracks == ["/org/castor/Track/7_1", "/org/castor/Track/7_2", "/org/castor/Track/7_3"])
    }

    @Test func pausedAndBufferingFollowShouldPlay() {
        #expect(Fixtures.state(Fixtures.playing(state: .paused, shouldPlay: false)).playbackStatus == .paused)
        #expect(Fixtures.state(Fixtures.playing(state: .buffering, shouldPlay: true)).playbackStatus == .playing)
        #expect(Fixtures.state(Fixtures.playing(state: .idle)).playbackStatus == .stopped)
    }

    @Test(arguments: [(CastRepeatMode.off, false, "None"), (.one, false, "Track"), (.all, false, "Playlist"), (.all, true, "Playlist")])
    func loopStatusFollowsRepeatMode(mode: CastRepeatMode, shuffled: Bool, expected: String) {
        let state = Fixtures.state(Fixtures.playing(repeatMode: mode, shuffled: shuffled))
        #expect(state.playerProperties["LoopStatus"] == .string(expected))
        #expect(state.playerProperties["Shuffle"] == .bool(shuffled))
    }

    @Test func receiverWithoutPauseOrSeekCannotPauseOrSeek() {
        let state = Fixtures.state(Fixtures.playing(commands: []))
        #expect(!state.canPause && !state.canSeek)
        #expect(state.canPlay)
    }

    @Test func readOnlyPlayerCannotDoAnything() {
        var options = Fixtures.options
        options.canControl = false
        let state = Fixtures.state(Fixtures.playing(), options: options)
        #expect(!state.canPlay && !state.canPause && !state.canSeek && !state.canGoNext && !state.canGoPrevious && !state.canSetVolume)
        #expect(state.playerProperties["CanControl"] == .bool(false))
    }

    @Test func positionIsClampedToTheLength() {
        #expect(Fixtures.state(Fixtures.playing(position: .seconds(500))).position == 200_000_000)
        #expect(Fixtures.state(Fixtures.playing(position: .seconds(-3))).position == 0)
    }

    @Test func trackListIsAWindowAroundTheCurrentItem() {
        let items = (1...100).map { MPRISSnapshot.Item(id: $0) }
        let window = MPRISState.window(of: items, around: 60, limit: 20)
        #expect(window.count == 20)
        #expect(window.first?.id == 55)
        #expect(window.contains { $0.id == 60 })
        #expect(MPRISState.window(of: items, around: 100, limit: 20).last?.id == 100)
    }
}

/// Old and new snapshots in, signals out.
@Suite struct MPRISChangesTests {
    @Test func pauseByAnotherSenderSignalsPlaybackStatusOnly() {
        let old = Fixtures.playing()
        let new = Fixtures.playing(position: .seconds(10), state: .paused, shouldPlay: false)
        let changes = MPRISChanges.between(Fixtures.state(old), Fixtures.state(new), oldSnapshot: old, newSnapshot: new)
        #expect(changes.properties.count == 1)
        #expect(changes.properties.first?.interface == MPRISNames.player)
        #expect(changes.properties.first?.changed == ["PlaybackStatus": DBusValue.string("Paused")])
        #expect(changes.seeked == nil)
        #expect(changes.trackListReplaced == nil)
    }

    @Test func playbackIsNotASeekButAJumpIs() {
        let old = Fixtures.playing(position: .seconds(10), takenAt: .seconds(100))
        let played = Fixtures.playing(position: .seconds(15), takenAt: .seconds(105))
        #expect(MPRISChanges.between(Fixtures.state(old), Fixtures.state(played), oldSnapshot: old, newSnapshot: played).isEmpty)
        let jumped = Fixtures.playing(position: .seconds(30), takenAt: .seconds(105))
        let changes = MPRISChanges.between(Fixtures.state(old), Fixtures.state(jumped), oldSnapshot: old, newSnapshot: jumped)
        #expect(changes.seeked == 30_000_000)
        #expect(changes.properties.isEmpty)  // Position is never in PropertiesChanged
    }

    @Test func newTrackSignalsMetadataAndNotASeekFromZero() {
        let old = Fixtures.playing(current: 2, position: .seconds(190))
        let new = Fixtures.playing(current: 3, position: .zero)
        let changes = MPRISChanges.between(Fixtures.state(old), Fixtures.state(new), oldSnapshot: old, newSnapshot: new)
        let player = changes.properties.first { $0.interface == MPRISNames.player }
        #expect(player?.changed["Metadata"] != nil)
        #expect(player?.changed["CanGoNext"] == .bool(false))
        #expect(changes.seeked == nil)
        #expect(changes.trackListReplaced == nil)  // same queue
    }

    @Test func volumeAndLoopChangesAreSignalled() {
        let old = Fixtures.playing()
        let new = Fixtures.playing(repeatMode: .all, shuffled: true, volume: 0.4)
        let changes = MPRISChanges.between(Fixtures.state(old), Fixtures.state(new), oldSnapshot: old, newSnapshot: new)
        let changed = changes.properties.first { $0.interface == MPRISNames.player }?.changed ?? [:]
        #expect(changed["Volume"] == .double(0.4))
        #expect(changed["LoopStatus"] == .string("Playlist"))
        #expect(changed["Shuffle"] == .bool(true))
    }

    @Test func queueChangeReplacesTheTrackList() {
        let old = Fixtures.playing()
        var new = Fixtures.playing()
        new.items.append(MPRISSnapshot.Item(id: 4))
        let changes = MPRISChanges.between(Fixtures.state(old), Fixtures.state(new), oldSnapshot: old, newSnapshot: new)
        #expect(changes.trackListReplaced?.tracks.last == "/org/castor/Track/7_4")
        #expect(changes.properties.first { $0.interface == MPRISNames.trackList }?.invalidated == ["Tracks"])
    }
}
