internal import CCurl
import Foundation
import Synchronization

/// One download: the body so far, the first failure, and how it ends.
///
/// libcurl's callbacks and the redirect decisions run on the ``CurlDriver`` thread; ``fail(_:)``
/// may come from anywhere (the deadline watchdog, a cancelled task), and the driver then ends the
/// transfer at once. Completion is delivered exactly once.
final class CurlTransfer: Sendable {
    let url: URL
    let limits: CastDownloadLimits
    /// Redirects followed at most.
    static let maximumRedirects = 5

    private struct State {
        var body = Data()
        var failure: CastDownloadError?
        var completion: (@Sendable (Result<Data, CastDownloadError>) -> Void)?
        var completed = false
    }
    private let state = Mutex(State())
    /// Driver thread only: the URL of the request in flight and the redirects followed so far.
    private let progress = Mutex((current: URL?.none, redirects: 0))

    init(url: URL, limits: CastDownloadLimits) {
        self.url = url
        self.limits = limits
    }

    /// Bytes of (decoded) body received so far.
    var bytesReceived: Int { state.withLock { $0.body.count } }

    /// Whether the transfer has failed (the driver ends it).
    var hasFailed: Bool { state.withLock { $0.failure != nil } }

    /// Where the result goes; set once, before the transfer starts.
    func onCompletion(_ body: @escaping @Sendable (Result<Data, CastDownloadError>) -> Void) {
        state.withLock { $0.completion = body }
    }

    /// Records the first failure and wakes the driver, which ends the transfer.
    func fail(_ error: CastDownloadError) {
        let first = state.withLock { state -> Bool in
            guard state.failure == nil, !state.completed else { return false }
            state.failure = error
            return true
        }
        if first { CurlDriver.shared.wake() }
    }

    /// Delivers the result (the failure, if any, else the body), once.
    func complete() {
        let delivery = state.withLock { state -> (@Sendable (Result<Data, CastDownloadError>) -> Void, Result<Data, CastDownloadError>)? in
            guard !state.completed, let completion = state.completion else { return nil }
            state.completed = true
            state.completion = nil
            let result: Result<Data, CastDownloadError> = state.failure.map { .failure($0) } ?? .success(state.body)
            state.body = Data()
            return (completion, result)
        }
        guard let (completion, result) = delivery else { return }
        completion(result)
    }

    // MARK: Driver thread

    /// A new easy handle for the next request (the first, or a redirect's): body reset.
    func makeRequest() -> CurlEasy? {
        let target = progress.withLock { progress -> URL in
            if progress.current == nil { progress.current = url }
            return progress.current!
        }
        state.withLock { $0.body = Data() }
        guard let easy = CurlEasy(url: target, transfer: self) else {
            fail(CastDownloadError(code: .failed, message: "libcurl could not start a transfer"))
            return nil
        }
        return easy
    }

    /// What to do once libcurl finished a request.
    enum Next {
        /// Request this URL (a redirect).
        case follow
        /// The transfer is over (``complete()`` delivers the outcome).
        case done
    }

    /// Decides after a finished request: follow a redirect, or record the outcome.
    func finished(_ code: CURLcode, easy: CurlEasy) -> Next {
        let current = progress.withLock { $0.current ?? url }
        if code == CURLE_FILESIZE_EXCEEDED {
            fail(CastDownloadError(code: .tooLarge, message: "\(current) is larger than \(limits.maximumBytes) bytes (as announced)"))
            return .done
        }
        if hasFailed { return .done }
        guard code == CURLE_OK else {
            let text = String(cString: curl_easy_strerror(code))
            fail(CastDownloadError(code: .failed, message: "Cannot download \(current): \(text)"))
            return .done
        }
        let status = easy.responseCode
        if (300..<400).contains(status), let target = easy.redirectURL {
            guard let next = URL(string: target), let scheme = next.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
                fail(CastDownloadError(code: .redirectRefused, message: "\(current) redirected to \(target); only http and https are followed"))
                return .done
            }
            let allowed = progress.withLock { progress -> Bool in
                guard progress.redirects < Self.maximumRedirects else { return false }
                progress.redirects += 1
                progress.current = next
                return true
            }
            guard allowed else {
                fail(CastDownloadError(code: .redirectRefused, message: "\(url) redirected more than \(Self.maximumRedirects) times"))
                return .done
            }
            return .follow
        }
        guard (200..<300).contains(status) else {
            fail(CastDownloadError(code: .httpStatus, message: "Downloading \(current) answered HTTP \(status)", status: status))
            return .done
        }
        return .done
    }

    /// Appends decoded body bytes (libcurl's write callback); `false` (abort) once they pass the
    /// limit or the transfer failed.
    fileprivate func received(_ bytes: UnsafeRawBufferPointer) -> Bool {
        state.withLock { state in
            guard state.failure == nil else { return false }
            guard state.body.count + bytes.count <= limits.maximumBytes else {
                let current = progress.withLock { $0.current ?? url }
                state.failure = CastDownloadError(
                    code: .tooLarge,
                    message: "\(current) is larger than \(limits.maximumBytes) bytes (stopped at \(state.body.count + bytes.count) "
                        + "bytes, counted after decoding)")
                return false
            }
            state.body.append(contentsOf: bytes)
            return true
        }
    }
}

/// A libcurl easy handle set up for one request of a ``CurlTransfer``, freed with the object.
/// Used on the driver thread only.
final class CurlEasy {
    let handle: UnsafeMutableRawPointer

    init?(url: URL, transfer: CurlTransfer) {
        guard let handle = curl_easy_init() else { return nil }
        self.handle = handle
        // The transfer outlives the handle: the driver holds both until the request is removed.
        let user = Unmanaged.passUnretained(transfer).toOpaque()
        _ = castor_curl_set_string(handle, CURLOPT_URL, url.absoluteString)
        _ = castor_curl_set_string(handle, CURLOPT_PROTOCOLS_STR, "http,https")
        _ = castor_curl_set_long(handle, CURLOPT_FOLLOWLOCATION, 0)  // redirects are checked, then followed by the transfer
        _ = castor_curl_set_long(handle, CURLOPT_NOSIGNAL, 1)
        // Every encoding libcurl can decode; the write callback sees (and counts) decoded bytes.
        _ = castor_curl_set_string(handle, CURLOPT_ACCEPT_ENCODING, "")
        // A body announced larger than the cap is refused before it is read.
        _ = castor_curl_set_offset(handle, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(transfer.limits.maximumBytes))
        _ = castor_curl_set_string(handle, CURLOPT_USERAGENT, "Castor for Linux")
        _ = castor_curl_set_write_callback(handle, curlWrite)
        _ = castor_curl_set_pointer(handle, CURLOPT_WRITEDATA, user)
    }

    deinit { curl_easy_cleanup(handle) }

    /// The response's HTTP status (0 when none).
    var responseCode: Int { Int(castor_curl_response_code(handle)) }

    /// Where the response redirects to (`Location`, resolved against the request), if anywhere.
    var redirectURL: String? { castor_curl_redirect_url(handle).map { String(cString: $0) } }
}

private func curlWrite(_ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ user: UnsafeMutableRawPointer?) -> Int {
    guard let user, let data else { return castor_curl_write_abort() }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(user).takeUnretainedValue()
    let length = size * count
    return transfer.received(UnsafeRawBufferPointer(start: data, count: length)) ? length : castor_curl_write_abort()
}
