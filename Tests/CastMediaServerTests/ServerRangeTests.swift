import Foundation
import Testing
@testable import CastMediaServer

/// Byte-for-byte checks with curl against real files.
@Suite("Server byte ranges with curl", .enabled(if: Curl.isAvailable, "curl is not installed (apt-get install curl)"))
struct ServerRangeTests {
    /// One case: a Range header and the expected outcome for a file of a given size.
    struct Expectation {
        var status: Int
        var ranges: [Range<Int>]  // the bytes expected, in order (one range: plain 206; several: multipart)
    }

    static func expectations(size n: Int) -> [(header: String?, expected: Expectation)] {
        let all = Expectation(status: 200, ranges: n == 0 ? [] : [0..<n])
        let unsatisfiable = Expectation(status: 416, ranges: [])
        var cases: [(String?, Expectation)] = [
            (nil, all),
            ("bytes=0-0", n > 0 ? .init(status: 206, ranges: [0..<1]) : unsatisfiable),
            ("bytes=0-", n > 0 ? .init(status: 206, ranges: [0..<n]) : unsatisfiable),
            ("bytes=-1", n > 0 ? .init(status: 206, ranges: [(n - 1)..<n]) : all),
            ("bytes=-500", n > 0 ? .init(status: 206, ranges: [max(0, n - 500)..<n]) : all),
            ("bytes=500-", n > 500 ? .init(status: 206, ranges: [500..<n]) : unsatisfiable),
            ("bytes=\(max(n - 1, 0))-\(n + 100)", n > 0 ? .init(status: 206, ranges: [(n - 1)..<n]) : unsatisfiable),
            ("bytes=\(n)-", unsatisfiable),
            ("bytes=5-2", all),
            ("items=0-5", all),
            ("bytes=abc", all),
            ("bytes=-0", unsatisfiable),
        ]
        if n >= 1000 {
            cases.append(("bytes=0-9,100-109,-10", .init(status: 206, ranges: [0..<10, 100..<110, (n - 10)..<n])))
            cases.append(("bytes=100-199,0-9", .init(status: 206, ranges: [100..<200, 0..<10])))
            cases.append(("bytes=0-99,50-149", .init(status: 206, ranges: [0..<150])))  // coalesced into one part
        }
        return cases
    }

    @Test(arguments: [0, 1, 1000, 1 << 20])
    func rangesMatchTheFileByteForByte(size: Int) async throws {
        let directory = try TemporaryDirectory()
        let content = patternBytes(count: size, seed: UInt64(size) + 1)
        let path = try directory.write("file-\(size).mp4", content)
        try await withServer { server in
            let registration = try server.register(file: path)
            for (header, expected) in Self.expectations(size: size) {
                let response = try await Curl.run((header.map { ["-H", "Range: \($0)"] } ?? []) + [registration.url])
                #expect(response.status == expected.status, "size \(size), \(header ?? "no range")")
                #expect(response.header("Accept-Ranges") == "bytes")
                #expect(response.header("Access-Control-Allow-Origin") == "*")
                switch expected.status {
                case 416:
                    #expect(response.header("Content-Range") == "bytes */\(size)")
                    #expect(response.body.isEmpty)
                case 200:
                    #expect(response.body == content, "size \(size), \(header ?? "no range")")
                    #expect(response.header("Content-Length") == String(size))
                    #expect(response.header("Content-Type") == "video/mp4")
                default:
                    if expected.ranges.count == 1 {
                        let range = expected.ranges[0]
                        #expect(response.body == Array(content[range]), "size \(size), \(header!)")
                        #expect(response.header("Content-Range") == "bytes \(range.lowerBound)-\(range.upperBound - 1)/\(size)")
                        #expect(response.header("Content-Length") == String(range.count))
                    } else {
                        try checkMultipart(response, content: content, expected: expected.ranges, size: Int64(size))
                    }
                }
            }
        }
    }

    func checkMultipart(_ response: CurlResponse, content: [UInt8], expected: [Range<Int>], size: Int64) throws {
        let type = try #require(response.header("Content-Type"))
        #expect(type.hasPrefix("multipart/byteranges; boundary="))
        let boundary = String(type.dropFirst("multipart/byteranges; boundary=".count))
        #expect(response.header("Content-Length") == String(response.body.count))
        let parts = try #require(parseMultipart(response.body, boundary: boundary))
        #expect(parts.count == expected.count)
        for (part, range) in zip(parts, expected) {
            #expect(part.headers["content-type"] == "video/mp4")
            #expect(part.headers["content-range"] == "bytes \(range.lowerBound)-\(range.upperBound - 1)/\(size)")
            #expect(part.data == Array(content[range]))
        }
    }

