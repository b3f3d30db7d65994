import CastDeviceProfiles

/// What the fetches of one held request found: the first failure, and what was read from the media.
struct MediaFetchOutcome: Sendable, Hashable {
    var failure: MediaFetchFailure?
    /// By media URL.
    var durations: [String: ProbedDuration] = [:]
    /// How each media item can be sought, by media URL.
    var seekability: [String: MediaSeekability] = [:]
}

extension MediaFetcher {
    /// The most follow-up requests one media item may cost (a `moov` at the end, an Ogg tail, a
    /// second track's header, an HLS variant playlist and its first segment).
    static let maximumProbeRequests = 6

    /// Fetches one target; for media that passed its checks, inspects it like the device's player:
    /// its duration when the sender gave none (and for a manifest), its codecs when the device
    /// profile decides what plays, and how it can be sought, making at most
    /// ``maximumProbeRequests`` follow-up requests (each recorded as a `.probe` fetch). Media the
    /// profile cannot play fails the fetch with ``EmulatedReceiverError/Code/unsupportedMedia``.
    func fetchAndProbe(
        _ target: MediaFetchPlan.Target, requestId: Int, record: @escaping @Sendable (EmulatedReceiverFetch) async -> Void
    ) async -> EmulatedReceiverFetch {
        var fetched = await fetch(target, requestId: requestId)
        guard target.kind == .media, fetched.succeeded else { return fetched }
        let wantsCodecs = !profile.acceptsEverything
        var inspection = MediaInspection(
            url: target.url, first: Self.inspectionResponse(fetched), declaredContentType: target.contentType,
            wantsDuration: target.probesDuration, wantsCodecs: wantsCodecs, segmentPrefix: settings.mediaPrefixLength,
            maximumRequests: Self.maximumProbeRequests)
        for _ in 0...Self.maximumProbeRequests {
            switch inspection.next() {
            case .fetch(let url, let range):
                let more = await fetch(MediaFetchPlan.Target(kind: .probe, url: url, requiresCORS: false), requestId: requestId, range: range)
                await record(more)
                inspection.received(more.succeeded ? Self.inspectionResponse(more) : nil, for: url, range: range)
            case .finished(let probed):
                apply(probed, to: &fetched, probesDuration: target.probesDuration, decides: wantsCodecs)
                return fetched
            }
        }
        return fetched
    }

    /// Copies what the inspection found into the record, and decides with the device profile.
    private func apply(_ probed: ProbedMedia, to fetched: inout EmulatedReceiverFetch, probesDuration: Bool, decides: Bool) {
        switch probed.duration {
        case .seconds(let seconds) where probesDuration: fetched.duration = seconds
        case .live: fetched.isLive = true
        default: break
        }
        fetched.seekability = probed.seekability
        guard decides else { return }
        let decision = probed.alternatives.isEmpty
            ? probed.description.map { ($0, profile.support(for: $0, hdmiPassthrough: hdmiPassthrough)) }
            : profile.support(forAlternatives: probed.alternatives, hdmiPassthrough: hdmiPassthrough)
        guard let (media, support) = decision else { return }
        fetched.media = media
        if let reason = support.refusalReason {
            fetched.error = EmulatedReceiverError(code: .unsupportedMedia, message: reason)
        }
    }

    /// A fetch record as the inspection reads it.
    static func inspectionResponse(_ fetch: EmulatedReceiverFetch) -> MediaInspection.Response {
        MediaInspection.Response(
            statusCode: fetch.statusCode, contentType: fetch.contentType, body: fetch.body, totalLength: totalLength(of: fetch),
            acceptsRanges: fetch.statusCode == 206 || fetch.acceptsRanges)
    }

    /// The resource's full size: the total of `Content-Range` (`bytes 0-99/1234`), else the body of a
    /// 200 response when it is shorter than what was asked for (the whole resource arrived).
    static func totalLength(of fetch: EmulatedReceiverFetch) -> Int? {
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
