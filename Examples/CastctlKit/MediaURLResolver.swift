import CastConversion
import CastDeviceProfiles
import Castor
import Foundation

/// Turns a URL that is not media itself (a web page, a playlist page) into what to play: the slot
/// through which `castctl cast URL` will ask yt-dlp (issue 44's "any page's video") or another
/// resolver, without the cast command knowing any of them.
///
/// `castctl cast` asks the resolvers of ``MediaURLResolvers/standard`` in order; the first that
/// answers with a resolution wins; when none does, the URL is loaded as media, as before. A resolver
/// decides from what it can learn cheaply (a HEAD request's content type, the host) whether the URL
/// is its own, and returns `nil` quickly when not.
///
/// Implementation requirements: bounded (every request and child process within ``MediaURLContext/timeout``),
/// cancellable, and silent unless it resolves (progress goes through ``MediaURLContext/progress``).
public protocol MediaURLResolver: Sendable {
    /// A short name for messages ("yt-dlp").
    var name: String { get }
    /// What `url` plays, or `nil` when it is not this resolver's to resolve.
    /// - Throws: ``CastctlError`` when the URL is this resolver's but cannot be resolved (the message
    ///   says why, in one line: "yt-dlp is not installed", "no format the device plays").
    func resolve(_ url: URL, in context: MediaURLContext) async throws(CastctlError) -> MediaURLResolution?
}

/// What a resolver is told about the cast it resolves for.
public struct MediaURLContext: Sendable {
    /// How long resolving may take.
    public var timeout: Duration
    /// The format the user asked for (`--format`), if any.
    public var format: String?
    /// The media profile of the device the cast is for (what it decodes), `nil` when unknown; asked only by a
    /// resolver that claims the URL (finding it may cost a request to the device).
    public var profile: @Sendable () async -> CastDeviceProfile?
    /// Reports a step that takes more than a second (standard error, in castctl).
    public var progress: @Sendable (String) -> Void

    /// Creates a context.
    public init(timeout: Duration, format: String? = nil, profile: @escaping @Sendable () async -> CastDeviceProfile? = { nil },
                progress: @escaping @Sendable (String) -> Void = { _ in }) {
        self.timeout = timeout
        self.format = format
        self.profile = profile
        self.progress = progress
    }
}

/// What a URL resolved to: one asset (with its text tracks) or a playlist's, in order.
public struct MediaURLResolution: Sendable {
    /// The assets to queue (each with its tracks: subtitles the resolver found).
    public var assets: [CastAsset]
    /// The inputs of the assets that must go through the conversion before a device can play them (a video and an
    /// audio input, read by ffmpeg and merged into HLS), by index into ``assets``; such an asset's URL and content
    /// type are replaced by the conversion's. Empty when every asset plays as it is.
    public var conversionInputs: [Int: [MediaInput]]

    /// Creates a resolution.
    public init(assets: [CastAsset], conversionInputs: [Int: [MediaInput]] = [:]) {
        self.assets = assets
        self.conversionInputs = conversionInputs
    }
}

/// The resolvers `castctl cast` consults, in order.
public enum MediaURLResolvers {
    /// yt-dlp, for web pages (``YTDLPResolver``).
    public static let standard: [any MediaURLResolver] = [YTDLPResolver()]

    /// The first resolution of `url` by `resolvers`, or `nil` when none claims it.
    public static func resolve(_ url: URL, with resolvers: [any MediaURLResolver] = standard,
                               in context: MediaURLContext) async throws(CastctlError) -> MediaURLResolution? {
        for resolver in resolvers {
            if let resolution = try await resolver.resolve(url, in: context) { return resolution }
        }
        return nil
    }
}
