import Logging
import NIOCore
import NIOHTTP1
import NIOPosix

/// What the media-server fuzz target drives: the connection pipeline of a real server serving one resource
/// from memory, the response planner, and the parsers of request-head fields.
@_spi(Fuzzing) public enum CastMediaServerFuzzing {
    /// The token of the one registered resource.
    public static let token = "0123456789abcdef0123456789abcdef"
    /// Its name (`clip%20one.mp4` in the URL).
    public static let name = "clip one.mp4"
    static let content: [UInt8] = (0..<1000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
    static let entityTag = "\"m-fuzz-3e8\""
    static let lastModified: Int64 = 1_767_225_600  // Thu, 01 Jan 2026 00:00:00 GMT

    /// A pool that is never started: only files are read on it, and the fuzzed resource is in memory. (NIO's
    /// singleton pool would start threads whose queue LeakSanitizer reports at exit.)
    private static let idlePool = NIOThreadPool(numberOfThreads: 1)

    /// The resource's path: `/<token>/clip%20one.mp4`.
    public static var path: String { "/\(token)/\(RequestTarget.percentEncode(name))" }

    /// Adds the handlers of one server connection (HTTP parser with the server's limits, protocol-error
    /// answers, the request handler) to `pipeline`, serving only the fixed resource.
    public static func configureConnection(_ pipeline: ChannelPipeline.SynchronousOperations) throws {
        let registry = Registry()
        let registration = MediaRegistration(
            token: token, name: name, contentType: "video/mp4", url: "http://127.0.0.1:1\(path)")
        registry.add(.init(registration: registration, source: .data(bytes: content, entityTag: entityTag, lastModified: lastModified)))
        let handler = MediaRequestHandler(
            registry: registry, threadPool: idlePool, activity: NoActivity(),
            logger: Logger(label: "castor.fuzz", factory: { _ in SwiftLogNoOpLogHandler() }))
        try MediaServer.configureConnection(
            pipeline, limits: MediaServer.decoderLimits(maximumHeaderBytes: 16 * 1024), handler: handler)
    }

    /// Routes a decoded request head and plans the answer to it (for GET and HEAD, against the fixed resource and
    /// an empty one), trapping when an invariant breaks: a routed name is a safe segment that routes back to
    /// itself; every plan is 200, 206, 304, 412 or 416, its ranges lie inside the resource, `Content-Length`
    /// counts the body exactly and `Content-Range` describes it.
    public static func checkRequest(_ head: HTTPRequestHead) {
        if case .resource(let routedToken, let routedName) = RequestTarget.route(head.uri) {
            guard RegistrationToken.isWellFormed(routedToken), RequestTarget.isSafeName(routedName) else {
                fatalError("\(head.uri) routed to token \(routedToken.debugDescription), name \(routedName.debugDescription)")
            }
            let again = RequestTarget.route("/\(routedToken)/\(RequestTarget.percentEncode(routedName))")
            guard again == .resource(token: routedToken, name: routedName) else {
                fatalError("\(routedName.debugDescription) does not route back to itself: \(again)")
            }
        }
        let request = RequestSummary(method: head.method, headers: head.headers)
        guard request.method == .get || request.method == .head else { return }
        for size in [Int64(content.count), 0] {
            let representation = Representation(size: size, contentType: "video/mp4", entityTag: entityTag, lastModified: lastModified)
            let plan = ResponsePlanner.plan(request, representation: representation, now: lastModified + 60) { "B" }
            if let problem = problem(with: plan, request: request, size: size) {
                fatalError("\(problem): \(plan.status) \(plan.headers) for \(head.method) \(head.headers)")
            }
        }
    }

    private static func problem(with plan: ResponsePlan, request: RequestSummary, size: Int64) -> String? {
        let bodyLength = plan.body.reduce(Int64(0)) { $0 + $1.length }
        let contentLength = plan.headers["Content-Length"].first.flatMap { Int64($0) }
        for part in plan.body {
            if case .resource(let range) = part, range.isEmpty || range.lowerBound < 0 || range.upperBound > size {
                return "range \(range) of a \(size)-byte resource"
            }
        }
        switch plan.status {
        case .ok:
            guard contentLength == size else { return "Content-Length is not the size" }
            guard request.method == .head ? plan.body.isEmpty : bodyLength == size else { return "the body is not the resource" }
        case .partialContent:
            guard request.method == .get, contentLength == bodyLength, bodyLength > 0 else { return "Content-Length does not count the parts" }
            if plan.body.count == 1, case .resource(let range) = plan.body[0] {
                guard plan.headers["Content-Range"] == [HTTPByteRange.contentRange(range, size: size)] else { return "Content-Range" }
            }
        case .rangeNotSatisfiable:
            guard plan.body.isEmpty, plan.headers["Content-Range"] == [HTTPByteRange.unsatisfiedContentRange(size: size)] else {
                return "416 without Content-Range */size"
            }
        case .notModified, .preconditionFailed:
            guard plan.body.isEmpty else { return "a body on \(plan.status)" }
        default:
            return "unexpected status"
        }
        return nil
    }

    /// Parses `text` as each request-head field the server reads, trapping when an invariant breaks: a parsed
    /// `Range` has 1 to ``HTTPByteRange/maximumSpecCount`` specs and resolves, for sizes from 0 to `Int64.max`,
    /// to disjoint non-empty ranges inside the resource (or 416 only when no spec is satisfiable); a parsed date
    /// formats and parses back to itself; entity tags in a list are quoted.
    public static func checkFieldParsers(_ text: String) {
        if let specs = HTTPByteRange.parse(text) {
            guard !specs.isEmpty, specs.count <= HTTPByteRange.maximumSpecCount else { fatalError("\(specs.count) specs from \(text.debugDescription)") }
            for size: Int64 in [0, 1, 999, 1000, 1 << 40, .max] {
                switch HTTPByteRange.resolve(specs, size: size) {
                case .full:
                    break
                case .unsatisfiable:
                    guard !specs.contains(where: { $0.isSatisfiable(size: size) }) else { fatalError("416 for satisfiable \(specs), size \(size)") }
                case .partial(let ranges):
                    let sorted = ranges.sorted { $0.lowerBound < $1.lowerBound }
                    guard !ranges.isEmpty, ranges.allSatisfy({ !$0.isEmpty && $0.lowerBound >= 0 && $0.upperBound <= size }),
                        zip(sorted, sorted.dropFirst()).allSatisfy({ $0.upperBound < $1.lowerBound })
                    else { fatalError("ranges \(ranges) for \(specs), size \(size)") }
                }
            }
        }
        if let seconds = HTTPDate.parse(text) {
            let formatted = HTTPDate.format(seconds)
            guard HTTPDate.parse(formatted) == seconds else { fatalError("\(text.debugDescription) → \(seconds) → \(formatted) does not read back") }
        }
        let tags = EntityTagList.parse(text)
        // As bytes: `"` followed by a combining mark is one `Character` (found by FuzzMediaRequest: `"\u{32D}"`).
        for tag in tags.tags {
            let bytes = Array(tag.utf8), opaque = EntityTagList.isWeak(tag) ? bytes.dropFirst(2) : bytes[...]
            guard opaque.count >= 2, opaque.first == UInt8(ascii: "\""), opaque.last == UInt8(ascii: "\""),
                  EntityTagList.weakMatch(tag, tag), EntityTagList.strongMatch(tag, tag) != EntityTagList.isWeak(tag)
            else {
                fatalError("entity tag \(tag.debugDescription) from \(text.debugDescription)")
            }
        }
        _ = RequestTarget.route(text)
    }

    private struct NoActivity: ConnectionActivity {
        func requestReceived() {}
        func progressed() {}
        func responseFinished() {}
    }
}
