import CastMedia
import CastMediaMetadata
import Foundation

/// What the media round-trip benchmark plays: the same title, artwork and subtitle track that
/// `pychromecast_bench.py` loads with `play_media`, so both get statuses of the same size.
enum Fixture {
    static let base = "http://127.0.0.1:9/bench"

    static var media: MediaInformation {
        var metadata = CastMetadata(title: "Big Buck Bunny", metadataType: .generic, images: [])
        if let image = URL(string: "\(base)/BigBuckBunny.jpg") { metadata.images = [CastImage(url: image)] }
        let subtitles = MediaTrack(trackId: 1, type: .text, subtype: .subtitles, contentId: "\(base)/BigBuckBunny.en.vtt",
                                   contentType: "text/vtt", name: "Subtitle", language: "en-US")
        return MediaInformation(contentId: "\(base)/BigBuckBunny.mp4", contentType: "video/mp4", streamType: .buffered,
                                duration: 596, metadata: metadata, tracks: [subtitles])
    }
}
