import Foundation

/// Serves the codec fixtures over HTTP on loopback like a media server: byte ranges (206 with
/// `Content-Range`, `Accept-Ranges: bytes`), the media type of each extension, CORS for any origin.
/// Under `/norange/` it serves like a server without ranges: the whole file with a 200 and no
/// `Accept-Ranges`, whatever the request's `Range`.
enum FixtureServer {
    static func start(root: URL) async throws -> ScriptedHTTPServer {
        try await ScriptedHTTPServer.start(heads: { target, head in reply(target: target, head: head, root: root) })
    }

    static let types: [String: String] = [
        "mp4": "video/mp4", "m4a": "audio/mp4", "m4s": "video/iso.segment", "mkv": "video/x-matroska", "webm": "video/webm",
        "ts": "video/mp2t", "avi": "video/x-msvideo", "mp3": "audio/mpeg", "mp2": "audio/mpeg", "aac": "audio/aac",
        "flac": "audio/flac", "opus": "audio/ogg", "ogg": "audio/ogg", "oga": "audio/ogg", "ogv": "video/ogg", "wav": "audio/wav",
        "m3u8": "application/vnd.apple.mpegurl", "mpd": "application/dash+xml",
    ]

    static func contentType(_ path: String) -> String {
        types[(path as NSString).pathExtension.lowercased()] ?? "application/octet-stream"
    }

    static func reply(target: String, head: String, root: URL) -> ScriptedHTTPServer.Reply {
        var path = String(target.split(separator: "?").first ?? "")
        let ranges = !path.hasPrefix("/norange/")
        if !ranges { path.removeFirst("/norange".count) }
        guard !path.contains(".."), let data = try? Data(contentsOf: root.appendingPathComponent(String(path.dropFirst()))) else {
            return ScriptedHTTPServer.response("404 Not Found", [("Content-Type", "text/plain")], Array("no such fixture".utf8))
        }
        let bytes = Array(data)
        var headers = [("Content-Type", contentType(path)), ("Access-Control-Allow-Origin", "*")]
        guard ranges, let range = requestedRange(head), range.lowerBound < bytes.count else {
            return ScriptedHTTPServer.response("200 OK", headers, bytes)
        }
        let end = min(range.upperBound, bytes.count - 1)
        headers += [("Accept-Ranges", "bytes"), ("Content-Range", "bytes \(range.lowerBound)-\(end)/\(bytes.count)")]
        return ScriptedHTTPServer.response("206 Partial Content", headers, Array(bytes[range.lowerBound...end]))
    }

    /// The `Range: bytes=a-b` of a request head.
    static func requestedRange(_ head: String) -> ClosedRange<Int>? {
        for line in head.split(separator: "\r\n") where line.lowercased().hasPrefix("range: bytes=") {
            let spec = line.dropFirst("range: bytes=".count).split(separator: "-", omittingEmptySubsequences: false)
            guard spec.count == 2, let start = Int(spec[0]) else { return nil }
            let end = Int(spec[1]) ?? Int.max - 1
            return end >= start ? start...end : nil
        }
        return nil
    }
}
