import CastJSON
import Foundation

/// What `yt-dlp -J` says about a page: its video's formats and subtitles, or a playlist's entries.
///
/// It lives beside the conversion because it describes media inputs: a format yt-dlp lists is either loaded by the
/// device as it is, or read by ffmpeg (``MediaInput``, with the format's ``Format/httpHeaders``) when the video
/// and audio come separately (``YTDLPFormatChoice``).
///
/// Pure and bounded: at most ``maximumBytes`` of JSON are read (CastJSON's strict parser, 512 levels
/// deep at most), ``maximumFormats`` formats a video, ``maximumSubtitleLanguages`` subtitle languages,
/// ``maximumEntries`` playlist entries, one level of playlist (a playlist inside a playlist is skipped),
/// URLs up to ``maximumURLLength`` characters (a longer one is left out), ``maximumHeaders`` request headers a format. Fields yt-dlp leaves `null` or out
/// are `nil`; only a document that is not a JSON object, or is neither a video nor a playlist, is an error.
public struct YTDLPInfo: Sendable, Hashable {
    /// The most JSON bytes read (a video's report is tens of KiB to about 1 MiB; a playlist's, one per entry).
    public static let maximumBytes = 64 << 20
    /// The most formats kept of one video.
    public static let maximumFormats = 1_000
    /// The most subtitle languages kept of one video.
    public static let maximumSubtitleLanguages = 64
    /// The most playlist entries kept.
    public static let maximumEntries = 50
    /// The longest URL kept.
    public static let maximumURLLength = 16 * 1024
    /// The most HTTP request headers kept of one format (each name and value at most 4 KiB).
    public static let maximumHeaders = 32

    /// A video (one item) or a playlist (``entries``).
    public enum Kind: Sendable, Hashable {
        /// One video (`_type` `video`, or no `_type`).
        case video
        /// A playlist (`_type` `playlist` or `multi_video`).
        case playlist
    }

    /// One way yt-dlp can fetch the video: a URL with its container and codecs.
    public struct Format: Sendable, Hashable, CustomStringConvertible {
        /// yt-dlp's `format_id` (what `--format` takes).
        public var id: String
        /// Where the bytes are.
        public var url: String
        /// The file extension (`mp4`, `webm`, `m4a`).
        public var ext: String?
        /// How yt-dlp fetches it (`https`, `m3u8_native`, `http_dash_segments`).
        public var transport: String?
        /// The video codec as an RFC 6381 string (`avc1.64001F`), `none` for no video, `nil` when unknown.
        public var videoCodec: String?
        /// The audio codec (`mp4a.40.2`, `opus`), `none` for no audio, `nil` when unknown.
        public var audioCodec: String?
        /// The picture's width, when known.
        public var width: Int?
        /// The picture's height, when known.
        public var height: Int?
        /// Frames per second, when known.
        public var frameRate: Double?
        /// The total bit rate in kbit/s, when known.
        public var bitrate: Double?
        /// `video_ext` / `audio_ext` of yt-dlp: `none` says the stream is absent.
        public var videoExt: String?
        /// See ``videoExt``.
        public var audioExt: String?
        /// The manifest the format is a representation of (`manifest_url`: a DASH MPD, an HLS master), when any.
        public var manifestURL: String?
        /// The HTTP request headers yt-dlp would fetch it with (`http_headers`: `User-Agent`, `Referer`…).
        public var httpHeaders: [String: String]

        /// Creates a format.
        public init(id: String, url: String, ext: String? = nil, transport: String? = nil, videoCodec: String? = nil,
                    audioCodec: String? = nil, width: Int? = nil, height: Int? = nil, frameRate: Double? = nil,
                    bitrate: Double? = nil, videoExt: String? = nil, audioExt: String? = nil, manifestURL: String? = nil,
                    httpHeaders: [String: String] = [:]) {
            self.id = id
            self.url = url
            self.ext = ext
            self.transport = transport
            self.videoCodec = videoCodec
            self.audioCodec = audioCodec
            self.width = width
            self.height = height
            self.frameRate = frameRate
            self.bitrate = bitrate
            self.videoExt = videoExt
            self.audioExt = audioExt
            self.manifestURL = manifestURL
            self.httpHeaders = httpHeaders
        }

