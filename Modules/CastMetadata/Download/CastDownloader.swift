internal import CCurl
import Foundation
import Synchronization

/// Downloads one HTTP(S) resource with every cost bounded: feeds and images.
///
/// The body is counted while it arrives, after content decoding, so a 2 GB body or a gzip bomb
/// stops at ``CastDownloadLimits/maximumBytes`` instead of being read whole. The download also has
/// an overall deadline and a minimum rate (a server that drips or stalls is dropped), and a
/// redirect may only lead to another `http` or `https` URL. Deadlines run on the injected clock.
///
/// ```swift
/// let feed = try await CastDownloader(limits: .feed).data(from: url)
/// ```
public struct CastDownloader: Sendable {
    /// The limits of each download.
    public var limits: CastDownloadLimits
    private let clock: DownloadClock

    /// Creates a downloader.
    /// - Parameters:
    ///   - limits: size, deadline and minimum rate.
    ///   - clock: the clock of the deadline and the rate checks (inject a manual one in tests).
    public init(limits: CastDownloadLimits = .feed, clock: any Clock<Duration> = ContinuousClock()) {
        self.limits = limits
        self.clock = DownloadClock(clock)
    }

    /// The body at `url`.
    /// - Throws: ``CastDownloadError``: `.unsupportedScheme`, `.redirectRefused`, `.httpStatus`,
    ///   `.tooLarge`, `.deadlineExceeded`, `.tooSlow`, `.failed`, `.cancelled`.
    public func data(from url: URL) async throws(CastDownloadError) -> Data {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw CastDownloadError(code: .unsupportedScheme, message: "Only http and https URLs are downloaded, not \(url)")
        }
        let transfer = Transfer(url: url, limits: limits)
        let watchdog = Task { [clock, limits] in await Self.watch(transfer, limits: limits, clock: clock) }
        defer { watchdog.cancel() }
        // libcurl blocks: it runs on a thread of its own, never on the cooperative pool.
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                Thread.detachNewThread { continuation.resume(returning: transfer.run()) }
            }
        } onCancel: {
            transfer.fail(CastDownloadError(code: .cancelled, message: "The download of \(url) was cancelled"))
        }
        return try result.get()
    }

    /// Fails the transfer when its deadline passes or a rate window brings too few bytes.
    private static func watch(_ transfer: Transfer, limits: CastDownloadLimits, clock: DownloadClock) async {
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
                        + "\(received) bytes had arrived"))
                return
            }
            if received - bytesAtWindowStart < limits.minimumBytesPerWindow {
                transfer.fail(CastDownloadError(
                    code: .tooSlow,
                    message: "\(transfer.url) sent \(received - bytesAtWindowStart) bytes in \(seconds(window)), less than the "
                        + "minimum of \(limits.minimumBytesPerWindow); the server is stalling or dripping"))
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

/// Limits on one download.
public struct CastDownloadLimits: Sendable, Hashable {
    /// The most bytes of body, counted after content decoding (gzip); past it the download stops.
    public var maximumBytes: Int
    /// The whole download (connect, headers, body) must finish within this.
    public var deadline: Duration
    /// The minimum progress: at least this many bytes in every ``rateWindow``; 0 checks no rate.
    public var minimumBytesPerWindow: Int
    /// The window the minimum rate is measured over.
    public var rateWindow: Duration

    /// Creates limits.
    public init(maximumBytes: Int, deadline: Duration, minimumBytesPerWindow: Int = 1024, rateWindow: Duration = .seconds(10)) {
        self.maximumBytes = maximumBytes
        self.deadline = deadline
        self.minimumBytesPerWindow = minimumBytesPerWindow
        self.rateWindow = rateWindow
    }

    /// A podcast feed: 16 MiB, 60 s, at least 1 KiB every 10 s.
    public static let feed = CastDownloadLimits(maximumBytes: 16 << 20, deadline: .seconds(60))
    /// An image: 32 MiB, 60 s, at least 1 KiB every 10 s.
    public static let image = CastDownloadLimits(maximumBytes: 32 << 20, deadline: .seconds(60))
}

/// Why a download failed.
public struct CastDownloadError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, for matching.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Base: String, Sendable, Hashable {
            case unsupportedScheme, redirectRefused, httpStatus, tooLarge, deadlineExceeded, tooSlow, failed, cancelled
        }
        private let base: Base
        private init(_ base: Base) { self.base = base }
        /// The URL is not `http` or `https`.
        public static let unsupportedScheme = Code(.unsupportedScheme)
        /// The server redirected to a URL that is not `http` or `https` (for example `file:`).
        public static let redirectRefused = Code(.redirectRefused)
        /// The server answered with a status outside 200–299.
        public static let httpStatus = Code(.httpStatus)
        /// The body is larger than ``CastDownloadLimits/maximumBytes`` (announced or while reading).
        public static let tooLarge = Code(.tooLarge)
        /// The download did not finish within ``CastDownloadLimits/deadline``.
        public static let deadlineExceeded = Code(.deadlineExceeded)
        /// The server sent less than ``CastDownloadLimits/minimumBytesPerWindow`` in a window.
        public static let tooSlow = Code(.tooSlow)
        /// The connection or the protocol failed.
        public static let failed = Code(.failed)
        /// The calling task was cancelled.
        public static let cancelled = Code(.cancelled)
        /// The code's name.
        public var description: String { base.rawValue }
    }

    /// What went wrong.
    public var code: Code
    /// A human-readable explanation.
    public var message: String
    /// The HTTP status, for ``Code/httpStatus``.
    public var status: Int?

    /// Creates an error.
    public init(code: Code, message: String, status: Int? = nil) {
        self.code = code
        self.message = message
        self.status = status
    }

    /// `code: message`.
    public var description: String { "\(code): \(message)" }
}

