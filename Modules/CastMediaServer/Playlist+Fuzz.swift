extension CastMediaServerFuzzing {
    /// Parses arbitrary bytes as an M3U and as a PLS playlist (decoded as the server decodes files), trapping when
    /// an entry breaks an invariant: a file location is an absolute, normalized path; a URL has a scheme; a
    /// duration is finite and positive; a title is not empty. Natural ordering is checked on pairs of lines: it is
    /// irreflexive, asymmetric and total on different strings.
    public static func checkPlaylist(_ bytes: [UInt8]) {
        let text = TextDecoding.decode(bytes)
        let m3u = try? Playlist.parseM3U(text, baseDirectory: "/media/fuzz")
        let pls = try? Playlist.parsePLS(text, baseDirectory: "/media/fuzz")
        for entries in [m3u, pls].compactMap({ $0 }) {
            for entry in entries {
                switch entry.location {
                case .file(let path):
                    guard path.hasPrefix("/"), PathText.normalize(path) == path else { fatalError("file location \(path.debugDescription)") }
                case .url(let url):
                    guard url.contains(":") else { fatalError("URL location without a scheme: \(url.debugDescription)") }
                }
                if let duration = entry.durationSeconds, !(duration.isFinite && duration > 0) {
                    fatalError("duration \(duration) from \(text.debugDescription)")
                }
                if let title = entry.title, title.isEmpty { fatalError("an empty title") }
            }
        }
        let lines = TextDecoding.lines(text).prefix(8)
        for a in lines {
            guard !Playlist.naturalOrder(a, a) else { fatalError("\(a.debugDescription) orders before itself") }
            for b in lines where a != b {
                guard Playlist.naturalOrder(a, b) != Playlist.naturalOrder(b, a) else {
                    fatalError("natural order of \(a.debugDescription) and \(b.debugDescription) is not total and asymmetric")
                }
            }
        }
    }
}