        /// Whether it holds video: `false` when yt-dlp says `none`, `nil` when it cannot tell. (`video_ext` counts only
        /// when the audio codec is known: with neither codec known, as for a page's `<video src>`, yt-dlp writes
        /// `audio_ext: none` without knowing.)
        public var hasVideo: Bool? {
            if let videoCodec { return videoCodec != "none" }
            if audioCodec != nil, let videoExt { return videoExt != "none" }
            return nil
        }

        /// Whether it holds audio: `false` when yt-dlp says `none`, `nil` when it cannot tell (see ``hasVideo``).
        public var hasAudio: Bool? {
            if let audioCodec { return audioCodec != "none" }
            if videoCodec != nil, let audioExt { return audioExt != "none" }
            return nil
        }

        /// `137 mp4 avc1.640028 1920x1080` (id, container, codecs, size).
        public var description: String {
            var parts = [id]
            if let ext { parts.append(ext) }
            if let videoCodec, videoCodec != "none" { parts.append(videoCodec) }
            if let audioCodec, audioCodec != "none" { parts.append(audioCodec) }
            if let width, let height { parts.append("\(width)x\(height)") }
            if hasVideo == false { parts.append("audio only") }
            if hasAudio == false { parts.append("video only") }
            return parts.joined(separator: " ")
        }
    }

    /// A subtitle file yt-dlp lists for one language.
    public struct Subtitle: Sendable, Hashable {
        /// The language key (`en`, `pt-BR`).
        public var language: String
        /// Where the file is.
        public var url: String
        /// Its format (`vtt`, `srt`, `ttml`, `json3`).
        public var ext: String?
        /// The label yt-dlp gives (`English`), when any.
        public var name: String?

        /// Creates a subtitle.
        public init(language: String, url: String, ext: String? = nil, name: String? = nil) {
            self.language = language
            self.url = url
            self.ext = ext
            self.name = name
        }
    }

    /// A video or a playlist.
    public var kind: Kind
    /// yt-dlp's `id`.
    public var id: String?
    /// The title.
    public var title: String?
    /// The page it came from (`webpage_url`).
    public var pageURL: String?
    /// Seconds, when known.
    public var duration: Double?
    /// A thumbnail image's URL (`thumbnail`).
    public var thumbnail: String?
    /// Whether the stream is live (`is_live`).
    public var isLive: Bool
    /// Every format yt-dlp found, in its order (worst first).
    public var formats: [Format]
    /// The formats yt-dlp selected (`requested_formats` when it would merge video and audio, else the top-level
    /// format): with `-f`, what the user asked for.
    public var selected: [Format]
    /// The subtitles, one a language and format, by language.
    public var subtitles: [Subtitle]
    /// A playlist's videos (empty for a video).
    public var entries: [YTDLPInfo]

    /// Reads yt-dlp's JSON (`-J`).
    /// - Throws: ``ConversionError``: ``ConversionError/Code/tooLarge`` for more than ``maximumBytes``;
    ///   ``ConversionError/Code/malformedReport`` for text that is not JSON, or JSON that is not a video or
    ///   playlist object.
    public init(json bytes: some Collection<UInt8>) throws(ConversionError) {
        guard bytes.count <= Self.maximumBytes else {
            throw ConversionError(code: .tooLarge, message: "yt-dlp's report is larger than \(Self.maximumBytes >> 20) MiB")
        }
        let value: JSONValue
        do {
            value = try JSONValue(parsing: Data(bytes))
        } catch {
            throw ConversionError(code: .malformedReport, message: "yt-dlp's report is not JSON: \(error)", cause: error)
        }
        guard value.objectValue != nil else { throw ConversionError(code: .malformedReport, message: "yt-dlp's report is not a JSON object") }
        try self.init(value: value, nested: false)
    }

