/// What the fetches of one held request found: the first failure, and the durations read from the media.
struct MediaFetchOutcome: Sendable, Hashable {
    var failure: MediaFetchFailure?
    /// By media URL.
    var durations: [String: ProbedDuration] = [:]
}

extension MediaFetcher {
    /// The most follow-up requests one media item may cost (a `moov` at the end, an Ogg tail, a variant playlist).
    static let maximumProbeRequests = 3

    /// Fetches one target; for media that passed its checks and whose sender gave no duration, reads
    /// its duration from the bytes fetched,
    /// making at most ``maximumProbeRequests`` follow-up requests (each recorded as a `.probe` fetch).
    func fetchAndProbe(
        _ target: MediaFetchPlan.Target, requestId: Int, record: @escaping @Sendable (CastReceiverFetch) async -> Void
    ) async -> CastReceiverFetch {
        var fetched = await fetch(target, requestId: requestId)
        guard target.kind == .media, target.probesDuration, fetched.succeeded else { return fetched }
        var url = target.url
        var contentType = fetched.contentType
        var data = ProbeBytes(prefix: fetched.body, totalLength: Self.totalLength(of: fetched))
        for _ in 0...Self.maximumProbeRequests {
            switch MediaDurationProbe.probe(data, contentType: contentType, url: url) {
            case .found(.seconds(let seconds)):
                fetched.duration = seconds
                return fetched
            case .found(.live):
                fetched.isLive = true
                return fetched
            case .unknown:
                return fetched
            case .needsBytes(let range):
                guard range.count <= MediaDurationProbe.followUpLimit else { return fetched }
                let more = await fetch(
                    MediaFetchPlan.Target(kind: .probe, url: url, requiresCORS: false), requestId: requestId, range: range)
                await record(more)
                guard more.succeeded, more.statusCode == 206 else { return fetched }
                data.add(more.body, at: range.lowerBound)
            case .followPlaylist(let reference):
                url = HLSPlaylistProbe.resolve(reference, against: url)
                guard MediaFetchPlan.isFetchable(url) else { return fetched }
                let variant = await fetch(
                    MediaFetchPlan.Target(kind: .probe, url: url, requiresCORS: false), requestId: requestId,
                    range: 0...(MediaDurationProbe.followUpLimit - 1))
                await record(variant)
                guard variant.succeeded else { return fetched }
                contentType = variant.contentType
                data = ProbeBytes(prefix: variant.body, totalLength: Self.totalLength(of: variant))
            }
        }
        return fetched
    }

    /// The resource's full size: the total of `Content-Range` (`bytes 0-99/1234`), else the body of a
    /// 200 response when it is shorter than what was asked for (the whole resource arrived).
    static func totalLength(of fetch: CastReceiverFetch) -> Int? {
        if let range = fetch.contentRange, let slash = range.lastIndex(of: "/") {
            let total = range[range.index(after: slash)...].trimmingCharacters(in: .whitespaces)
            if let value = Int(total), value >= 0 { return value }
        }
        if fetch.statusCode == 200, let asked = fetch.requestedRange, fetch.body.count < asked.count {
            return fetch.body.count
        }
        if fetch.statusCode == 200, let length = fetch.contentLength { return length }
        return nil
    }
}
