import CastDiscovery
import CastHTTP
import Foundation

/// The default `HTTPFetcher`: one bounded GET on SwiftNIO (the same client the emulated receiver
/// fetches media with), `timeout` bounding connect, head and body together.
struct BoundedHTTPFetcher: HTTPFetcher {
    /// How long one whole GET may take.
    var timeout: Duration
    /// The clock `timeout` runs on.
    var clock: any Clock<Duration> = ContinuousClock()

    func get(_ url: URL, limit: Int) async throws(CastDiscoveryError) -> HTTPFetchResponse {
        do {
            let reply = try await BoundedHTTPClient.simpleGet(url.absoluteString, limit: limit, timeout: timeout, clock: clock)
            return HTTPFetchResponse(status: reply.status, headers: reply.headers, body: reply.body)
        } catch {
            throw CastDiscoveryError(code: .http, message: "GET \(url.absoluteString): \(error.message)", cause: error)
        }
    }
}
