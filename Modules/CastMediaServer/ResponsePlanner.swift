import NIOHTTP1

/// The parts of a request that decide the response (pure data, extracted from the request head).
struct RequestSummary: Sendable {
    enum Method: Sendable, Equatable { case get, head, options, other(String) }

    var method: Method
    var range: String?
    var ifRange: String?
    var ifMatch: String?
    var ifNoneMatch: String?
    var ifModifiedSince: String?
    var ifUnmodifiedSince: String?
    /// `Access-Control-Request-Private-Network: true` (Chrome's Private Network Access preflight).
    var requestsPrivateNetwork: Bool

    init(method: HTTPMethod, headers: HTTPHeaders) {
        switch method {
        case .GET: self.method = .get
        case .HEAD: self.method = .head
        case .OPTIONS: self.method = .options
        default: self.method = .other(method.rawValue)
        }
        func joined(_ name: String) -> String? {
            let values = headers[name]
            return values.isEmpty ? nil : values.joined(separator: ", ")
        }
        // Range and the date fields are singletons: a repeated field is invalid and ignored.
        func single(_ name: String) -> String? {
            let values = headers[name]
            return values.count == 1 ? values[0] : nil
        }
        range = single("Range")
        ifRange = single("If-Range")
        ifMatch = joined("If-Match")
        ifNoneMatch = joined("If-None-Match")
        ifModifiedSince = single("If-Modified-Since")
        ifUnmodifiedSince = single("If-Unmodified-Since")
        requestsPrivateNetwork = single("Access-Control-Request-Private-Network")?.lowercased() == "true"
    }
}

/// What is known about a resource when answering: size, type, validators.
struct Representation: Sendable, Equatable {
    var size: Int64
    var contentType: String
    /// A strong entity tag, quoted.
    var entityTag: String
    /// Seconds since the epoch, if known.
    var lastModified: Int64?
}

/// A piece of a response body: literal bytes, or a byte range of the resource.
enum BodyPart: Sendable, Equatable {
    case bytes([UInt8])
    case resource(Range<Int64>)

    var length: Int64 {
        switch self {
        case .bytes(let bytes): Int64(bytes.count)
        case .resource(let range): range.upperBound - range.lowerBound
        }
    }
}

/// A complete answer to one request, before any I/O.
struct ResponsePlan: Sendable {
    var status: HTTPResponseStatus
    var headers: HTTPHeaders
    /// Empty for HEAD, 204, 304 and for bodies that are empty.
    var body: [BodyPart]
}

/// Decides responses (status, headers, body parts) from request facts alone: conditionals (RFC 9110 §13),
/// ranges (§14), CORS. The server shell only performs the I/O the plan describes.
enum ResponsePlanner {
    static let allowedMethods = "GET, HEAD, OPTIONS"
    static let allowedRequestHeaders =
        "Content-Type, Accept-Encoding, Range, If-Range, If-Match, If-None-Match, If-Modified-Since, If-Unmodified-Since, Origin, Accept"
    static let exposedHeaders = "Content-Length, Content-Range, Accept-Ranges, ETag, Last-Modified"

    /// Headers every response carries.
    static func baseHeaders(now: Int64) -> HTTPHeaders {
        [
            "Date": HTTPDate.format(now),
            "Access-Control-Allow-Origin": "*",
            "Access-Control-Expose-Headers": exposedHeaders,
        ]
    }

    /// 404 with a short text body (for unknown tokens, names and any other target).
    static func notFound(_ request: RequestSummary, now: Int64) -> ResponsePlan {
        textResponse(.notFound, "Not Found\n", request, now: now)
    }

    /// 503 for a provided resource that cannot be given now (a conversion that failed or did not finish in time).
    static func serviceUnavailable(_ request: RequestSummary, now: Int64) -> ResponsePlan {
        var plan = textResponse(.serviceUnavailable, "Service Unavailable\n", request, now: now)
        plan.headers.add(name: "Retry-After", value: "1")
        return plan
    }

    /// 405 for methods other than GET, HEAD and OPTIONS on a registered resource.
    static func methodNotAllowed(_ request: RequestSummary, now: Int64) -> ResponsePlan {
        var plan = textResponse(.methodNotAllowed, "Method Not Allowed\n", request, now: now)
        plan.headers.add(name: "Allow", value: allowedMethods)
        return plan
    }

