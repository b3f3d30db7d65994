import CastCore
import Foundation

/// Downloads one HTTP(S) resource with every cost bounded: feeds and images.
///
/// The body is counted while it arrives, after content decoding, so a 2 GB body or a gzip bomb
/// stops at ``CastDownloadLimits/maximumBytes`` instead of being read whole. The download also has
/// an overall deadline and a minimum rate (a server that drips or stalls is dropped), and a
/// redirect may only lead to another `http` or `https` URL. Deadlines run on the injected clock.
///
/// Transfers run on libcurl's multi interface, all of them on one thread the process starts on
/// first use: a download never blocks a thread of Swift's cooperative pool, and a thousand
/// downloads at once cost no more threads than one.
///
/// ```swift
/// let feed = try await CastDownloader(limits: .feed).data(from: url)
/// ```
public struct CastDownloader: Sendable {
    /// The limits of each download.
    public var limits: CastDownloadLimits
    private let clock: ElapsedClock

    /// Creates a downloader.
    /// - Parameters:
    ///   - limits: size, deadline and minimum rate.
    ///   - clock: the clock of the deadline and the rate checks (inject a manual one in tests).
    public init(limits: CastDownloadLimits = .feed, clock: any Clock<Duration> = ContinuousClock()) {
        self.limits = limits
        self.clock = ElapsedClock(clock)
    }

    /// The body at `url`.
    ///
    /// Cancelling the calling task stops the transfer at once.
    /// - Throws: ``CastDownloadError``: `.unsupportedScheme`, `.redirectRefused`, `.httpStatus`,
    ///   `.tooLarge`, `.deadlineExceeded`, `.tooSlow`, `.failed`, `.cancelled`.
    public func data(from url: URL) async throws(CastDownloadError) -> Data {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw CastDownloadError(code: .unsupportedScheme, message: "Only http and https URLs are downloaded, not \(url)")
        }
        let transfer = CurlTransfer(url: url, limits: limits)
        let watchdog = Task { [clock, limits] in await Self.watch(transfer, limits: limits, clock: clock) }
        defer { watchdog.cancel() }
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                transfer.onCompletion { continuation.resume(returning: $0) }
                CurlDriver.shared.start(transfer)
            }
        } onCancel: {
            transfer.fail(CastDownloadError(code: .cancelled, message: "The download of \(url) was cancelled"))
        }
        return try result.get()
    }

    /// Fails the transfer when its deadline passes or a rate window brings too few bytes.
    private static func watch(_ transfer: CurlTransfer, limits: CastDownloadLimits, clock: ElapsedClock) async {
        let start = clock.elapsed()
        let deadline = start + limits.deadline
        let window = limits.rateWindow
        var windowEnd = start + window
        var bytesAtWindowStart = 0
        while true {
            let checkRate = limits.minimumBytesPerWindow > 0 && windowEnd < deadline
            do { try await clock.sleepUntil(checkRate ? windowEnd : deadline) } catch { return }
            let received = transfer.bytesReceived
            guard checkRate else {
                transfer.fail(CastDownloadError(
                    code: .deadlineExceeded,
                    message: "\(transfer.url) did not finish within \(seconds(limits.deadline)) (the download deadline); "
                        + "\(received) bytes of body had arrived"))
                return
            }
            if received - bytesAtWindowStart < limits.minimumBytesPerWindow {
                transfer.fail(CastDownloadError(
                    code: .tooSlow,
                    message: "\(transfer.url) sent \(received - bytesAtWindowStart) bytes of body in \(seconds(window)), less "
                        + "than the minimum of \(limits.minimumBytesPerWindow); the server is stalling or dripping"))
                return
            }
            bytesAtWindowStart = received
            windowEnd += window
        }
    }

    static func seconds(_ duration: Duration) -> String {
        let value = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        return value == value.rounded() ? "\(Int(value)) s" : "\(value) s"
    }
}
