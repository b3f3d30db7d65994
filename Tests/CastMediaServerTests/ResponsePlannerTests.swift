import NIOHTTP1
import Testing
@_spi(Fuzzing) @testable import CastMediaServer

@Suite("Response planning")
struct ResponsePlannerTests {
    let now: Int64 = 1_795_269_600
    let resource = Representation(size: 1000, contentType: "video/mp4", entityTag: "\"abc-3e8-1\"", lastModified: 1_795_000_000)

    func request(_ method: HTTPMethod = .GET, _ headers: [(String, String)] = []) -> RequestSummary {
        RequestSummary(method: method, headers: HTTPHeaders(headers))
    }

    func plan(_ method: HTTPMethod = .GET, _ headers: [(String, String)] = []) -> ResponsePlan {
        ResponsePlanner.plan(request(method, headers), representation: resource, now: now, boundary: { "B" })
    }

    @Test func fullResponseHeaders() {
        let response = plan()
        #expect(response.status == .ok)
        #expect(response.headers["Content-Length"] == ["1000"])
        #expect(response.headers["Content-Type"] == ["video/mp4"])
        #expect(response.headers["Accept-Ranges"] == ["bytes"])
        #expect(response.headers["ETag"] == ["\"abc-3e8-1\""])
        #expect(response.headers["Last-Modified"] == [HTTPDate.format(1_795_000_000)])
        #expect(response.headers["Date"] == ["Sat, 21 Nov 2026 14:00:00 GMT"])
        #expect(response.headers["Access-Control-Allow-Origin"] == ["*"])
        let exposed = response.headers["Access-Control-Expose-Headers"].first ?? ""
        for name in ["Content-Length", "Content-Range", "Accept-Ranges"] { #expect(exposed.contains(name)) }
        #expect(response.body == [.resource(0..<1000)])
    }

    @Test func headHasHeadersButNoBodyAndIgnoresRange() {
        let response = plan(.HEAD, [("Range", "bytes=0-9")])
        #expect(response.status == .ok)
        #expect(response.headers["Content-Length"] == ["1000"])
        #expect(response.body.isEmpty)
    }

    @Test func singleRange() {
        let response = plan(.GET, [("Range", "bytes=10-19")])
        #expect(response.status == .partialContent)
        #expect(response.headers["Content-Range"] == ["bytes 10-19/1000"])
        #expect(response.headers["Content-Length"] == ["10"])
        #expect(response.body == [.resource(10..<20)])
    }

    @Test func multipleRangesAreMultipart() {
        let response = plan(.GET, [("Range", "bytes=0-1,-2")])
        #expect(response.status == .partialContent)
        #expect(response.headers["Content-Type"] == ["multipart/byteranges; boundary=B"])
        let head1 = "--B\r\nContent-Type: video/mp4\r\nContent-Range: bytes 0-1/1000\r\n\r\n"
        let head2 = "--B\r\nContent-Type: video/mp4\r\nContent-Range: bytes 998-999/1000\r\n\r\n"
        #expect(response.body == [.bytes(Array(head1.utf8)), .resource(0..<2), .bytes(Array("\r\n".utf8)),
                                  .bytes(Array(head2.utf8)), .resource(998..<1000), .bytes(Array("\r\n".utf8)),
                                  .bytes(Array("--B--\r\n".utf8))])
        let expectedLength = head1.utf8.count + 2 + 2 + head2.utf8.count + 2 + 2 + "--B--\r\n".utf8.count
        #expect(response.headers["Content-Length"] == [String(expectedLength)])
        #expect(response.headers["Content-Range"].isEmpty)
    }

    @Test func unsatisfiable() {
        let response = plan(.GET, [("Range", "bytes=1000-")])
        #expect(response.status == .rangeNotSatisfiable)
        #expect(response.headers["Content-Range"] == ["bytes */1000"])
        #expect(response.body.isEmpty)
    }

    @Test func repeatedRangeHeaderIsIgnored() {
        #expect(plan(.GET, [("Range", "bytes=0-1"), ("Range", "bytes=2-3")]).status == .ok)
    }

    @Test func ifRange() {
        let range = ("Range", "bytes=0-9")
        #expect(plan(.GET, [range, ("If-Range", "\"abc-3e8-1\"")]).status == .partialContent)
        #expect(plan(.GET, [range, ("If-Range", "\"other\"")]).status == .ok)
        #expect(plan(.GET, [range, ("If-Range", "W/\"abc-3e8-1\"")]).status == .ok)  // weak never matches
        #expect(plan(.GET, [range, ("If-Range", HTTPDate.format(1_795_000_000))]).status == .partialContent)
        #expect(plan(.GET, [range, ("If-Range", HTTPDate.format(1_795_000_001))]).status == .ok)
        #expect(plan(.GET, [range, ("If-Range", "garbage")]).status == .ok)
    }

    @Test func conditionalGets() {
        #expect(plan(.GET, [("If-None-Match", "\"abc-3e8-1\"")]).status == .notModified)
        #expect(plan(.GET, [("If-None-Match", "\"x\", W/\"abc-3e8-1\"")]).status == .notModified)
        #expect(plan(.GET, [("If-None-Match", "*")]).status == .notModified)
        #expect(plan(.GET, [("If-None-Match", "\"x\"")]).status == .ok)
        #expect(plan(.HEAD, [("If-Modified-Since", HTTPDate.format(1_795_000_000))]).status == .notModified)
        #expect(plan(.GET, [("If-Modified-Since", HTTPDate.format(1_794_999_999))]).status == .ok)
        // If-None-Match takes precedence over If-Modified-Since.
        #expect(plan(.GET, [("If-None-Match", "\"x\""), ("If-Modified-Since", HTTPDate.format(1_795_000_000))]).status == .ok)
        #expect(plan(.GET, [("If-Match", "\"x\"")]).status == .preconditionFailed)
        #expect(plan(.GET, [("If-Match", "\"abc-3e8-1\""), ("Range", "bytes=0-0")]).status == .partialContent)
        #expect(plan(.GET, [("If-Unmodified-Since", HTTPDate.format(1_794_999_999))]).status == .preconditionFailed)
        let notModified = plan(.GET, [("If-None-Match", "\"abc-3e8-1\"")])
        #expect(notModified.body.isEmpty)
        #expect(notModified.headers["ETag"] == ["\"abc-3e8-1\""])
        #expect(notModified.headers["Content-Length"].isEmpty)
    }

    @Test func entityTagLists() {
        #expect(EntityTagList.parse("\"a,b\", W/\"c\"").tags == ["\"a,b\"", "W/\"c\""])
        #expect(EntityTagList.parse(" * ") == .any)
        #expect(EntityTagList.parse("nonsense").tags.isEmpty)
    }

    /// Found by FuzzMediaRequest (campaign of 2026-11-23): `"\u{32D}"`, a quote followed by a combining mark, is a
    /// valid entity tag (obs-text), but as Swift `Character`s it neither starts nor ends with `"`; and `String ==`
    /// is canonical equivalence, so `"\u{212A}"` (KELVIN SIGN) matched `"K"`. Entity tags are compared as bytes.
    @Test func entityTagsAreBytes() {
        let found = "\"\u{32D}/\"/"  // the campaign's input, minimized from 6 bytes to 4: `"\u{32D}"`
        #expect(EntityTagList.parse(found).tags == ["\"\u{32D}/\""])
        #expect(EntityTagList.parse("\"\u{32D}\"").tags.map { Array($0.utf8) } == [[0x22, 0xCC, 0xAD, 0x22]])
        #expect(EntityTagList.looksLikeEntityTag("\"\u{32D}\""))
        #expect(EntityTagList.strongMatch("\"\u{32D}\"", "\"\u{32D}\""))
        #expect(!EntityTagList.strongMatch("\"\u{212A}\"", "\"K\""))
        #expect(!EntityTagList.weakMatch("W/\"\u{212A}\"", "\"K\""))
        #expect(!EntityTagList.strongMatch("\"e\u{301}\"", "\"\u{E9}\""))
        #expect(EntityTagList.weakMatch("W/\"\u{32D}\"", "\"\u{32D}\""))
        #expect(!EntityTagList.strongMatch("W/\"a\"", "W/\"a\""))
        CastMediaServerFuzzing.checkFieldParsers(found)
        // A request: If-Match with a tag canonically equivalent to the file's is not a match.
        var file = resource
        file.entityTag = "\"K\""
        let kelvin = ResponsePlanner.plan(request(.GET, [("If-Match", "\"\u{212A}\"")]), representation: file, now: now, boundary: { "B" })
        #expect(kelvin.status == .preconditionFailed)
        let same = ResponsePlanner.plan(request(.GET, [("If-Match", "\"K\"")]), representation: file, now: now, boundary: { "B" })
        #expect(same.status == .ok)
    }

    @Test func preflight() {
        let response = ResponsePlanner.options(
            request(.OPTIONS, [("Origin", "https://cast.example"), ("Access-Control-Request-Method", "GET"),
                               ("Access-Control-Request-Headers", "range"), ("Access-Control-Request-Private-Network", "true")]),
            now: now)
        #expect(response.status == .noContent)
        #expect(response.headers["Access-Control-Allow-Origin"] == ["*"])
        #expect(response.headers["Access-Control-Allow-Methods"] == ["GET, HEAD, OPTIONS"])
        let allowed = response.headers["Access-Control-Allow-Headers"].first ?? ""
        for name in ["Content-Type", "Accept-Encoding", "Range"] { #expect(allowed.contains(name)) }
        #expect(response.headers["Access-Control-Allow-Private-Network"] == ["true"])
        #expect(ResponsePlanner.options(request(.OPTIONS), now: now).headers["Access-Control-Allow-Private-Network"].isEmpty)
    }

    @Test func errors() {
        let notFound = ResponsePlanner.notFound(request(), now: now)
        #expect(notFound.status == .notFound)
        #expect(notFound.headers["Access-Control-Allow-Origin"] == ["*"])
        let notAllowed = ResponsePlanner.methodNotAllowed(request(.POST), now: now)
        #expect(notAllowed.status == .methodNotAllowed)
        #expect(notAllowed.headers["Allow"] == ["GET, HEAD, OPTIONS"])
    }
}

