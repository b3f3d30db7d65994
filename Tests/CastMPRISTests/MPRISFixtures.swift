@testable import CastMPRIS
import CastMedia
import CastMediaMetadata
import CastQueue
import Foundation

/// Snapshots and options for the mapping tests.
enum Fixtures {
    static let options = MPRISOptions(
        desktopEntry: "castor", canControl: true, canQuit: true, hasTrackList: true, maxTracks: 50,
        imagePicker: ClosestSizeImagePicker(), imageHints: nil)

    static func song(_ n: Int, duration: Double = 200) -> MediaInformation {
        var metadata = CastMetadata(title: "Song \(n)", metadataType: .musicTrack,
                                    images: [CastImage(url: URL(string: "http://example.com/art\(n).png")!, width: 256, height: 256)])
        metadata.artist = "Artist \(n)"
        metadata.albumName = "Album \(n)"
        return MediaInformation(contentId: "http://example.com/song\(n).mp3", contentType: "audio/mpeg", duration: duration, metadata: metadata)
    }

    static let allCommands: SupportedMediaCommands = [.pause, .seek, .queueNext, .queuePrevious, .queueShuffle, .queueRepeat, .playbackRate]

    /// Playing item `current` of a three-song queue at `position`, taken at `takenAt`.
    static func playing(current: Int = 2, position: Duration = .seconds(10), takenAt: Duration = .zero,
                        state: PlayerState = .playing, shouldPlay: Bool = true, commands: SupportedMediaCommands = allCommands,
                        repeatMode: CastRepeatMode = .off, shuffled: Bool = false, volume: Double? = 0.5) -> MPRISSnapshot {
        let status = MediaStatus(mediaSessionId: 7, playerState: state, currentTime: 10, supportedMediaCommands: commands,
                                 media: song(current), currentItemId: current)
        return MPRISSnapshot(
            identity: "Living Room", status: status, shouldPlay: shouldPlay, repeatMode: repeatMode, isShuffled: shuffled,
            volume: volume, position: position, seekableRange: .zero ... .seconds(200), canGoNext: current < 3,
            canGoPrevious: true, items: (1...3).map { MPRISSnapshot.Item(id: $0, media: song($0)) }, currentItemId: current,
            takenAt: takenAt)
    }

    static func state(_ snapshot: MPRISSnapshot, options: MPRISOptions = options) -> MPRISState {
        MPRISState(snapshot, options: options)
    }
}