    /// 204 answering a CORS preflight or `OPTIONS` on a resource or `*`.
    static func options(_ request: RequestSummary, now: Int64) -> ResponsePlan {
        var headers = baseHeaders(now: now)
        headers.add(name: "Allow", value: allowedMethods)
        headers.add(name: "Access-Control-Allow-Methods", value: allowedMethods)
        headers.add(name: "Access-Control-Allow-Headers", value: allowedRequestHeaders)
        headers.add(name: "Access-Control-Max-Age", value: "86400")
        if request.requestsPrivateNetwork { headers.add(name: "Access-Control-Allow-Private-Network", value: "true") }
        return ResponsePlan(status: .noContent, headers: headers, body: [])
    }

    /// The answer to GET or HEAD on a resource.
    /// - Parameter boundary: makes the multipart boundary (called only for multi-range responses).
    static func plan(
        _ request: RequestSummary, representation: Representation, now: Int64, boundary: () -> String
    ) -> ResponsePlan {
        var headers = baseHeaders(now: now)
        headers.add(name: "Accept-Ranges", value: "bytes")
        headers.add(name: "ETag", value: representation.entityTag)
        if let lastModified = representation.lastModified {
            headers.add(name: "Last-Modified", value: HTTPDate.format(min(lastModified, now)))
        }
        if let failed = evaluatePreconditions(request, representation) {
            if failed == .preconditionFailed { headers.add(name: "Content-Length", value: "0") }
            return ResponsePlan(status: failed, headers: headers, body: [])
        }
        let isHead = request.method == .head
        let size = representation.size
        var resolution = ByteRangeResolution.full
        if request.method == .get, let range = request.range, ifRangeHolds(request.ifRange, representation) {
            resolution = HTTPByteRange.resolve(range, size: size)
        }
        switch resolution {
        case .full:
            headers.add(name: "Content-Type", value: representation.contentType)
            headers.add(name: "Content-Length", value: String(size))
            return ResponsePlan(status: .ok, headers: headers, body: isHead || size == 0 ? [] : [.resource(0..<size)])
        case .unsatisfiable:
            headers.add(name: "Content-Range", value: HTTPByteRange.unsatisfiedContentRange(size: size))
            headers.add(name: "Content-Length", value: "0")
            return ResponsePlan(status: .rangeNotSatisfiable, headers: headers, body: [])
        case .partial(let ranges) where ranges.count == 1:
            headers.add(name: "Content-Type", value: representation.contentType)
            headers.add(name: "Content-Range", value: HTTPByteRange.contentRange(ranges[0], size: size))
            headers.add(name: "Content-Length", value: String(ranges[0].count))
            return ResponsePlan(status: .partialContent, headers: headers, body: [.resource(ranges[0])])
        case .partial(let ranges):
            let separator = boundary()
            var body: [BodyPart] = []
            for range in ranges {
                let partHead = "--\(separator)\r\nContent-Type: \(representation.contentType)\r\n"
                    + "Content-Range: \(HTTPByteRange.contentRange(range, size: size))\r\n\r\n"
                body.append(.bytes(Array(partHead.utf8)))
                body.append(.resource(range))
                body.append(.bytes(Array("\r\n".utf8)))
            }
            body.append(.bytes(Array("--\(separator)--\r\n".utf8)))
            headers.add(name: "Content-Type", value: "multipart/byteranges; boundary=\(separator)")
            headers.add(name: "Content-Length", value: String(body.reduce(0) { $0 + $1.length }))
            return ResponsePlan(status: .partialContent, headers: headers, body: body)
        }
    }

