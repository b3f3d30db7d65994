import CastConversion
import CastDeviceProfiles
import CastMedia
import CastMediaMetadata
import Castor
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Resolves a web page (a video site's watch page, a page with a `<video>`) to what it plays, with yt-dlp.
///
/// A URL is the resolver's when a bounded HEAD request says it is HTML (`text/html`, XHTML), or, when the
/// server answers no content type, its path has no media extension. yt-dlp then runs as a child process
/// (its own process group, killed with castctl, within ``MediaURLContext/timeout``, its JSON capped at
/// ``YTDLPInfo/maximumBytes``): `yt-dlp -J --no-warnings --playlist-items 1:50 [-f FORMAT] -- URL`. The format
/// is chosen for the device's profile (``YTDLPFormatChoice``); the subtitles yt-dlp lists become WebVTT text
/// tracks (a language's `vtt` file; other formats are left out); a playlist becomes the assets of a queue.
///
/// When only separate video and audio formats play (or the user asks for a pair, `--format 137+140`), the asset
/// comes with the two formats as ``MediaURLResolution/conversionInputs``: castctl's conversion reads them with
/// ffmpeg (with yt-dlp's request headers) and merges them into HLS, copying what the device decodes. A format that
/// does not play as it is and has no such pair (HEVC on a device without it) is converted the same way, alone.
///
/// Limits: a single format is fetched by the Cast device itself, without the cookies or headers some sites
/// demand of yt-dlp.
public struct YTDLPResolver: MediaURLResolver {
    /// The line shown when yt-dlp is not on `PATH`.
    public static let notInstalled = "yt-dlp is not installed: apt-get install yt-dlp or pip install yt-dlp"
    /// The most subtitle tracks an asset gets.
    public static let maximumTextTracks = 32

    /// "yt-dlp".
    public var name: String { "yt-dlp" }
    /// The program (looked up on `PATH` when it has no slash).
    public var program: String
    /// How long the HEAD request deciding whether a URL is a page may take.
    public var headTimeout: Duration

    /// Creates the resolver.
    public init(program: String = "yt-dlp", headTimeout: Duration = .seconds(10)) {
        self.program = program
        self.headTimeout = headTimeout
    }

    /// What `url` plays, or `nil` when it is not a page (media, or a server that cannot be reached).
    public func resolve(_ url: URL, in context: MediaURLContext) async throws(CastctlError) -> MediaURLResolution? {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else { return nil }
        let head = await Self.head(url, timeout: min(headTimeout, context.timeout))
        guard Self.isPage(url: url, status: head?.status, contentType: head?.contentType) else { return nil }
        return try await resolvePage(url, in: context)
    }

    /// What a URL already known to be a page plays: yt-dlp's report, a format chosen for the profile.
    /// - Throws: ``CastctlError``: `.toolMissing` (with ``notInstalled``), `.noMedia`, `.noPlayableFormat`, `.resolveFailed`.
    public func resolvePage(_ url: URL, in context: MediaURLContext) async throws(CastctlError) -> MediaURLResolution {
        context.progress("\(url.host ?? "the URL") is a web page; asking yt-dlp what it plays")
        let arguments = Self.arguments(for: url, format: context.format)
        let result: ToolRun.Result
        do {
            result = try await ToolRun.run(program, arguments, timeout: context.timeout, outputLimit: YTDLPInfo.maximumBytes)
        } catch {
            switch error {
            case .missing: throw CastctlError(code: .toolMissing, message: Self.notInstalled)
            case .notStarted(let why): throw CastctlError(code: .resolveFailed, message: why)
            case .timedOut: throw CastctlError(code: .resolveFailed, message: "yt-dlp took longer than \(context.timeout) on \(url); it was stopped")
            case .tooMuchOutput:
                throw CastctlError(code: .resolveFailed, message: "yt-dlp's report on \(url) is larger than \(YTDLPInfo.maximumBytes >> 20) MiB")
            case .cancelled: throw CastctlError(code: .resolveFailed, message: "cancelled")
            }
        }
        guard result.status == 0 else { throw Self.failure(result, url: url) }
        let info: YTDLPInfo
        do {
            info = try YTDLPInfo(json: result.output)
        } catch {
            throw CastctlError(code: .resolveFailed, message: error.message, cause: error)
        }
        let profile = await context.profile()
        return try Self.resolution(of: info, profile: profile, userFormat: context.format != nil, progress: context.progress)
    }

    /// yt-dlp's arguments for a URL.
    public static func arguments(for url: URL, format: String?) -> [String] {
        ["-J", "--no-warnings", "--no-progress", "--playlist-items", "1:\(YTDLPInfo.maximumEntries)", "--socket-timeout", "20"]
            + (format.map { ["-f", $0] } ?? []) + ["--", url.absoluteString]
    }

    /// Whether a URL is a page for yt-dlp: HTML by its content type; with no content type (HEAD refused or failed
    /// after connecting), a path without a media extension. No answer at all (`status` nil) is not a page.
    public static func isPage(url: URL, status: Int?, contentType: String?) -> Bool {
        guard let status else { return false }
        if (200..<300).contains(status), let contentType, !contentType.isEmpty {
            let type = contentType.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
            return type == "text/html" || type == "application/xhtml+xml"
        }
        let mediaExtensions: Set<String> = ["mp4", "m4v", "m4a", "mov", "webm", "mkv", "mka", "mp3", "ogg", "oga", "opus",
                                            "flac", "wav", "aac", "ts", "m3u8", "mpd", "jpg", "jpeg", "png", "gif", "webp", "vtt"]
        return !mediaExtensions.contains(url.pathExtension.lowercased())
    }

    /// The assets of what yt-dlp reported, for a device with `profile` (chromecast-1, the most limited, when `nil`).
    /// - Throws: ``CastctlError`` `.noMedia`, `.noPlayableFormat` (a video, or a playlist none of whose entries plays).
    public static func resolution(of info: YTDLPInfo, profile: CastDeviceProfile?, userFormat: Bool,
                                  progress: @Sendable (String) -> Void = { _ in }) throws(CastctlError) -> MediaURLResolution {
        let profile = profile ?? .chromecast1
        guard info.kind == .playlist else {
            let (asset, inputs) = try asset(of: info, profile: profile, userFormat: userFormat, progress: progress)
            return MediaURLResolution(assets: [asset], conversionInputs: inputs.map { [0: $0] } ?? [:])
        }
        var assets: [CastAsset] = []
        var conversionInputs: [Int: [MediaInput]] = [:]
        var firstError: CastctlError?
        for entry in info.entries {
            do {
                let (asset, inputs) = try asset(of: entry, profile: profile, userFormat: userFormat, progress: progress)
                if let inputs { conversionInputs[assets.count] = inputs }
                assets.append(asset)
            } catch {
                progress("skipping \(entry.title ?? entry.id ?? "an entry"): \(error.message)")
                firstError = firstError ?? error
            }
        }
        if assets.isEmpty {
            throw firstError ?? CastctlError(code: .noMedia, message: "the playlist \(info.title ?? "") has no entries yt-dlp can play")
        }
        return MediaURLResolution(assets: assets, conversionInputs: conversionInputs)
    }

    /// One video's asset (its chosen format, title, thumbnail, duration and text tracks) and, for separate video and
    /// audio formats, the two inputs the conversion merges.
    static func asset(of info: YTDLPInfo, profile: CastDeviceProfile, userFormat: Bool,
                      progress: @Sendable (String) -> Void) throws(CastctlError) -> (CastAsset, [MediaInput]?) {
        let choice: YTDLPFormatChoice
        do {
            choice = try YTDLPFormatChoice.choose(for: info, profile: profile, userFormat: userFormat)
        } catch {
            let empty = userFormat ? info.selected.isEmpty : info.formats.isEmpty
            throw CastctlError(code: empty ? .noMedia : .noPlayableFormat, message: error.message, cause: error)
        }
        let format: YTDLPInfo.Format
        var inputs: [MediaInput]?
        switch choice {
        case .single(let single):
            format = single
        case .separate(let video, let audio):
            guard let videoInput = YTDLPFormatChoice.input(for: video), let audioInput = YTDLPFormatChoice.input(for: audio) else {
                throw CastctlError(code: .noPlayableFormat, message: "ffmpeg cannot read the formats \(video.id) and \(audio.id)")
            }
            let videoFate = YTDLPFormatChoice.conversion(ofVideo: video, profile: profile) == .copied ? "copied" : "converted"
            let audioFate = YTDLPFormatChoice.conversion(ofAudio: audio, profile: profile) == .copied ? "copied" : "converted"
            progress("merging video format \(video) (\(videoFate)) and audio format \(audio) (\(audioFate)) for \(profile.displayName)")
            format = video
            inputs = [videoInput, audioInput]
        case .converted(let single):
            guard let input = YTDLPFormatChoice.input(for: single) else {
                throw CastctlError(code: .noPlayableFormat, message: "ffmpeg cannot read the format \(single.id)")
            }
            progress("\(profile.displayName) cannot play format \(single) as it is; converting it")
            format = single
            inputs = [input]
        }
        guard let url = URL(string: format.url) else {
            throw CastctlError(code: .resolveFailed, message: "yt-dlp gave a URL castctl cannot read: \(format.url.prefix(200))")
        }
        if inputs == nil { progress("playing format \(format)") }
        var metadata = CastMetadata(title: info.title, metadataType: .generic, images: [])
        if let thumbnail = info.thumbnail.flatMap(URL.init(string:)) { metadata.images = [CastImage(url: thumbnail)] }
        let configuration = CastAssetURLConfiguration(
            mimeType: inputs == nil ? YTDLPFormatChoice.mimeType(of: format) : "application/x-mpegURL", isLive: info.isLive,
            duration: info.isLive ? nil : info.duration)
        var asset = CastAsset.url(url, configuration: configuration, metadata: metadata)
        let tracks = textTracks(of: info)
        asset.tracks = tracks.isEmpty ? nil : tracks
        return (asset, inputs)
    }

    /// A WebVTT text track a language (its first `vtt` file), numbered from 1.
    public static func textTracks(of info: YTDLPInfo) -> [MediaTrack] {
        var tracks: [MediaTrack] = []
        var languages: Set<String> = []
        for subtitle in info.subtitles where subtitle.ext?.lowercased() == "vtt" && !languages.contains(subtitle.language) {
            guard tracks.count < maximumTextTracks else { break }
            languages.insert(subtitle.language)
            tracks.append(MediaTrack(trackId: tracks.count + 1, type: .text, subtype: .subtitles, contentId: subtitle.url,
                                     contentType: "text/vtt", name: subtitle.name ?? subtitle.language, language: subtitle.language))
        }
        return tracks
    }

    /// yt-dlp's failure as a typed error: "no video" pages are `.noMedia`.
    static func failure(_ result: ToolRun.Result, url: URL) -> CastctlError {
        let line = result.lastErrorLine.replacingOccurrences(of: "ERROR: ", with: "")
        let lower = line.lowercased()
        if lower.contains("unsupported url") || lower.contains("no video") || lower.contains("no media") {
            return CastctlError(code: .noMedia, message: "yt-dlp finds no video on \(url): \(line)")
        }
        return CastctlError(code: .resolveFailed, message: "yt-dlp failed on \(url) (status \(result.status))" + (line.isEmpty ? "" : ": \(line)"))
    }

    /// The status and content type of a HEAD request, or `nil` when none came (no connection, the deadline).
    static func head(_ url: URL, timeout: Duration) async -> (status: Int, contentType: String?)? {
        var request = URLRequest(url: url)
        request.httpMethod = "HEAD"
        request.timeoutInterval = max(0.5, Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18)
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = request.timeoutInterval
        configuration.timeoutIntervalForResource = request.timeoutInterval
        let session = URLSession(configuration: configuration)
        defer { session.invalidateAndCancel() }
        guard let (_, response) = try? await session.data(for: request), let http = response as? HTTPURLResponse else { return nil }
        return (http.statusCode, http.value(forHTTPHeaderField: "Content-Type"))
    }
}