@Suite("Request targets")
struct RequestTargetTests {
    let token = String(repeating: "ab", count: 16)

    @Test func acceptsOnlyTokenAndName() {
        #expect(RequestTarget.route("/\(token)/movie.mp4") == .resource(token: token, name: "movie.mp4"))
        #expect(RequestTarget.route("/\(token)/My%20Movie%20%C3%A9.mp4?cachebust=1") == .resource(token: token, name: "My Movie é.mp4"))
        #expect(RequestTarget.route("http://10.0.0.1:8000/\(token)/movie.mp4") == .resource(token: token, name: "movie.mp4"))
        #expect(RequestTarget.route("*") == .asterisk)
    }

    @Test(arguments: [
        "/", "", "movie.mp4", "/etc/passwd", "//etc/passwd", "/../../etc/passwd", "/%2e%2e/%2e%2e/etc/passwd",
        "/TOKEN/movie.mp4", "/abab/movie.mp4", "/ABABABABABABABABABABABABABABABAB/movie.mp4",
        "/T/..", "/T/.", "/T/%2e%2e", "/T/%2E%2E", "/T/..%2fsecret.txt", "/T/%2e%2e%2fsecret.txt", "/T/a%2Fb",
        "/T/..%5csecret.txt", "/T/movie.mp4%00.txt", "/T/movie.mp4/extra", "/T/", "/T", "/T/%zz", "/T/%c3",
        "/T/../T/movie.mp4", "http://host", "ftp://host/T/movie.mp4",
    ])
    func refusesEverythingElse(_ target: String) {
        #expect(RequestTarget.route(target.replacing("/T", with: "/" + token)) == .notFound)
    }