    /// RFC 9110 §13.2.2 steps 1–4: 412 or 304, or `nil` to go on.
    static func evaluatePreconditions(_ request: RequestSummary, _ representation: Representation) -> HTTPResponseStatus? {
        let isGetOrHead = request.method == .get || request.method == .head
        if let ifMatch = request.ifMatch {
            let tags = EntityTagList.parse(ifMatch)
            let matches = tags == .any || (tags.tags.contains { EntityTagList.strongMatch($0, representation.entityTag) })
            if !matches { return .preconditionFailed }
        } else if let text = request.ifUnmodifiedSince, let date = HTTPDate.parse(text), let modified = representation.lastModified {
            if modified > date { return .preconditionFailed }
        }
        if let ifNoneMatch = request.ifNoneMatch {
            let tags = EntityTagList.parse(ifNoneMatch)
            let matches = tags == .any || tags.tags.contains { EntityTagList.weakMatch($0, representation.entityTag) }
            if matches { return isGetOrHead ? .notModified : .preconditionFailed }
        } else if isGetOrHead, let text = request.ifModifiedSince, let date = HTTPDate.parse(text),
                  let modified = representation.lastModified {
            if modified <= date { return .notModified }
        }
        return nil
    }

    /// RFC 9110 §13.1.5: an entity tag must match strongly; a date must equal Last-Modified exactly.
    static func ifRangeHolds(_ ifRange: String?, _ representation: Representation) -> Bool {
        guard let ifRange = ifRange?.trimmingOWS() else { return true }
        if EntityTagList.looksLikeEntityTag(ifRange) {
            return EntityTagList.strongMatch(ifRange, representation.entityTag)
        }
        guard let date = HTTPDate.parse(ifRange), let modified = representation.lastModified else { return false }
        return date == modified
    }

    private static func textResponse(_ status: HTTPResponseStatus, _ text: String, _ request: RequestSummary, now: Int64)
        -> ResponsePlan {
        var headers = baseHeaders(now: now)
        headers.add(name: "Content-Type", value: "text/plain; charset=utf-8")
        headers.add(name: "Content-Length", value: String(text.utf8.count))
        return ResponsePlan(status: status, headers: headers, body: request.method == .head ? [] : [.bytes(Array(text.utf8))])
    }
}

/// `If-Match` / `If-None-Match` values: `*` or a list of entity tags (which may contain commas inside quotes).
struct EntityTagList: Equatable {
    var isAny: Bool
    var tags: [String]

    static let any = EntityTagList(isAny: true, tags: [])

    static func parse(_ text: String) -> EntityTagList {
        let trimmed = text.trimmingOWS()
        if trimmed == "*" { return .any }
        var tags: [String] = []
        var scalars = Substring(trimmed).unicodeScalars[...]
        while let first = scalars.first {
            if first == "," || first == " " || first == "\t" { scalars = scalars.dropFirst(); continue }
            var weak = false
            if scalars.starts(with: "W/".unicodeScalars) { weak = true; scalars = scalars.dropFirst(2) }
            guard scalars.first == "\"" else { break }  // not an entity tag: stop, keeping what was valid
            let rest = scalars.dropFirst()
            guard let close = rest.firstIndex(of: "\"") else { break }
            tags.append((weak ? "W/" : "") + "\"" + String(String.UnicodeScalarView(rest[..<close])) + "\"")
            scalars = rest[rest.index(after: close)...]
        }
        return EntityTagList(isAny: false, tags: tags)
    }

    // Entity tags are octets (RFC 9110 §8.8.3): they are compared and taken apart as UTF-8 bytes, never as
    // Swift `Character`s, whose comparison is canonical equivalence (`"\u{212A}"`, KELVIN SIGN, equals `"K"`)
    // and whose first character may be a quote with a combining mark (`"\u{32D}…"` does not start with `"`).

    /// Whether `tag` is weak (`W/"…"`).
    static func isWeak(_ tag: String) -> Bool { tag.utf8.starts(with: "W/".utf8) }

    /// Whether `text` starts as an entity tag does: `"` or `W/`.
    static func looksLikeEntityTag(_ text: String) -> Bool { text.utf8.first == UInt8(ascii: "\"") || isWeak(text) }

    /// Both strong and identical, byte for byte.
    static func strongMatch(_ a: String, _ b: String) -> Bool { !isWeak(a) && !isWeak(b) && a.utf8.elementsEqual(b.utf8) }

    /// Identical opaque tags, byte for byte, ignoring weakness.
    static func weakMatch(_ a: String, _ b: String) -> Bool { opaque(a).elementsEqual(opaque(b)) }

    private static func opaque(_ tag: String) -> Substring.UTF8View { isWeak(tag) ? Substring(tag).utf8.dropFirst(2) : Substring(tag).utf8 }
}
