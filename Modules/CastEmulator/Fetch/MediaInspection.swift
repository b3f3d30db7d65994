import CastDeviceProfiles

/// How a device lets a loaded item be sought, from what its server and manifest said.
enum MediaSeekability: Sendable, Hashable {
    /// Anywhere: the server serves byte ranges, or an HLS/DASH stream with an end.
    case full
    /// Only back to the start: a progressive file from a server that serves no byte ranges (a 200
    /// without `Accept-Ranges: bytes`). Chrome's player makes such a "streaming" source's seekable
    /// range `[0, 0]` ("a special exception for seeks to zero for streaming sources with a finite
    /// duration; this allows looping to work", `WebMediaPlayerImpl::Seekable`), and the HTML seek
    /// algorithm moves a seek outside the seekable ranges to the nearest position in them: 0.
    case startOnly
    /// A live stream whose playlist (or manifest) holds this many seconds: a seek lands within that
    /// window behind the live edge, clamped to it.
    case liveWindow(Double)
    /// A live stream whose window is unknown: its seekable ranges are empty and a seek is ignored.
    case none
}

/// What the receiver's player learned about one media resource from the bytes it fetched.
struct ProbedMedia: Sendable, Hashable {
    /// The duration, when a probe found it (only looked for when asked, or for a manifest).
    var duration: ProbedDuration?
    /// The container and streams, when the codec probes (or a `codecs` parameter) said.
    var description: MediaDescription?
    /// An adaptive stream's alternatives (HLS variants, DASH representations), when it has several.
    var alternatives: [MediaDescription] = []
    /// How the item can be sought.
    var seekability: MediaSeekability = .full
}

/// Inspects one media resource the way a receiver's player opens it, as a pure state machine: the
/// fetcher feeds it the first response, asks it for the next step, fetches what it names (a range of
/// the same resource, an HLS variant or segment) and feeds that back, until it has finished.
///
/// Two jobs share the fetched bytes: the duration (``MediaDurationProbe``; run when asked and for
/// every manifest, whose live playlist decides seeking) and the codecs (``MediaCodecProbe``; run
/// when the device profile decides what plays). Together they make at most `maximumRequests`
/// requests, never the same range twice.
struct MediaInspection: Sendable {
    /// A response as the inspection reads it.
    struct Response: Sendable, Hashable {
        var statusCode: Int?
        var contentType: String?
        var body: [UInt8]
        /// The resource's full size, when the response said.
        var totalLength: Int?
        /// Whether the response offers byte ranges (a 206, or `Accept-Ranges: bytes`).
        var acceptsRanges: Bool
    }

    /// What to do next.
    enum Step: Sendable, Hashable {
        /// Fetch `range` of `url` and hand the response to ``received(_:for:range:)``.
        case fetch(url: String, range: ClosedRange<Int>)
        /// Done.
        case finished(ProbedMedia)
    }

    private enum Job: Sendable, Hashable {
        case pending(url: String, segment: Bool)
        case done
    }

    private struct Resource: Sendable {
        var contentType: String?
        var bytes: ProbeBytes
    }

    private let url: String
    private let first: Response
    private let declaredContentType: String?
    private let isManifest: Bool
    private let segmentPrefix: Int
    private var resources: [String: Resource] = [:]
    private var durationJob: Job
    private var codecJob: Job
    private var requests = 0
    private let maximumRequests: Int
    private var asked: Set<String> = []
    private var result = ProbedMedia()
    /// The playlist or manifest whose text gave the duration (for a live stream's window).
    private var durationSource: String?

    /// - Parameters:
    ///   - url: the media's URL.
    ///   - first: the response to the first fetch (the media's prefix).
    ///   - declaredContentType: the `contentType` the sender gave in the LOAD.
    ///   - wantsDuration: whether to read the duration (the sender gave none).
    ///   - wantsCodecs: whether to read the codecs (the device profile decides what plays).
    ///   - segmentPrefix: how many bytes of an HLS segment to fetch.
    ///   - maximumRequests: the most follow-up requests.
    init(
        url: String, first: Response, declaredContentType: String?, wantsDuration: Bool, wantsCodecs: Bool,
        segmentPrefix: Int = 64 * 1024, maximumRequests: Int = 6
    ) {
        self.url = url
        self.first = first
        self.declaredContentType = declaredContentType
        self.segmentPrefix = max(1024, segmentPrefix)
        self.maximumRequests = maximumRequests
        let type = MediaFetchCheck.essence(first.contentType) ?? ""
        let path = url.split(separator: "?").first.map(String.init)?.lowercased() ?? ""
        isManifest = HLSPlaylistProbe.looksLikePlaylist(first.body) || DASHManifestProbe.looksLikeManifest(first.body)
            || type.contains("mpegurl") || type == "application/dash+xml" || path.hasSuffix(".m3u8") || path.hasSuffix(".mpd")
        resources[url] = Resource(contentType: first.contentType, bytes: ProbeBytes(prefix: first.body, totalLength: first.totalLength))
        durationJob = wantsDuration || isManifest ? .pending(url: url, segment: false) : .done
        codecJob = wantsCodecs ? .pending(url: url, segment: false) : .done
    }

    /// The next step: a fetch, or the finished inspection.
    mutating func next() -> Step {
        for _ in 0..<16 {
            if case .pending(let url, _) = durationJob {
                if let step = advanceDuration(url) { return step }
                continue
            }
            if case .pending(let url, let segment) = codecJob {
                if let step = advanceCodecs(url, segment: segment) { return step }
                continue
            }
            break
        }
        return .finished(finish())
    }

