import CastCore
import CastStreaming
import Foundation
import CastDeviceProfiles
import CastHTTP
import NIOHTTP1

/// Runs a ``MediaFetchPlan``: fetches each target like a receiver's web page would, checks the
/// response, and records every fetch. The I/O shell of the media-fetching feature; the checks are
/// in ``MediaFetchCheck``.
struct MediaFetcher: Sendable {
    let settings: EmulatedReceiverMediaFetching
    let clock: ElapsedClock
    /// What the device decodes: media it cannot play fails its fetch.
    var profile: CastDeviceProfile = .any
    /// Whether an HDMI sink decodes the profile's passthrough audio.
    var hdmiPassthrough = false

    /// Fetches every target of `plan` (a few at a time), hands each record to `record` as it completes,
    /// and returns the first failure in plan order, if any, with the durations read from the media.
    func run(_ plan: MediaFetchPlan, record: @escaping @Sendable (EmulatedReceiverFetch) async -> Void) async -> MediaFetchOutcome {
        var results: [Int: EmulatedReceiverFetch] = [:]
        await withTaskGroup(of: (Int, EmulatedReceiverFetch).self) { group in
            for (index, target) in plan.targets.enumerated() {
                if index >= settings.maximumConcurrentFetches, let (done, fetch) = await group.next() {
                    results[done] = fetch
                    await record(fetch)
                }
                group.addTask { (index, await fetchAndProbe(target, requestId: plan.requestId, record: record)) }
            }
            for await (done, fetch) in group {
                results[done] = fetch
                await record(fetch)
            }
        }
        var outcome = MediaFetchOutcome()
        for index in plan.targets.indices {
            guard let fetch = results[index] else { continue }
            if let error = fetch.error, outcome.failure == nil {
                let adaptive = [MediaContainer.hls, .dash].contains(fetch.media?.container)
                outcome.failure = MediaFetchFailure(
                    url: fetch.url, detailedErrorCode: Self.detailedErrorCode(for: error, adaptive: adaptive))
            }
            if let seekability = fetch.seekability { outcome.seekability[fetch.url] = seekability }
            if fetch.isLive {
                outcome.durations[fetch.url] = .live
            } else if let duration = fetch.duration {
                outcome.durations[fetch.url] = .seconds(duration)
            }
        }
        return outcome
    }

    /// One fetch, checked; never throws — failures are in the record's `error`.
    func fetch(_ target: MediaFetchPlan.Target, requestId: Int, range: ClosedRange<Int>? = nil) async -> EmulatedReceiverFetch {
        let isMedia = target.kind != .textTrack
        var record = EmulatedReceiverFetch(
            kind: target.kind, url: target.url, requestId: requestId,
            requestedRange: range ?? (isMedia ? 0...(settings.mediaPrefixLength - 1) : nil))
        guard let url = HTTPURL(parsing: target.url) else {
            record.error = EmulatedReceiverError(code: .invalidURL, message: "not a valid http:// URL")
            return record
        }
        var headers = HTTPHeaders()
        headers.add(name: "Host", value: url.authority)
        headers.add(name: "User-Agent", value: settings.userAgent)
        headers.add(name: "Accept", value: isMedia ? "*/*" : "text/vtt,*/*;q=0.8")
        headers.add(name: "Accept-Encoding", value: "identity")
        headers.add(name: "Origin", value: settings.origin)
        if let range = record.requestedRange { headers.add(name: "Range", value: "bytes=\(range.lowerBound)-\(range.upperBound)") }
        headers.add(name: "Connection", value: "close")
        let request = headers
        let settings = self.settings
        let bodyLimit = record.requestedRange?.count ?? settings.maximumTextTrackBytes
        let response: BoundedHTTPResponse
        do {
            response = try await withDeadline(settings.timeout) {
                try await BoundedHTTPClient.get(
                    url, headers: request, bodyLimit: bodyLimit,
                    overflow: isMedia ? .truncate : .fail, maximumHeaderBytes: settings.maximumHeaderBytes,
                    connectTimeout: settings.timeout)
            }
        } catch let failure as BoundedHTTPFailure {
            let code: EmulatedReceiverError.Code = switch failure.reason {
            case .connect, .closedEarly, .timedOut: .connectionFailed
            case .malformed: .malformedResponse
            case .tooLarge: .responseTooLarge
            }
            record.error = EmulatedReceiverError(code: code, message: failure.message, cause: failure.cause)
            if let partial = failure.partial { record.fill(from: partial, origin: settings.origin) }
            return record
        } catch {
            record.error = EmulatedReceiverError(
                code: .timedOut, message: "no complete response within \(settings.timeout)")
            return record
        }
        record.fill(from: response, origin: settings.origin)
        let check = MediaFetchCheck(origin: settings.origin, requestedRange: record.requestedRange)
        record.error = check.problem(with: record, requiresCORS: target.requiresCORS)
        return record
    }

    private struct DeadlinePassed: Error {}

