import Testing
@testable import CastMediaServer

@Suite("Subtitle discovery")
struct SubtitleDiscoveryTests {
    @Test func findsSiblingsWithLanguages() {
        let names = ["movie.mkv", "movie.srt", "movie.en.srt", "movie.pt-BR.vtt", "movie.fr_ca.SRT", "movie2.srt",
                     "movie.en.txt", "movies.srt", "other.srt", "movie.forced.srt", "movie.en.forced.srt", "movie.nfo"]
        let found = SubtitleDiscovery.matches(videoFileName: "movie.mkv", candidates: names, directory: "/v")
        #expect(found.map(\.path) == ["/v/movie.srt", "/v/movie.en.srt", "/v/movie.en.forced.srt", "/v/movie.fr_ca.SRT",
                                      "/v/movie.pt-BR.vtt", "/v/movie.forced.srt"])
        #expect(found.map(\.language) == [nil, "en", "en", "fr-CA", "pt-BR", nil])
        #expect(found.map(\.label) == [nil, nil, "forced", nil, nil, "forced"])
        #expect(found.map(\.format) == [.srt, .srt, .srt, .srt, .webVTT, .srt])
    }

    @Test func videoNameWithDots() {
        let found = SubtitleDiscovery.matches(
            videoFileName: "The.Show.S01E02.mp4", candidates: ["The.Show.S01E02.de.srt", "The.Show.S01E03.de.srt"], directory: ".")
        #expect(found == [SubtitleFile(path: "The.Show.S01E02.de.srt", language: "de", format: .srt)])
    }

    @Test func languageTags() {
        #expect(SubtitleDiscovery.languageTag("en") == "en")
        #expect(SubtitleDiscovery.languageTag("EN") == "en")
        #expect(SubtitleDiscovery.languageTag("pt-br") == "pt-BR")
        #expect(SubtitleDiscovery.languageTag("zh-Hant") == "zh-Hant")
        #expect(SubtitleDiscovery.languageTag("forced") == nil)
        #expect(SubtitleDiscovery.languageTag("e") == nil)
        #expect(SubtitleDiscovery.languageTag("en-") == nil)
    }

    @Test func scansTheDirectory() throws {
        let directory = try TemporaryDirectory()
        let video = try directory.write("clip.mp4", [0])
        try directory.write("clip.en.srt", text: "x")
        try directory.write("clip.vtt", text: "WEBVTT")
        try directory.write("clip2.srt", text: "x")
        let found = try SubtitleDiscovery.subtitles(forVideoAt: video)
        #expect(found.map(\.path) == [directory.path + "/clip.vtt", directory.path + "/clip.en.srt"])
        #expect(throws: MediaServerError.self) { try SubtitleDiscovery.subtitles(forVideoAt: directory.path + "/nope/clip.mp4") }
    }
}
