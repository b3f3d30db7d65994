/// Where one input of a conversion is read from: a local file, or an http(s) URL that ffprobe and ffmpeg fetch
/// themselves (with the request headers the site wants, and a deadline on every read).
///
/// A conversion has one input (a file) or two (a video-only and an audio-only source, such as the separate
/// formats a video site offers through yt-dlp); ``ProbedStream/input`` says which input a stream comes from.
///
/// ```swift
/// let video = MediaInput(url: "https://cdn.example/v.mp4", headers: ["Referer": "https://example.com/watch"])
/// let audio = MediaInput(url: "https://cdn.example/manifest.mpd", representation: "140")
/// ```
public struct MediaInput: Sendable, Hashable, CustomStringConvertible {
    /// The file path or the http(s) URL.
    public var location: String
    /// HTTP request headers for a URL (`User-Agent`, `Referer`, `Cookie`…), passed to ffmpeg as `-user_agent` and
    /// `-headers`; ignored for a file.
    public var headers: [String: String]
    /// For a manifest holding several streams of a kind (a DASH MPD's representations): the stream to read, by the
    /// `id` ffprobe reports for it (a DASH representation id). A yt-dlp format id that ends in `-ID` (`dash-ID`)
    /// names representation `ID` too. `nil`: the input's first video or audio stream.
    public var representation: String?
    /// How long one network read may stall before ffmpeg gives up (`-rw_timeout`).
    public var readTimeout: Duration

    /// The most header bytes passed (names and values together).
    public static let maximumHeaderBytes = 16 * 1024

    /// A local file.
    public init(path: String) {
        self.location = path
        self.headers = [:]
        self.representation = nil
        self.readTimeout = .seconds(20)
    }

    /// An http(s) URL.
    public init(url: String, headers: [String: String] = [:], representation: String? = nil, readTimeout: Duration = .seconds(20)) {
        self.location = url
        self.headers = headers
        self.representation = representation
        self.readTimeout = readTimeout
    }

    /// Whether it is fetched over the network (an `http://` or `https://` URL).
    public var isRemote: Bool {
        let lower = location.prefix(8).lowercased()
        return lower.hasPrefix("http://") || lower.hasPrefix("https://")
    }

    /// The local path, for a file.
    public var path: String? { isRemote ? nil : location }

    /// The location, with a URL's query left out (it often carries signatures).
    public var description: String {
        guard isRemote else { return location }
        let cut = location.firstIndex(of: "?").map { String(location[..<$0]) + "?…" } ?? location
        return representation.map { "\(cut) (representation \($0))" } ?? cut
    }

    /// The input options ffprobe and ffmpeg take before `-i` (or the input name): for a URL, the read deadline, the
    /// user agent and the other headers (CR LF separated; a header whose name is not a token or whose value holds a
    /// control character is left out; at most ``maximumHeaderBytes``); nothing for a file.
    public var inputOptions: [String] {
        guard isRemote else { return [] }
        let microseconds = max(1, Int(readTimeout.components.seconds) * 1_000_000 + Int(readTimeout.components.attoseconds / 1_000_000_000_000))
        var options = ["-rw_timeout", String(microseconds)]
        var lines = ""
        for name in headers.keys.sorted() {
            guard let value = headers[name], Self.isToken(name), Self.isFieldValue(value) else { continue }
            if name.lowercased() == "user-agent" {
                options += ["-user_agent", value]
                continue
            }
            let line = "\(name): \(value)\r\n"
            guard lines.utf8.count + line.utf8.count <= Self.maximumHeaderBytes else { break }
            lines += line
        }
        if !lines.isEmpty { options += ["-headers", lines] }
        return options
    }

    /// Whether a header name is an HTTP token (letters, digits and ``!#$%&'*+-.^_`|~``), 1 to 256 characters.
    static func isToken(_ name: String) -> Bool {
        guard !name.isEmpty, name.utf8.count <= 256 else { return false }
        return name.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }

    /// Whether a header value holds no control character (CR, LF, NUL…; a tab is allowed), so it cannot end its line.
    static func isFieldValue(_ value: String) -> Bool {
        value.utf8.allSatisfy { $0 == 0x09 || ($0 >= 0x20 && $0 != 0x7F) }
    }

    /// Whether a stream's `id` (as ffprobe reports it) is the ``representation`` asked for.
    func isRepresentation(_ identifier: String?) -> Bool {
        guard let representation else { return true }
        guard let identifier, !identifier.isEmpty else { return false }
        return identifier == representation || representation.hasSuffix("-" + identifier)
    }
}
