import Testing
@testable import CastMediaServer

@Suite("Playlists")
struct PlaylistTests {
    @Test func extendedM3U() throws {
        let text = """
            #EXTM3U
            #EXTINF:123,Artist - First Song
            first.mp3
            #EXTINF:-1 tvg-id="x",Live Radio
            http://radio.example/stream
            # a comment

            sub/../second.flac
            /abs/third.ogg
            file:///music/My%20Song.mp3
            #EXTINF:5,
            ../up.mp3
            """
        let entries = try Playlist.parseM3U(text, baseDirectory: "/home/me/lists")
        #expect(entries == [
            PlaylistEntry(location: .file("/home/me/lists/first.mp3"), title: "Artist - First Song", durationSeconds: 123),
            PlaylistEntry(location: .url("http://radio.example/stream"), title: "Live Radio"),
            PlaylistEntry(location: .file("/home/me/lists/second.flac")),
            PlaylistEntry(location: .file("/abs/third.ogg")),
            PlaylistEntry(location: .file("/music/My Song.mp3")),
            PlaylistEntry(location: .file("/home/me/up.mp3"), durationSeconds: 5),
        ])
    }

    @Test func plainM3UWithCRLF() throws {
        let entries = try Playlist.parseM3U("a.mp3\r\nb.mp3\r\n", baseDirectory: "/x")
        #expect(entries.map(\.location) == [.file("/x/a.mp3"), .file("/x/b.mp3")])
    }

    @Test func hlsPlaylistsAreRefused() {
        #expect { try Playlist.parseM3U("#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXTINF:10,\nseg1.ts\n", baseDirectory: "/") } throws: {
            ($0 as? MediaServerError)?.code == .streamingPlaylist
        }
        #expect { try Playlist.parseM3U("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1\nlow.m3u8\n", baseDirectory: "/") } throws: {
            ($0 as? MediaServerError)?.code == .streamingPlaylist
        }
    }

    @Test func pls() throws {
        let text = """
            [playlist]
            NumberOfEntries=3
            File2=http://example.com/two.mp3
            Title2=Two
            File1=one.mp3
            Title1=One
            Length1=60
            Length2=-1
            title3=orphan title
            file10=ten.mp3
            Version=2
            """
        let entries = try Playlist.parsePLS(text, baseDirectory: "/p")
        #expect(entries == [
            PlaylistEntry(location: .file("/p/one.mp3"), title: "One", durationSeconds: 60),
            PlaylistEntry(location: .url("http://example.com/two.mp3"), title: "Two"),
            PlaylistEntry(location: .file("/p/ten.mp3")),
        ])
        #expect { try Playlist.parsePLS("File1=a.mp3\n", baseDirectory: "/") } throws: {
            ($0 as? MediaServerError)?.code == .malformedPlaylist
        }
    }

    @Test func naturalOrder() {
        let names = ["ep10.mkv", "Ep2.mkv", "ep1.mkv", "ep02.mkv", "b.mp3", "A.mp3", "track 9.mp3", "track 10.mp3", "10.mp3", "9.mp3"]
        #expect(names.sorted(by: Playlist.naturalOrder) ==
                ["9.mp3", "10.mp3", "A.mp3", "b.mp3", "ep1.mkv", "Ep2.mkv", "ep02.mkv", "ep10.mkv", "track 9.mp3", "track 10.mp3"])
    }

    @Test func directoryAndFiles() throws {
        let directory = try TemporaryDirectory()
        for name in ["ep10.mp4", "ep2.mp4", "ep1.mp4", ".hidden.mp4", "notes.txt", "cover.jpg", "subs.srt"] {
            try directory.write(name, [0])
        }
        let list = try directory.write("list.m3u", text: "#EXTM3U\n#EXTINF:1,Two\nep2.mp4\n")
        let pls = try directory.write("list.pls", text: "[playlist]\nFile1=ep1.mp4\n")
        #expect(try Playlist.mediaFiles(inDirectory: directory.path) ==
                ["cover.jpg", "ep1.mp4", "ep2.mp4", "ep10.mp4"].map { directory.path + "/" + $0 })
        #expect(try Playlist.entries(at: directory.path).count == 4)
        #expect(try Playlist.entries(at: list) == [PlaylistEntry(location: .file(directory.path + "/ep2.mp4"), title: "Two", durationSeconds: 1)])
        #expect(try Playlist.entries(at: pls).map(\.location) == [.file(directory.path + "/ep1.mp4")])
        #expect { try Playlist.entries(at: directory.path + "/missing.m3u") } throws: { ($0 as? MediaServerError)?.code == .fileNotFound }
    }

    @Test func latin1Playlist() throws {
        let entries = try Playlist.parseM3U(TextDecoding.decode(Array("#EXTINF:1,Caf".utf8) + [0xE9, 0x0A] + Array("x.mp3".utf8)),
                                            baseDirectory: "/")
        #expect(entries.first?.title == "Café")
    }

    /// Found by FuzzPlaylist (issue 22): `file://` with no path, or only a host, gave the relative location `.`
    /// (the current directory). A file URL's path is absolute: with none, it is the root.
    @Test func fileURLWithoutAPathIsTheRoot() throws {
        let found: [UInt8] = [0x0A, 0x0A, 0x00, 0x0D] + Array("file://".utf8)  // minimized to `file://`
        let entries = try Playlist.parseM3U(TextDecoding.decode(found), baseDirectory: "/media/fuzz")
        #expect(entries.map(\.location) == [.file("/media/fuzz/\u{0}"), .file("/")])
        #expect(try Playlist.parseM3U("file://", baseDirectory: "/media/fuzz").map(\.location) == [.file("/")])
        let more = try Playlist.parseM3U("file://host\nfile://host/a/../b.mp3\nfile://./x\nFILE://", baseDirectory: "/m")
        #expect(more.map(\.location) == [.file("/"), .file("/b.mp3"), .file("/x"), .file("/")])
    }

    /// Found by FuzzPlaylist (issue 22): `#EXTINF:1e400` gave an infinite duration (`Double("1e400")` is +∞), which
    /// no receiver can use. A duration that is not finite and positive is unknown, in M3U and in PLS.
    @Test func nonFiniteDurationsAreUnknown() throws {
        let m3u = try Playlist.parseM3U("#EXTINF:1e400,A\na.mp3\n#EXTINF:inf,B\nb.mp3\n#EXTINF:nan,C\nc.mp3\n#EXTINF:2.5,D\nd.mp3", baseDirectory: "/")
        #expect(m3u.map(\.durationSeconds) == [nil, nil, nil, 2.5])
        let pls = try Playlist.parsePLS("[playlist]\nFile1=a.mp3\nLength1=1e400\nFile2=b.mp3\nLength2=infinity\nFile3=c.mp3\nLength3=7", baseDirectory: "/")
        #expect(pls.map(\.durationSeconds) == [nil, nil, 7])
    }
}