    private init(value: JSONValue, nested: Bool) throws(ConversionError) {
        let type = value["_type"]?.stringValue ?? "video"
        switch type {
        case "video": kind = .video
        case "playlist", "multi_video": kind = .playlist
        default: throw ConversionError(code: .malformedReport, message: "yt-dlp reports a \(type.prefix(40)), not a video or playlist")
        }
        id = Self.text(value["id"])
        title = Self.text(value["title"])
        pageURL = Self.url(value["webpage_url"])
        duration = value["duration"]?.doubleValue.flatMap { $0.isFinite && $0 >= 0 ? $0 : nil }
        thumbnail = Self.url(value["thumbnail"])
        isLive = value["is_live"]?.boolValue ?? false
        formats = (value["formats"]?.arrayValue ?? []).prefix(Self.maximumFormats).compactMap(Self.format)
        if let requested = value["requested_formats"]?.arrayValue, !requested.isEmpty {
            selected = requested.prefix(4).compactMap(Self.format)
        } else {
            selected = Self.format(value).map { [$0] } ?? []
        }
        subtitles = Self.subtitles(value["subtitles"])
        entries = []
        if kind == .playlist, !nested {
            for entry in (value["entries"]?.arrayValue ?? []) where entries.count < Self.maximumEntries {
                guard entry.objectValue != nil, let info = try? YTDLPInfo(value: entry, nested: true), info.kind == .video else { continue }
                entries.append(info)
            }
        }
    }

    private static func format(_ value: JSONValue) -> Format? {
        guard let url = url(value["url"]) else { return nil }
        let id = text(value["format_id"]) ?? "?"
        func number(_ key: String) -> Double? { value[key]?.doubleValue.flatMap { $0.isFinite && $0 >= 0 ? $0 : nil } }
        func count(_ key: String) -> Int? { number(key).flatMap { $0 <= 100_000 ? Int($0) : nil } }
        return Format(
            id: id, url: url, ext: text(value["ext"]), transport: text(value["protocol"]), videoCodec: text(value["vcodec"]),
            audioCodec: text(value["acodec"]), width: count("width"), height: count("height"), frameRate: number("fps"),
            bitrate: number("tbr"), videoExt: text(value["video_ext"]), audioExt: text(value["audio_ext"]),
            manifestURL: Self.url(value["manifest_url"]), httpHeaders: headers(value["http_headers"]))
    }

    /// A format's `http_headers`: string values only, at most ``maximumHeaders``, names and values up to 4 KiB.
    private static func headers(_ value: JSONValue?) -> [String: String] {
        guard let object = value?.objectValue else { return [:] }
        var headers: [String: String] = [:]
        for name in object.keys.sorted() where name.utf8.count <= 4096 {
            guard headers.count < maximumHeaders else { break }
            guard let text = object[name]?.stringValue, text.utf8.count <= 4096 else { continue }
            headers[name] = text
        }
        return headers
    }

    private static func subtitles(_ value: JSONValue?) -> [Subtitle] {
        guard let languages = value?.objectValue else { return [] }
        var result: [Subtitle] = []
        for language in languages.keys.sorted().prefix(maximumSubtitleLanguages) where language.utf8.count <= 64 {
            for file in (languages[language]?.arrayValue ?? []).prefix(16) {
                guard let url = url(file["url"]) else { continue }
                result.append(Subtitle(language: language, url: url, ext: text(file["ext"]), name: text(file["name"])))
            }
        }
        return result
    }

    /// A string field, cut to 1 KiB (titles, ids, codec names).
    private static func text(_ value: JSONValue?) -> String? {
        guard let string = value?.stringValue, !string.isEmpty else { return nil }
        return string.utf8.count <= 1024 ? string : String(string.prefix(1024))
    }

    /// An http(s) URL field, or `nil` (another scheme, too long).
    private static func url(_ value: JSONValue?) -> String? {
        guard let string = value?.stringValue, string.utf8.count <= maximumURLLength else { return nil }
        let lower = string.prefix(8).lowercased()
        return lower.hasPrefix("http://") || lower.hasPrefix("https://") ? string : nil
    }
}
