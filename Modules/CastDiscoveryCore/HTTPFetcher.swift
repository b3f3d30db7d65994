public import Foundation

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

/// Fetches a URL over HTTP/1.1: the DIAL device description (CastDIAL) and `eureka_info`
/// (CastKnownHosts). Both use a bounded GET on SwiftNIO by default; inject another for tests.
public protocol HTTPFetcher: Sendable {
    /// GETs `url`, reading at most `limit` body bytes.
    ///
    /// - Throws: ``CastDiscoveryError`` ``CastDiscoveryError/Code/http``.
    func get(_ url: URL, limit: Int) async throws(CastDiscoveryError) -> HTTPFetchResponse
}
