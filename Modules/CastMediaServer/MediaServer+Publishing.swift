/// A subtitle track published next to its media.
public struct PublishedSubtitle: Sendable, Hashable {
    /// The served WebVTT (converted when the source was SRT).
    public var registration: MediaRegistration
    /// The subtitle file it came from.
    public var sourcePath: String
    /// The language (from the file name, or as given), or `nil`.
    public var language: String?
    /// A label such as `forced`, or `nil`.
    public var label: String?
}

/// A subtitle file that could not be published, and why.
public struct SkippedSubtitle: Sendable {
    /// The subtitle file.
    public var path: String
    /// What went wrong (unreadable file, no valid cue...).
    public var error: MediaServerError
}

/// A media file and its subtitles, ready to be loaded on a receiver.
public struct PublishedMedia: Sendable {
    /// The media file's registration (its URL and content type).
    public var media: MediaRegistration
    /// A title from the file name: the name without its extension.
    public var title: String
    /// The subtitle tracks, in discovery order followed by the extra files.
    public var subtitles: [PublishedSubtitle]
    /// Subtitle files that were found or given but could not be served.
    public var skippedSubtitles: [SkippedSubtitle]
}

extension MediaServer {
    /// Publishes a media file with its subtitles: those found next to it (see ``SubtitleDiscovery``) unless
    /// `discoverSubtitles` is false, plus `extraSubtitles` (SRT files are converted to WebVTT).
    ///
    /// A subtitle file that cannot be served does not fail the call: it is listed in
    /// ``PublishedMedia/skippedSubtitles``.
    /// - Throws: ``MediaServerError`` when the media file itself cannot be registered.
    public func publish(
        mediaAt path: String, extraSubtitles: [String] = [], discoverSubtitles: Bool = true
    ) throws(MediaServerError) -> PublishedMedia {
        let media = try register(file: path)
        var candidates: [SubtitleFile] = []
        if discoverSubtitles, let found = try? SubtitleDiscovery.subtitles(forVideoAt: path) {
            candidates = found
        }
        for extra in extraSubtitles where !candidates.contains(where: { $0.path == extra }) {
            let name = PathText.lastComponent(extra)
            let language = SubtitleDiscovery.matches(
                videoFileName: PathText.lastComponent(path), candidates: [name], directory: PathText.directory(of: extra)
            ).first?.language
            candidates.append(SubtitleFile(path: extra, language: language, format: SubtitleFormat(fileName: extra) ?? .srt))
        }
        var published: [PublishedSubtitle] = []
        var skipped: [SkippedSubtitle] = []
        for candidate in candidates {
            do {
                let registration = try register(subtitles: candidate.path)
                published.append(PublishedSubtitle(
                    registration: registration, sourcePath: candidate.path, language: candidate.language, label: candidate.label))
            } catch {
                skipped.append(SkippedSubtitle(path: candidate.path, error: error))
            }
        }
        return PublishedMedia(
            media: media, title: SubtitleDiscovery.baseName(PathText.lastComponent(path)), subtitles: published,
            skippedSubtitles: skipped)
    }
}