// MARK: - One transfer

/// One download on libcurl: the body so far, and the first failure, which stops the transfer
/// from libcurl's own callbacks (the write callback refuses the next chunk; the progress callback,
/// called at least once a second, aborts an idle transfer).
private final class Transfer: Sendable {
    let url: URL
    let limits: CastDownloadLimits
    private struct State {
        var body = Data()
        var failure: CastDownloadError?
    }
    private let state = Mutex(State())
    /// Redirects followed at most.
    static let maximumRedirects = 5

    init(url: URL, limits: CastDownloadLimits) {
        self.url = url
        self.limits = limits
    }

    var bytesReceived: Int { state.withLock { $0.body.count } }

    /// Records the first failure; libcurl stops at its next callback.
    func fail(_ error: CastDownloadError) {
        state.withLock { if $0.failure == nil { $0.failure = error } }
    }

    fileprivate var shouldAbort: Bool { state.withLock { $0.failure != nil } }

    /// Appends decoded body bytes; `false` (abort) once they pass the limit or the transfer failed.
    fileprivate func received(_ bytes: UnsafeRawBufferPointer) -> Bool {
        state.withLock { state in
            guard state.failure == nil else { return false }
            guard state.body.count + bytes.count <= limits.maximumBytes else {
                state.failure = CastDownloadError(
                    code: .tooLarge,
                    message: "\(url) is larger than \(limits.maximumBytes) bytes (stopped at \(state.body.count + bytes.count) "
                        + "bytes, counted after decoding)")
                return false
            }
            state.body.append(contentsOf: bytes)
            return true
        }
    }