    /// Hands over the response to the fetch of `range` of `url` (`nil` when the fetch failed).
    mutating func received(_ response: Response?, for url: String, range: ClosedRange<Int>) {
        guard let response, let status = response.statusCode, status == 200 || status == 206 else {
            stop(waitingFor: url)
            return
        }
        if var resource = resources[url] {
            guard status == 206 else {
                stop(waitingFor: url)
                return
            }
            resource.bytes.add(response.body, at: range.lowerBound)
            resources[url] = resource
        } else {
            resources[url] = Resource(
                contentType: response.contentType, bytes: ProbeBytes(prefix: response.body, totalLength: response.totalLength))
        }
    }

    // MARK: Jobs

    private mutating func advanceDuration(_ url: String) -> Step? {
        guard let resource = resources[url] else { return request(url, 0...(MediaDurationProbe.followUpLimit - 1)) }
        switch MediaDurationProbe.probe(resource.bytes, contentType: resource.contentType, url: url) {
        case .found(let duration):
            result.duration = duration
            durationSource = url
            durationJob = .done
        case .unknown:
            durationJob = .done
        case .needsBytes(let range):
            return request(url, range)
        case .followPlaylist(let reference):
            let next = HLSPlaylistProbe.resolve(reference, against: url)
            durationJob = MediaFetchPlan.isFetchable(next) ? .pending(url: next, segment: false) : .done
        }
        return nil
    }

    private mutating func advanceCodecs(_ url: String, segment: Bool) -> Step? {
        guard let resource = resources[url] else {
            return request(url, 0...((segment ? segmentPrefix : MediaDurationProbe.followUpLimit) - 1))
        }
        switch MediaCodecProbe.probe(resource.bytes, contentType: resource.contentType, url: url, segment: segment) {
        case .found(let media):
            result.description = media
            codecJob = .done
        case .alternatives(let list):
            result.alternatives = list
            result.description = list.first
            codecJob = .done
        case .unknown:
            codecJob = .done
        case .needsBytes(let range):
            return request(url, range)
        case .follow(let reference, let kind):
            let next = HLSPlaylistProbe.resolve(reference, against: url)
            codecJob = MediaFetchPlan.isFetchable(next) ? .pending(url: next, segment: kind == .segment) : .done
        }
        return nil
    }

    /// Asks for `range` of `url` once, within the request budget; otherwise ends the jobs waiting for it.
    private mutating func request(_ url: String, _ range: ClosedRange<Int>) -> Step? {
        let key = "\(range.lowerBound) \(url)"
        guard requests < maximumRequests, range.count <= MediaDurationProbe.followUpLimit, !asked.contains(key) else {
            stop(waitingFor: url)
            return nil
        }
        asked.insert(key)
        requests += 1
        return .fetch(url: url, range: range)
    }

    private mutating func stop(waitingFor url: String) {
        if case .pending(let pending, _) = durationJob, pending == url { durationJob = .done }
        if case .pending(let pending, _) = codecJob, pending == url { codecJob = .done }
    }

    private func finish() -> ProbedMedia {
        var media = result
        if media.description == nil, media.alternatives.isEmpty {
            // Bytes no probe read: what a `codecs` parameter says, the server's, else the sender's.
            media.description = [first.contentType, declaredContentType].lazy.compactMap { $0 }
                .compactMap(MediaCodecProbe.describe(contentType:)).first
        }
        media.seekability = seekability()
        return media
    }

    private func seekability() -> MediaSeekability {
        guard isManifest else { return first.acceptsRanges ? .full : .startOnly }
        guard result.duration == .live else { return .full }
        guard let source = durationSource, let resource = resources[source] else { return .none }
        var bytes = resource.bytes.prefix
        if let total = resource.bytes.totalLength, total > bytes.count,
            let rest = resource.bytes.bytes(at: bytes.count, count: min(total, MediaDurationProbe.followUpLimit) - bytes.count)
        {
            bytes += rest
        }
        let text = String(decoding: bytes, as: UTF8.self)
        let window = HLSPlaylistProbe.looksLikePlaylist(bytes) ? HLSPlaylistProbe.window(text) : DASHManifestProbe.timeShiftBufferDepth(text)
        guard let window, window > 0 else { return .none }
        return .liveWindow(window)
    }

}

extension HLSPlaylistProbe {
    /// The seconds a media playlist holds (the sum of its `#EXTINF`s): a live playlist's window.
    static func window(_ text: String) -> Double? {
        var total = 0.0
        var lines = 0
        for raw in text.split(omittingEmptySubsequences: true, whereSeparator: { $0 == "\n" || $0 == "\r" }) {
            lines += 1
            if lines > maximumLines { break }
            let line = raw.trimmingCharacters(in: .whitespaces)
            guard line.hasPrefix("#EXTINF:") else { continue }
            let value = line.dropFirst("#EXTINF:".count).prefix { $0 != "," }
            guard let seconds = Double(value.trimmingCharacters(in: .whitespaces)), seconds.isFinite, seconds >= 0 else { continue }
            total += seconds
        }
        return total > 0 && total.isFinite ? total : nil
    }
}

extension DASHManifestProbe {
    /// A dynamic manifest's `timeShiftBufferDepth` in seconds: a live stream's window.
    static func timeShiftBufferDepth(_ text: String) -> Double? {
        var scanner = StartTagScanner(text: text)
        var tags = 0
        while tags < maximumTags, let (name, attributes) = scanner.next() {
            tags += 1
            let local = name.split(separator: ":").last.map(String.init) ?? name
            if local == "MPD" { return attributes["timeShiftBufferDepth"].flatMap(isoSeconds) }
        }
        return nil
    }
}