    @Test func percentCoding() {
        #expect(RequestTarget.percentEncode("a b/c?é~") == "a%20b%2Fc%3F%C3%A9~")
        #expect(RequestTarget.percentDecode(RequestTarget.percentEncode("Ünïcødé & co.mkv")) == "Ünïcødé & co.mkv")
        #expect(RequestTarget.percentDecode("%4") == nil)
        #expect(RequestTarget.percentDecode("%ff") == nil)  // not UTF-8
    }

    @Test func tokensAre128RandomBits() {
        let tokens = (0..<1000).map { _ in RegistrationToken.make() }
        #expect(Set(tokens).count == 1000)
        #expect(tokens.allSatisfy(RegistrationToken.isWellFormed))
        #expect(tokens.allSatisfy { $0.count == 32 })
        // Every hex digit shows up in every position across 1000 tokens unless the generator is broken.
        let firstDigits = Set(tokens.map(\.first!))
        #expect(firstDigits.count == 16)
    }

    @Test func namesAreSanitized() {
        #expect(MediaServer.sanitizedName("a/b\\c\u{0}.mp4") == "a_b_c_.mp4")
        #expect(MediaServer.sanitizedName("..") == "file")
        #expect(MediaServer.sanitizedName("") == "file")
    }
}

@Suite("Idle timeout state")
struct IdleTimeoutStateTests {
    typealias State = IdleTimeoutState<ContinuousClock.Instant>
    let start = ContinuousClock.now

    @Test func requestHeadMustArriveInTime() {
        let state = State(timeout: .seconds(30), now: start)
        #expect(!state.isExpired(at: start + .seconds(29)))
        #expect(state.isExpired(at: start + .seconds(30)))
    }

    @Test func progressExtendsOnlyWhileResponding() {
        var state = State(timeout: .seconds(30), now: start)
        state.requestReceived(at: start + .seconds(10))
        #expect(!state.isExpired(at: start + .seconds(39)))
        state.progressed(at: start + .seconds(35))
        #expect(state.deadline == start + .seconds(65))
        state.responseFinished(at: start + .seconds(40))
        #expect(state.phase == .awaitingRequest(since: start + .seconds(40)))
        #expect(state.isExpired(at: start + .seconds(70)))
    }
}
