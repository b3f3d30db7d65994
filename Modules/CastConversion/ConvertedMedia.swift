/// What to load on the device for a published file: its URL and content type, its duration, and its text
/// tracks. A sender builds its LOAD from it (castctl: `MediaInformation` with `tracks`).
public struct ConvertedMedia: Sendable, Hashable {
    /// The URL the device loads: the file itself, or the HLS master playlist.
    public var url: String
    /// Its content type (`video/mp4`, `application/vnd.apple.mpegurl`…).
    public var contentType: String
    /// The source's duration in seconds (a converted stream lasts as long as the source).
    public var duration: Double?
    /// The HLS segment format, when the media is an HLS stream (the LOAD's `hlsSegmentFormat` and
    /// `hlsVideoSegmentFormat` tell a device fragmented MP4 from MPEG-TS).
    public var segmentContainer: HLSSegmentContainer?
    /// The text tracks (subtitle streams extracted as WebVTT), in file order.
    public var textTracks: [TextTrack]
    /// The plan this media follows.
    public var plan: ConversionPlan

    /// Creates a description.
    public init(url: String, contentType: String, duration: Double?, segmentContainer: HLSSegmentContainer?, textTracks: [TextTrack],
                plan: ConversionPlan) {
        self.url = url
        self.contentType = contentType
        self.duration = duration
        self.segmentContainer = segmentContainer
        self.textTracks = textTracks
        self.plan = plan
    }

    /// A subtitle stream served as a WebVTT text track.
    public struct TextTrack: Sendable, Hashable {
        /// The WebVTT URL.
        public var url: String
        /// The subtitle stream's index in the file.
        public var streamIndex: Int
        /// The language as BCP 47 (`en` for a stream tagged `eng`), or `nil` when untagged.
        public var language: String?
        /// A name for menus: the stream's title, else its language, else `Subtitles N`.
        public var name: String
        /// Whether the file marks the stream as the default one.
        public var isDefault: Bool
        /// Whether the file marks the stream as forced.
        public var isForced: Bool

        /// Creates a track.
        public init(url: String, streamIndex: Int, language: String?, name: String, isDefault: Bool, isForced: Bool) {
            self.url = url
            self.streamIndex = streamIndex
            self.language = language
            self.name = name
            self.isDefault = isDefault
            self.isForced = isForced
        }
    }
}

/// What a conversion reports while it runs.
public enum ConversionEvent: Sendable, Hashable {
    /// ffmpeg started making segments from `segment` on (`restart`: a request beyond or behind the previous run).
    case runStarted(segment: Int, restart: Bool)
    /// A segment is made and can be served.
    case segmentReady(Int, of: Int, endTime: Double)
    /// ffmpeg's progress: seconds of media made (from the start of the stream), and its speed against real time.
    case progress(outputTime: Double, speed: Double?)
    /// ffmpeg paused because the device is far behind, or resumed.
    case paused(Bool)
    /// A run failed (it is retried once).
    case runFailed(String)
    /// The text subtitle streams are extracted.
    case subtitlesReady(count: Int)
}

/// BCP 47 language tags from the ISO 639-2 codes containers use.
public enum LanguageTag {
    private static let twoLetter: [String: String] = [
        "eng": "en", "fre": "fr", "fra": "fr", "ger": "de", "deu": "de", "spa": "es", "ita": "it", "por": "pt",
        "dut": "nl", "nld": "nl", "swe": "sv", "nor": "no", "nob": "nb", "nno": "nn", "dan": "da", "fin": "fi",
        "pol": "pl", "cze": "cs", "ces": "cs", "slo": "sk", "slk": "sk", "hun": "hu", "rum": "ro", "ron": "ro",
        "gre": "el", "ell": "el", "tur": "tr", "rus": "ru", "ukr": "uk", "bul": "bg", "srp": "sr", "hrv": "hr",
        "slv": "sl", "ara": "ar", "heb": "he", "per": "fa", "fas": "fa", "hin": "hi", "ben": "bn", "tha": "th",
        "vie": "vi", "ind": "id", "may": "ms", "msa": "ms", "chi": "zh", "zho": "zh", "jpn": "ja", "kor": "ko",
        "cat": "ca", "baq": "eu", "eus": "eu", "glg": "gl", "ice": "is", "isl": "is", "est": "et", "lav": "lv",
        "lit": "lt", "wel": "cy", "cym": "cy", "gle": "ga", "tam": "ta", "tel": "te", "urd": "ur",
    ]

    /// The BCP 47 tag for a container's language tag: ISO 639-2 codes become their ISO 639-1 letters when there
    /// are any; tags already in BCP 47 (`en`, `pt-BR`) are kept; `und`, empty or malformed tags give `nil`.
    public static func bcp47(_ tag: String?) -> String? {
        guard let tag = tag?.trimmingCharacters(in: .whitespaces), !tag.isEmpty, tag.utf8.count <= 35 else { return nil }
        let lower = tag.lowercased()
        if lower == "und" || lower == "zxx" || lower == "mis" || lower == "mul" { return nil }
        if let two = twoLetter[lower] { return two }
        guard tag.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }) else { return nil }
        return tag
    }
}

import Foundation