    @Test func fiveGiBSparseFile() async throws {
        let size: Int64 = 5 << 30
        let tail = patternBytes(count: 1000, seed: 7)
        let above4GiB = patternBytes(count: 16, seed: 11)
        let directory = try TemporaryDirectory()
        let path = try directory.sparse("big.mkv", size: size, patches: [(size - 1000, tail), (1 << 32, above4GiB)])
        try await withServer { server in
            let registration = try server.register(file: path)
            let head = try await Curl.run(["-I", registration.url])
            #expect(head.status == 200)
            #expect(head.header("Content-Length") == "5368709120")
            #expect(head.header("Content-Type") == "video/x-matroska")

            let end = try await Curl.run(["-H", "Range: bytes=\(size - 1000)-\(size - 1)", registration.url])
            #expect(end.status == 206)
            #expect(end.header("Content-Range") == "bytes 5368708120-5368709119/5368709120")
            #expect(end.body == tail)

            let suffix = try await Curl.run(["-H", "Range: bytes=-100", registration.url])
            #expect(suffix.body == Array(tail.suffix(100)))

            let open = try await Curl.run(["-H", "Range: bytes=\(size - 10)-", registration.url])
            #expect(open.body == Array(tail.suffix(10)))

            let over4GiB = try await Curl.run(["-H", "Range: bytes=4294967295-4294967312", registration.url])
            #expect(over4GiB.body == [0] + above4GiB + [0])

            let multi = try await Curl.run(["-H", "Range: bytes=0-3,4294967296-4294967311,-4", registration.url])
            let boundary = String(try #require(multi.header("Content-Type")).split(separator: "=").last!)
            let parts = try #require(parseMultipart(multi.body, boundary: boundary))
            #expect(parts.map(\.data) == [[0, 0, 0, 0], above4GiB, Array(tail.suffix(4))])
            #expect(parts.map { $0.headers["content-range"] } ==
                    ["bytes 0-3/5368709120", "bytes 4294967296-4294967311/5368709120", "bytes 5368709116-5368709119/5368709120"])

            let beyond = try await Curl.run(["-H", "Range: bytes=\(size)-", registration.url])
            #expect(beyond.status == 416)
            #expect(beyond.header("Content-Range") == "bytes */5368709120")
        }
    }