    /// Runs the whole download, redirects included (blocking; on a thread of its own).
    func run() -> Result<Data, CastDownloadError> {
        var current = url
        for _ in 0...Self.maximumRedirects {
            guard let easy = CurlEasy() else {
                return .failure(CastDownloadError(code: .failed, message: "libcurl could not start a transfer"))
            }
            state.withLock { $0.body = Data() }
            let code = easy.perform(current, transfer: self)
            if let failure = state.withLock({ $0.failure }) { return .failure(failure) }
            guard code == CURLE_OK else {
                let text = String(cString: curl_easy_strerror(code))
                return .failure(CastDownloadError(code: .failed, message: "Cannot download \(current): \(text)"))
            }
            let status = Int(castor_curl_response_code(easy.handle))
            if (300..<400).contains(status), let location = castor_curl_redirect_url(easy.handle) {
                let target = String(cString: location)
                guard let next = URL(string: target), let scheme = next.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
                    return .failure(CastDownloadError(
                        code: .redirectRefused, message: "\(current) redirected to \(target); only http and https are followed"))
                }
                current = next
                continue
            }
            guard (200..<300).contains(status) else {
                return .failure(CastDownloadError(
                    code: .httpStatus, message: "Downloading \(current) answered HTTP \(status)", status: status))
            }
            return .success(state.withLock { $0.body })
        }
        return .failure(CastDownloadError(
            code: .redirectRefused, message: "\(url) redirected more than \(Self.maximumRedirects) times"))
    }
}

/// A libcurl easy handle, freed with the object.
private final class CurlEasy {
    let handle: UnsafeMutableRawPointer

    init?() {
        guard let handle = curl_easy_init() else { return nil }
        self.handle = handle
    }

    deinit { curl_easy_cleanup(handle) }

    /// One request to `url`, body into `transfer`; redirects are returned, not followed.
    func perform(_ url: URL, transfer: Transfer) -> CURLcode {
        let user = Unmanaged.passUnretained(transfer).toOpaque()
        _ = castor_curl_set_string(handle, CURLOPT_URL, url.absoluteString)
        _ = castor_curl_set_string(handle, CURLOPT_PROTOCOLS_STR, "http,https")
        _ = castor_curl_set_long(handle, CURLOPT_FOLLOWLOCATION, 0)
        _ = castor_curl_set_long(handle, CURLOPT_NOSIGNAL, 1)
        // Every encoding libcurl can decode; the write callback sees (and counts) decoded bytes.
        _ = castor_curl_set_string(handle, CURLOPT_ACCEPT_ENCODING, "")
        // A body announced larger than the cap is refused before it is read.
        _ = castor_curl_set_offset(handle, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(transfer.limits.maximumBytes))
        _ = castor_curl_set_string(handle, CURLOPT_USERAGENT, "Castor for Linux")
        _ = castor_curl_set_write_callback(handle, curlWrite)
        _ = castor_curl_set_pointer(handle, CURLOPT_WRITEDATA, user)
        _ = castor_curl_set_long(handle, CURLOPT_NOPROGRESS, 0)
        _ = castor_curl_set_progress_callback(handle, curlProgress)
        _ = castor_curl_set_pointer(handle, CURLOPT_XFERINFODATA, user)
        let code = curl_easy_perform(handle)
        if code == CURLE_FILESIZE_EXCEEDED {
            transfer.fail(CastDownloadError(
                code: .tooLarge, message: "\(url) is larger than \(transfer.limits.maximumBytes) bytes (as announced)"))
        }
        return code
    }
}

private func curlWrite(_ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ user: UnsafeMutableRawPointer?) -> Int {
    guard let user, let data else { return castor_curl_write_abort() }
    let transfer = Unmanaged<Transfer>.fromOpaque(user).takeUnretainedValue()
    let length = size * count
    return transfer.received(UnsafeRawBufferPointer(start: data, count: length)) ? length : castor_curl_write_abort()
}

private func curlProgress(_ user: UnsafeMutableRawPointer?, _: curl_off_t, _: curl_off_t, _: curl_off_t, _: curl_off_t) -> Int32 {
    guard let user else { return 1 }
    return Unmanaged<Transfer>.fromOpaque(user).takeUnretainedValue().shouldAbort ? 1 : 0
}

/// An injected `Clock` seen as elapsed time.
private struct DownloadClock: Sendable {
    let elapsed: @Sendable () -> Duration
    let sleepUntil: @Sendable (Duration) async throws -> Void

    init<C: Clock>(_ clock: C) where C.Duration == Duration {
        let start = clock.now
        elapsed = { start.duration(to: clock.now) }
        sleepUntil = { offset in try await clock.sleep(until: start.advanced(by: offset), tolerance: nil) }
    }
}
