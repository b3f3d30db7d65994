package import CastDiscoveryCore
package import Foundation

/// The default `HTTPFetcher` of CastDIAL (device descriptions) and CastKnownHosts (`eureka_info`):
/// one bounded GET on SwiftNIO (the same client the emulated receiver fetches media with),
/// `timeout` bounding connect, head and body together.
package struct BoundedHTTPFetcher: HTTPFetcher {
    /// How long one whole GET may take.
    package var timeout: Duration
    /// The clock `timeout` runs on.
    package var clock: any Clock<Duration>

    /// A fetcher whose GETs each end within `timeout` on `clock`.
    package init(timeout: Duration, clock: any Clock<Duration> = ContinuousClock()) {
        self.timeout = timeout
        self.clock = clock
    }

    package func get(_ url: URL, limit: Int) async throws(CastDiscoveryError) -> HTTPFetchResponse {
        do {
            let reply = try await BoundedHTTPClient.simpleGet(url.absoluteString, limit: limit, timeout: timeout, clock: clock)
            return HTTPFetchResponse(status: reply.status, headers: reply.headers, body: reply.body)
        } catch {
            throw CastDiscoveryError(code: .http, message: "GET \(url.absoluteString): \(error.message)", cause: error)
        }
    }
}
