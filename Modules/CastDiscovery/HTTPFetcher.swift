import Foundation

/// An HTTP response: status, headers (names lower-cased) and body.
public struct HTTPFetchResponse: Sendable, Hashable {
    /// The status code.
    public var status: Int
    /// Headers, names lower-cased (the last one wins).
    public var headers: [String: String]
    /// The body.
    public var body: [UInt8]
    /// Creates a response.
    public init(status: Int, headers: [String: String], body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}

/// Fetches a URL over HTTP/1.1 (the DIAL device description). Injectable for tests.
public protocol HTTPFetcher: Sendable {
    /// GETs `url`, reading at most `limit` body bytes.
    ///
    /// - Throws: ``CastDiscoveryError`` ``CastDiscoveryError/Code/http``.
    func get(_ url: URL, limit: Int) async throws(CastDiscoveryError) -> HTTPFetchResponse
}

/// A minimal HTTP/1.1 client over POSIX sockets: `http://` only, one request per connection,
/// bounded headers and body, a socket timeout, `Host` set to the address (Cast devices answer
/// 403 to a name). Enough for device descriptions; not a general client.
public struct POSIXHTTPFetcher: HTTPFetcher {
    /// How long a connect, send or receive may block.
    public var timeout: Duration
    /// Creates a fetcher.
    public init(timeout: Duration = .seconds(3)) { self.timeout = timeout }

    /// See ``HTTPFetcher/get(_:limit:)``.
    public func get(_ url: URL, limit: Int) async throws(CastDiscoveryError) -> HTTPFetchResponse {
        guard url.scheme == "http", let host = url.host, !host.isEmpty else {
            throw CastDiscoveryError(code: .http, message: "only http:// URLs with a host are fetched, not \(url.absoluteString)")
        }
        let port = url.port ?? 80
        var path = url.path.isEmpty ? "/" : url.path
        if let query = url.query { path += "?" + query }
        let hostHeader = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        let request = "GET \(path) HTTP/1.1\r\nHost: \(hostHeader)\r\nAccept: */*\r\nConnection: close\r\n"
            + "User-Agent: Castor/1.0\r\n\r\n"
        let timeout = self.timeout
        let result: Result<[UInt8], CastDiscoveryError> = await Task.detached {
            do throws(CastDiscoveryError) {
                let socket = try POSIXSocket.connectTCP(host: host, port: port, timeout: timeout)
                try socket.sendAll(Array(request.utf8))
                return .success(try socket.receiveAll(limit: limit + 16 * 1024))
            } catch {
                return .failure(error)
            }
        }.value
        let raw = try result.get()
        return try Self.parse(raw, limit: limit)
    }

    /// Parses a complete HTTP/1.x response (Content-Length, chunked or close-delimited).
    package static func parse(_ raw: [UInt8], limit: Int) throws(CastDiscoveryError) -> HTTPFetchResponse {
        let separator: [UInt8] = [13, 10, 13, 10]
        guard let headerEnd = raw.firstRange(of: separator) else {
            throw CastDiscoveryError(code: .http, message: "HTTP response has no end of headers")
        }
        guard let head = String(validating: raw[..<headerEnd.lowerBound], as: UTF8.self) else {
            throw CastDiscoveryError(code: .http, message: "HTTP headers are not UTF-8")
        }
        let lines = head.components(separatedBy: "\r\n")
        let statusParts = lines[0].split(separator: " ", maxSplits: 2)
        guard statusParts.count >= 2, statusParts[0].hasPrefix("HTTP/1."), let status = Int(statusParts[1]) else {
            throw CastDiscoveryError(code: .http, message: "malformed HTTP status line")
        }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].trimmingSpaces().lowercased()] = line[line.index(after: colon)...].trimmingSpaces()
        }
        var body = Array(raw[headerEnd.upperBound...])
        if headers["transfer-encoding"]?.lowercased().contains("chunked") == true {
            body = try dechunk(body, limit: limit)
        } else if let lengthText = headers["content-length"] {
            guard let length = Int(lengthText), length >= 0 else {
                throw CastDiscoveryError(code: .http, message: "malformed Content-Length")
            }
            guard length <= limit else {
                throw CastDiscoveryError(code: .http, message: "HTTP body of \(length) bytes exceeds the \(limit)-byte limit")
            }
            guard body.count >= length else {
                throw CastDiscoveryError(code: .http, message: "HTTP body shorter than its Content-Length")
            }
            body = Array(body.prefix(length))
        }
        guard body.count <= limit else {
            throw CastDiscoveryError(code: .http, message: "HTTP body exceeds the \(limit)-byte limit")
        }
        return HTTPFetchResponse(status: status, headers: headers, body: body)
    }

    private static func dechunk(_ data: [UInt8], limit: Int) throws(CastDiscoveryError) -> [UInt8] {
        var output: [UInt8] = []
        var index = 0
        while true {
            guard let lineEnd = data[index...].firstRange(of: [13, 10]) else {
                throw CastDiscoveryError(code: .http, message: "truncated chunked body")
            }
            let sizeText = String(decoding: data[index..<lineEnd.lowerBound], as: UTF8.self)
                .split(separator: ";").first.map { $0.trimmingSpaces() } ?? ""
            guard sizeText.count <= 8, let size = Int(sizeText, radix: 16) else {
                throw CastDiscoveryError(code: .http, message: "malformed chunk size")
            }
            index = lineEnd.upperBound
            if size == 0 { return output }
            guard output.count + size <= limit else {
                throw CastDiscoveryError(code: .http, message: "HTTP body exceeds the \(limit)-byte limit")
            }
            guard index + size + 2 <= data.count else {
                throw CastDiscoveryError(code: .http, message: "truncated chunk")
            }
            output += data[index..<(index + size)]
            index += size + 2
        }
    }
}