    /// Runs `operation`, cancelling it (which closes its connection) when `timeout` passes on the clock.
    private func withDeadline<T: Sendable>(
        _ timeout: Duration, _ operation: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        let clock = self.clock
        let deadline = clock.elapsed() + timeout
        return try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await operation() }
            group.addTask {
                try await clock.sleepUntil(deadline)
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let value = first else { throw DeadlinePassed() }
            return value
        }
    }

    /// The `detailedErrorCode` of the LOAD_FAILED a device sends for a failed fetch: 104
    /// (MEDIA_SRC_NOT_SUPPORTED) for content the player rejects, 103 (MEDIA_NETWORK) otherwise.
    /// Codecs the device cannot decode are 104 for a progressive file (Chrome's media element fails
    /// with MEDIA_ERR_SRC_NOT_SUPPORTED; azasypkin/rust-cast#20 logs 104 for an x265 MP4) and 110
    /// (SOURCE_BUFFER_FAILURE) for HLS and DASH, whose player cannot add a source buffer of that type
    /// (googlecast/CastVideos-android#120: "PLAYBACK/110 (Failed to execute 'addSourceBuffer' …
    /// is unsupported)").
    static func detailedErrorCode(for error: EmulatedReceiverError, adaptive: Bool = false) -> Int {
        if error.code == .unsupportedMedia { return adaptive ? 110 : 104 }
        return [.contentType, .cors, .notWebVTT].contains(error.code) ? 104 : 103
    }
}

/// The checks a receiver's player applies to a response, without I/O.
struct MediaFetchCheck: Sendable {
    var origin: String
    /// The range the request asked for (`nil` for a whole-resource GET).
    var requestedRange: ClosedRange<Int>?

    /// Media types a Cast player accepts (besides `video/*`, `audio/*` and `image/*`).
    static let mediaTypes: Set<String> = [
        "application/x-mpegurl", "application/vnd.apple.mpegurl", "audio/mpegurl", "application/dash+xml",
        "application/vnd.ms-sstr+xml", "application/octet-stream", "binary/octet-stream", "application/ogg",
        "application/mp4",
    ]

    /// Whether the `Access-Control-Allow-Origin` values admit the origin: exactly one, `*` or the origin.
    func corsAllows(_ values: [String]) -> Bool {
        guard values.count == 1 else { return false }
        let value = values[0].trimmingCharacters(in: .whitespaces)
        return value == "*" || value == origin
    }

    /// The media type without parameters, lowercased (`text/vtt; charset=utf-8` → `text/vtt`).
    static func essence(_ contentType: String?) -> String? {
        guard let contentType else { return nil }
        let essence = contentType.split(separator: ";", maxSplits: 1).first.map(String.init) ?? ""
        let trimmed = essence.trimmingCharacters(in: .whitespaces).lowercased()
        return trimmed.isEmpty ? nil : trimmed
    }

    /// Whether the body starts with `WEBVTT` (after an optional UTF-8 byte-order mark), followed by
    /// the end, a space, a tab or a line break.
    static func isWebVTT(_ body: [UInt8]) -> Bool {
        var bytes = body[...]
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        guard bytes.starts(with: Array("WEBVTT".utf8)) else { return false }
        guard let next = bytes.dropFirst(6).first else { return true }
        return [0x20, 0x09, 0x0A, 0x0D].contains(next)
    }

    /// What is wrong with a response, in the order a browser finds out; `nil` when the content is usable.
    func problem(with fetch: EmulatedReceiverFetch, requiresCORS: Bool) -> EmulatedReceiverError? {
        let status = fetch.statusCode ?? 0
        let isMedia = fetch.kind != .textTrack
        let acceptable: Set<Int> = isMedia ? [200, 206] : [200]
        guard acceptable.contains(status) else {
            return EmulatedReceiverError(code: .httpStatus, message: "HTTP status \(status)")
        }
        if isMedia, status == 206, let requestedRange {
            let range = fetch.contentRange?.trimmingCharacters(in: .whitespaces).lowercased() ?? ""
            guard range.hasPrefix("bytes \(requestedRange.lowerBound)-") else {
                return EmulatedReceiverError(
                    code: .malformedResponse,
                    message: "206 with Content-Range “\(fetch.contentRange ?? "")” for bytes=\(requestedRange.lowerBound)-\(requestedRange.upperBound)")
            }
        }
        if requiresCORS, !fetch.corsAllowed {
            return EmulatedReceiverError(
                code: .cors, message: "Access-Control-Allow-Origin does not admit \(origin)")
        }
        let type = Self.essence(fetch.contentType)
        if isMedia {
            guard let type, type.hasPrefix("video/") || type.hasPrefix("audio/") || type.hasPrefix("image/") || Self.mediaTypes.contains(type) else {
                return EmulatedReceiverError(
                    code: .contentType, message: "Content-Type \(fetch.contentType ?? "missing") is not a media type")
            }
        } else {
            guard type == "text/vtt" else {
                return EmulatedReceiverError(
                    code: .contentType, message: "Content-Type \(fetch.contentType ?? "missing") is not text/vtt")
            }
            guard Self.isWebVTT(fetch.body) else {
                return EmulatedReceiverError(code: .notWebVTT, message: "the text track does not start with WEBVTT")
            }
        }
        return nil
    }
}

extension EmulatedReceiverFetch {
    /// Copies what a response said into the record (status, types, CORS, body).
    mutating func fill(from response: BoundedHTTPResponse, origin: String) {
        statusCode = response.status
        contentType = response.headers.first(name: "Content-Type")
        contentRange = response.headers.first(name: "Content-Range")
        contentLength = response.headers.first(name: "Content-Length").flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        acceptsRanges = response.headers[canonicalForm: "Accept-Ranges"].contains { $0.lowercased().contains("bytes") }
        body = response.body
        corsAllowed = MediaFetchCheck(origin: origin, requestedRange: nil)
            .corsAllows(response.headers[canonicalForm: "Access-Control-Allow-Origin"].map(String.init))
    }
}
