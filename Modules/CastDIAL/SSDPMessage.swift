import CastDiscoveryCore
/// A response to an SSDP M-SEARCH (`HTTP/1.1 200 OK` over UDP), as DIAL devices send it.
package struct SSDPResponse: Sendable, Hashable {
    /// The largest datagram accepted.
    package static let maxSize = 8_192
    /// The device description URL (`LOCATION`).
    package var location: String
    /// The unique service name (`USN`), e.g. `uuid:…::urn:dial-multiscreen-org:service:dial:1`.
    package var usn: String?
    /// The search target answered (`ST`).
    package var searchTarget: String?
    /// `CACHE-CONTROL: max-age`, capped at 3600 seconds.
    package var maxAge: Int?
    /// `CONFIGID.UPNP.ORG`.
    package var configID: Int?
    /// Every header, keys lower-cased (the last one wins).
    package var headers: [String: String]

    /// Parses a datagram.
    ///
    /// - Throws: `CastDiscoveryError.Code.malformedResponse` when it is not an HTTP 200
    ///   response with a `LOCATION` header, is too large or not ASCII/UTF-8.
    package init(parsing bytes: [UInt8]) throws(CastDiscoveryError) {
        guard bytes.count <= Self.maxSize else {
            throw CastDiscoveryError(code: .malformedResponse, message: "SSDP response exceeds \(Self.maxSize) bytes")
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw CastDiscoveryError(code: .malformedResponse, message: "SSDP response is not UTF-8")
        }
        // "\r\n" is one Character in Swift: split on scalars, not Characters.
        let lines = text.unicodeScalars.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" })
            .map { line in String(String.UnicodeScalarView(line.last == "\r" ? line.dropLast() : line[...])) }
        guard let status = lines.first, status.hasPrefix("HTTP/1."), status.split(separator: " ").dropFirst().first == "200"
        else {
            throw CastDiscoveryError(code: .malformedResponse, message: "SSDP response does not start with HTTP/1.x 200")
        }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            if line.isEmpty { break }
            guard headers.count < 64 else {
                throw CastDiscoveryError(code: .malformedResponse, message: "SSDP response has more than 64 headers")
            }
            guard let colon = line.firstIndex(of: ":") else {
                throw CastDiscoveryError(code: .malformedResponse, message: "SSDP header line without a colon")
            }
            let name = line[..<colon].trimmingSpaces().lowercased()
            let value = line[line.index(after: colon)...].trimmingSpaces()
            guard !name.isEmpty else {
                throw CastDiscoveryError(code: .malformedResponse, message: "SSDP header with an empty name")
            }
            headers[name] = value
        }
        guard let location = headers["location"], !location.isEmpty else {
            throw CastDiscoveryError(code: .malformedResponse, message: "SSDP response has no LOCATION header")
        }
        self.location = location
        self.headers = headers
        usn = headers["usn"]
        searchTarget = headers["st"]
        if let cache = headers["cache-control"]?.lowercased(),
            let range = cache.range(of: "max-age") {
            let rest = cache[range.upperBound...].drop { $0 == " " || $0 == "=" }
            maxAge = Int(rest.prefix { $0.isNumber }).map { min($0, 3600) }
        }
        configID = headers["configid.upnp.org"].flatMap { Int($0) }
    }

    /// The M-SEARCH datagram for `searchTarget`, as Chrome sends it.
    package static func search(target: String, mx: Int = 1, userAgent: String = "Castor/1.0 Linux") -> [UInt8] {
        Array(("M-SEARCH * HTTP/1.1\r\nHOST: 239.255.255.250:1900\r\nMAN: \"ssdp:discover\"\r\n"
            + "MX: \(mx)\r\nST: \(target)\r\nUSER-AGENT: \(userAgent)\r\n\r\n").utf8)
    }
}

extension StringProtocol {
    /// Without leading and trailing spaces and tabs.
    func trimmingSpaces() -> String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { $0 != " " && $0 != "\t" }) else { return "" }
        let last = scalars.lastIndex(where: { $0 != " " && $0 != "\t" })!
        return String(String.UnicodeScalarView(scalars[first...last]))
    }
}
