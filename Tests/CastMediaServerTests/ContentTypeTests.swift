import Testing
@testable import CastMediaServer

@Suite("Content types")
struct ContentTypeTests {
    @Test func byExtension() {
        #expect(MediaContentType.forFileName("Movie.MP4") == "video/mp4")
        #expect(MediaContentType.forFileName("/a/b/c.mkv") == "video/x-matroska")
        #expect(MediaContentType.forFileName("song.flac") == "audio/flac")
        #expect(MediaContentType.forFileName("subs.en.vtt") == "text/vtt")
        #expect(MediaContentType.forFileName("noext") == nil)
        #expect(MediaContentType.forFileName(".mp4") == nil)  // a hidden file named "mp4", not an extension
        #expect(MediaContentType.forFileName("archive.tar.gz") == nil)
        #expect(MediaContentType.isPlayableMedia(fileName: "a.webm"))
        #expect(!MediaContentType.isPlayableMedia(fileName: "a.srt"))
    }

    private func padded(_ bytes: [UInt8]) -> [UInt8] { bytes + [UInt8](repeating: 0, count: 32) }

    @Test func sniffsMP4AndQuickTime() {
        #expect(MediaContentType.sniff(padded([0, 0, 0, 0x20] + Array("ftypisom".utf8))) == "video/mp4")
        #expect(MediaContentType.sniff(padded([0, 0, 0, 0x20] + Array("ftypM4A ".utf8))) == "audio/mp4")
        #expect(MediaContentType.sniff(padded([0, 0, 0, 0x14] + Array("ftypqt  ".utf8))) == "video/quicktime")
    }

    /// An EBML header holding EBMLVersion (0x4286 = 1) and DocType.
    private func ebml(docType: String) -> [UInt8] {
        let version: [UInt8] = [0x42, 0x86, 0x81, 0x01]
        let doc: [UInt8] = [0x42, 0x82, 0x80 | UInt8(docType.utf8.count)] + Array(docType.utf8)
        let children = version + doc
        return [0x1A, 0x45, 0xDF, 0xA3, 0x80 | UInt8(children.count)] + children + [0x18, 0x53, 0x80, 0x67]
    }

    @Test func sniffsMatroskaAndWebMByDocType() {
        #expect(MediaContentType.sniff(ebml(docType: "webm")) == "video/webm")
        #expect(MediaContentType.sniff(ebml(docType: "matroska")) == "video/x-matroska")
        #expect(MediaContentType.sniff(ebml(docType: "other")) == nil)
        #expect(MediaContentType.sniff([0x1A, 0x45, 0xDF, 0xA3, 0x85, 0x42]) == nil)  // truncated header
    }

    @Test func sniffsAudio() {
        #expect(MediaContentType.sniff(padded(Array("ID3".utf8) + [4, 0, 0])) == "audio/mpeg")
        #expect(MediaContentType.sniff(padded([0xFF, 0xFB, 0x90, 0x64])) == "audio/mpeg")  // MPEG-1 layer III, 128 kbit/s
        #expect(MediaContentType.sniff(padded([0xFF, 0xF1, 0x50, 0x80, 0x02, 0x1F, 0xFC])) == "audio/aac")  // ADTS
        #expect(MediaContentType.sniff(padded([0xFF, 0xFB, 0xF0, 0x64])) == nil)  // bitrate index 1111 is invalid
        #expect(MediaContentType.sniff(padded([0xFF, 0xF9, 0x3C, 0x80, 0, 0, 0])) == nil)  // ADTS with a reserved frequency
        #expect(MediaContentType.sniff(padded(Array("fLaC".utf8))) == "audio/flac")
        #expect(MediaContentType.sniff(padded(Array("OggS".utf8))) == "audio/ogg")
        #expect(MediaContentType.sniff(padded(Array("RIFF\u{0}\u{0}\u{0}\u{0}WAVE".utf8))) == "audio/wav")
    }

    @Test func sniffsImagesAndText() {
        #expect(MediaContentType.sniff(padded([0xFF, 0xD8, 0xFF, 0xE0])) == "image/jpeg")
        #expect(MediaContentType.sniff(padded([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])) == "image/png")
        #expect(MediaContentType.sniff(Array("WEBVTT\n\n00:00.000 --> 00:01.000\nhi".utf8)) == "text/vtt")
        #expect(MediaContentType.sniff([0xEF, 0xBB, 0xBF] + Array("WEBVTT - title\n".utf8)) == "text/vtt")
        #expect(MediaContentType.sniff(Array("WEBVTT".utf8)) == "text/vtt")
        #expect(MediaContentType.sniff(Array("WEBVTTX\n".utf8)) == nil)
        #expect(MediaContentType.sniff(Array("hello world".utf8)) == nil)
        #expect(MediaContentType.sniff([]) == nil)
    }

    @Test func resolveOrder() {
        #expect(MediaContentType.resolve(fileName: "x.mp3", leadingBytes: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) == "audio/mpeg")
        #expect(MediaContentType.resolve(fileName: "x", leadingBytes: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) == "image/png")
        #expect(MediaContentType.resolve(fileName: "x", leadingBytes: [1, 2, 3]) == "application/octet-stream")
    }
}