    @Test func preflightHeadAndConditionals() async throws {
        let directory = try TemporaryDirectory()
        let content = patternBytes(count: 4096)
        let path = try directory.write("clip.mp4", content)
        try await withServer { server in
            let registration = try server.register(file: path)
            let preflight = try await Curl.run([
                "-X", "OPTIONS", "-H", "Origin: https://receiver.example", "-H", "Access-Control-Request-Method: GET",
                "-H", "Access-Control-Request-Headers: range, accept-encoding, content-type", registration.url,
            ])
            #expect(preflight.status == 204)
            #expect(preflight.header("Access-Control-Allow-Origin") == "*")
            #expect(preflight.header("Access-Control-Allow-Methods") == "GET, HEAD, OPTIONS")
            let allowed = try #require(preflight.header("Access-Control-Allow-Headers"))
            for name in ["Content-Type", "Accept-Encoding", "Range"] { #expect(allowed.contains(name)) }

            let head = try await Curl.run(["-I", registration.url])
            #expect(head.status == 200)
            #expect(head.header("Content-Length") == "4096")
            #expect(head.header("Accept-Ranges") == "bytes")
            let exposed = try #require(head.header("Access-Control-Expose-Headers"))
            for name in ["Content-Length", "Content-Range", "Accept-Ranges"] { #expect(exposed.contains(name)) }
            let etag = try #require(head.header("ETag"))
            #expect(etag.hasPrefix("\"") && etag.hasSuffix("\""))
            let lastModified = try #require(head.header("Last-Modified"))
            #expect(HTTPDate.parse(lastModified) != nil)

            let matching = try await Curl.run(["-H", "Range: bytes=100-199", "-H", "If-Range: \(etag)", registration.url])
            #expect(matching.status == 206)
            #expect(matching.body == Array(content[100..<200]))
            let stale = try await Curl.run(["-H", "Range: bytes=100-199", "-H", "If-Range: \"stale\"", registration.url])
            #expect(stale.status == 200)
            #expect(stale.body == content)
            let byDate = try await Curl.run(["-H", "Range: bytes=100-199", "-H", "If-Range: \(lastModified)", registration.url])
            #expect(byDate.status == 206)

            let cached = try await Curl.run(["-H", "If-None-Match: \(etag)", registration.url])
            #expect(cached.status == 304)
            #expect(cached.body.isEmpty)
            let since = try await Curl.run(["-H", "If-Modified-Since: \(lastModified)", registration.url])
            #expect(since.status == 304)

            // Rewriting the file changes its validators: the old ETag no longer matches.
            try directory.write("clip.mp4", patternBytes(count: 5000, seed: 3))
            let changed = try await Curl.run(["-H", "Range: bytes=0-0", "-H", "If-Range: \(etag)", registration.url])
            #expect(changed.status == 200)
            #expect(changed.body == patternBytes(count: 5000, seed: 3))
        }
    }

    @Test func inMemoryDataAndSubtitles() async throws {
        let directory = try TemporaryDirectory()
        let srt = try directory.write("movie.en.srt", text: "1\r\n00:00:01,000 --> 00:00:02,000\r\n<i>Hi</i>\r\n")
        try await withServer { server in
            let vtt = try server.register(subtitles: srt)
            #expect(vtt.name == "movie.en.vtt")
            #expect(vtt.contentType == "text/vtt")
            let response = try await Curl.run([vtt.url])
            #expect(response.status == 200)
            #expect(String(decoding: response.body, as: UTF8.self) == "WEBVTT\n\n00:00:01.000 --> 00:00:02.000\n<i>Hi</i>\n")
            #expect(response.header("Content-Type") == "text/vtt")
            let ranged = try await Curl.run(["-H", "Range: bytes=0-5", vtt.url])
            #expect(ranged.status == 206)
            #expect(String(decoding: ranged.body, as: UTF8.self) == "WEBVTT")

            let blob = try server.register(data: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 1, 2, 3], name: "cover")
            #expect(blob.contentType == "image/png")
            let image = try await Curl.run(["-H", "Range: bytes=-3", blob.url])
            #expect(image.body == [1, 2, 3])
        }
    }

    @Test func keepAliveAcrossRequests() async throws {
        let directory = try TemporaryDirectory()
        let content = patternBytes(count: 3000)
        let path = try directory.write("a.mp3", content)
        try await withServer { server in
            let registration = try server.register(file: path)
            // curl reuses one connection for the same host; the last response is checked, all must succeed.
            let response = try await Curl.run(["-H", "Range: bytes=10-19", registration.url, registration.url, registration.url])
            #expect(response.status == 206)
            #expect(response.body == Array(content[10..<20]))
        }
    }
}

@Suite("Publishing media with subtitles")
struct PublishingTests {
    @Test func publishesMediaAndItsSubtitles() async throws {
        let directory = try TemporaryDirectory()
        let video = try directory.write("Holiday 2019.mp4", patternBytes(count: 100))
        try directory.write("Holiday 2019.en.srt", text: "1\n00:00:01,000 --> 00:00:02,000\nHello\n")
        try directory.write("Holiday 2019.de.vtt", text: "WEBVTT\n\n00:01.000 --> 00:02.000\nHallo\n")
        try directory.write("Holiday 2019.fr.srt", text: "not subtitles at all")
        let extra = try directory.write("elsewhere.srt", text: "1\n00:00:03,000 --> 00:00:04,000\nExtra\n")
        try await withServer { server in
            let published = try server.publish(mediaAt: video, extraSubtitles: [extra])
            #expect(published.title == "Holiday 2019")
            #expect(published.media.url.hasSuffix("/Holiday%202019.mp4"))
            #expect(published.subtitles.map(\.language) == ["de", "en", nil])
            #expect(published.subtitles.allSatisfy { $0.registration.contentType == "text/vtt" })
            #expect(published.skippedSubtitles.map(\.path) == [directory.path + "/Holiday 2019.fr.srt"])
            #expect(published.skippedSubtitles.first?.error.code == .invalidSubtitles)
            if Curl.isAvailable {
                let english = try await Curl.run([published.subtitles[1].registration.url])
                #expect(String(decoding: english.body, as: UTF8.self) == "WEBVTT\n\n00:00:01.000 --> 00:00:02.000\nHello\n")
                let media = try await Curl.run(["-H", "Range: bytes=0-9", published.media.url])
                #expect(media.body == Array(patternBytes(count: 100).prefix(10)))
            }
            #expect(server.registrations.count == 4)
        }
    }
}
