import ArgumentParser
import CastChannels
import CastJSON
import CastMedia
import CastMediaMetadata
import Foundation

extension DeviceOptions {
    /// Connects, attaches the media channel to the running media app (launching the Default
    /// Media Receiver first when `launchIfNeeded` and none runs), fetches the media status and
    /// runs `body`.
    func withMedia<T>(launchIfNeeded: Bool = false, _ body: (CastConnection, CastMediaChannel) async throws -> T) async throws -> T {
        try await withConnection { connection, status in
            let media = CastMediaChannel(timeout: requestTimeout)
            try await connection.add(media)
            if !status.applications.contains(where: { $0.supports(.media) }) {
                guard launchIfNeeded else {
                    throw CastChannelError(code: .notConnected, message: "No media app is running on the device (try `castctl load`)")
                }
                _ = try await connection.receiver.launch(appId: CastAppID.defaultMediaReceiver)
            }
            _ = try await connection.waitUntilConnected(media, timeout: requestTimeout)
            _ = try await media.getStatus()
            return try await body(connection, media)
        }
    }
}

extension MediaStatus {
    /// The status as castctl prints it in JSON.
    var json: JSONValue { (try? JSONValue(encoding: self)) ?? .null }

    /// One line of text.
    var summary: String {
        var text = "\(playerState.rawValue)"
        if let idleReason { text += " (\(idleReason.rawValue))" }
        text += " at \(Self.clock(currentTime))"
        if let duration = media?.duration { text += " / \(Self.clock(duration))" }
        if playbackRate != 1 { text += " ×\(playbackRate)" }
        if let title = media?.metadata?.title { text += " — \(title)" }
        if let item = currentItemId { text += " [item \(item)]" }
        if let tracks = activeTrackIds, !tracks.isEmpty { text += " tracks \(tracks.map(String.init).joined(separator: ","))" }
        if let volume, volume.muted == true { text += " (stream muted)" }
        return text
    }

    static func clock(_ seconds: Double) -> String {
        let total = Int(seconds.rounded(.down))
        return String(format: "%d:%02d:%02d", total / 3600, total / 60 % 60, total % 60)
    }
}

extension Output {
    /// Prints a media status (or "no media session").
    static func print(_ status: MediaStatus?, json: Bool) {
        if let status {
            print(status.json, text: status.summary, json: json)
        } else {
            print(["status": .null], text: "no media session", json: json)
        }
    }
}

/// What kind of media each URL is (shared by `load`, `queue load` and `queue insert`).
struct MediaTypeOptions: ParsableArguments {
    @Option(help: "The MIME type; guessed from each URL when omitted.") var contentType: String?
    @Option(help: "BUFFERED, LIVE or NONE.") var streamType = "BUFFERED"

    func validate() throws {
        guard ["BUFFERED", "LIVE", "NONE"].contains(streamType.uppercased()) else {
            throw ValidationError("--stream-type must be BUFFERED, LIVE or NONE, not \(streamType)")
        }
        if let contentType, !contentType.contains("/") {
            throw ValidationError("--content-type must be a MIME type such as video/mp4, not \(contentType)")
        }
    }

    /// The media information for `url`, titled `title` (the URL's last path component when `nil`).
    func media(url: String, title: String? = nil, tracks: [MediaTrack]? = nil) -> MediaInformation {
        let metadata = CastMetadata(title: title ?? url.split(separator: "/").last.map(String.init), images: [])
        return MediaInformation(
            contentId: url, contentType: contentType ?? LoadOptions.guessContentType(url),
            streamType: StreamType(rawValue: streamType.uppercased()), metadata: metadata, tracks: tracks)
    }
}

/// What to load: a URL with optional metadata and a subtitle track.
struct LoadOptions: ParsableArguments {
    @Option(help: "The title shown on the receiver.") var title: String?
    @Option(help: "An artwork image URL.") var image: String?
    @Option(help: "A WebVTT subtitle URL, added as text track 1.") var subtitles: String?
    @Option(help: "The subtitle language (BCP 47).") var subtitlesLanguage = "en"
    @OptionGroup var type: MediaTypeOptions
    @Option(help: "Where to start, in seconds.") var start: Double?

    func media(url: String) -> MediaInformation {
        var tracks: [MediaTrack]?
        if let subtitles {
            tracks = [MediaTrack(trackId: 1, type: .text, subtype: .subtitles, contentId: subtitles,
                                 contentType: "text/vtt", name: subtitlesLanguage, language: subtitlesLanguage)]
        }
        var media = type.media(url: url, title: title, tracks: tracks)
        if let image, let imageURL = URL(string: image) { media.metadata?.images = [CastImage(url: imageURL)] }
        return media
    }

    static func guessContentType(_ url: String) -> String {
        let path = url.split(separator: "?").first.map(String.init)?.lowercased() ?? ""
        let table: [(String, String)] = [
            (".mp4", "video/mp4"), (".m4v", "video/mp4"), (".webm", "video/webm"), (".mkv", "video/x-matroska"),
            (".m3u8", "application/x-mpegURL"), (".mpd", "application/dash+xml"), (".mp3", "audio/mpeg"),
            (".m4a", "audio/mp4"), (".aac", "audio/aac"), (".flac", "audio/flac"), (".ogg", "audio/ogg"),
            (".wav", "audio/wav"), (".jpg", "image/jpeg"), (".jpeg", "image/jpeg"), (".png", "image/png"),
        ]
        return table.first { path.hasSuffix($0.0) }?.1 ?? "video/mp4"
    }
}
