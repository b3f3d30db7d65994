import CastJSON

/// A LOAD, QUEUE_LOAD or QUEUE_INSERT held until the receiver has fetched what it names.
struct PendingMediaRequest: Sendable {
    var token: Int
    var type: String
    var request: RequestFields
    var requestId: Int
}

extension MediaPlayerModel {
    static let fetchingRequests: Set<String> = ["LOAD", "QUEUE_LOAD", "QUEUE_INSERT"]

    /// With media fetching on: validates the request as if it ran now; if it names `http://` content,
    /// holds it and asks for the fetches (`.fetch`), else runs it at once, exactly as without fetching.
    /// A new LOAD or QUEUE_LOAD cancels a held one (`LOAD_CANCELLED` to its sender).
    mutating func handleFetching(type: String, request: RequestFields, requestId: Int, now: Duration) -> [AppOutput] {
        // A dry run shows what the request would do; without the default duration, so that the
        // items whose sender gave no duration are the ones probed.
        var probe = self
        probe.defaultDuration = nil
        _ = probe.perform(type: type, request: request, requestId: requestId, now: now)
        let isInsert = type == "QUEUE_INSERT"
        let accepted = isInsert ? probe.nextItemId > nextItemId : probe.nextMediaSessionId > nextMediaSessionId
        let newItems = isInsert
            ? (probe.session?.items ?? []).filter { $0.itemId >= nextItemId }
            : (probe.session?.items ?? [])
        let targets = accepted && probe.session != nil ? MediaFetchPlan.targets(for: newItems) : []
        var cancelled: [AppOutput] = []
        if !isInsert, accepted { cancelled = cancelPendingLoad() }
        guard !targets.isEmpty else {
            return cancelled + perform(type: type, request: request, requestId: requestId, now: now)
        }
        let token = nextFetchToken
        nextFetchToken += 1
        let pending = PendingMediaRequest(token: token, type: type, request: request, requestId: requestId)
        if isInsert { pendingInserts[token] = pending } else { pendingLoad = pending }
        return cancelled + [.fetch(MediaFetchPlan(token: token, requestId: requestId, targets: targets))]
    }

    /// The fetches of a held request finished: runs it, or fails it like a device whose player could not
    /// load the content (LOAD_FAILED, then IDLE with idleReason ERROR; a failed insert inserts nothing).
    mutating func fetchCompleted(
        token: Int, failure: MediaFetchFailure?, durations: [String: ProbedDuration] = [:],
        seekability: [String: MediaSeekability] = [:], now: Duration
    ) -> [AppOutput] {
        let pending: PendingMediaRequest
        if let load = pendingLoad, load.token == token {
            pending = load
            pendingLoad = nil
        } else if let insert = pendingInserts.removeValue(forKey: token) {
            pending = insert
        } else {
            return []
        }
        guard let failure else {
            probedDurations = durations
            probedSeekability = seekability
            defer {
                probedDurations = [:]
                probedSeekability = [:]
            }
            return perform(type: pending.type, request: pending.request, requestId: pending.requestId, now: now)
        }
        if pending.type == "QUEUE_INSERT" {
            return [.reply(["type": "LOAD_FAILED", "requestId": JSONValue(pending.requestId),
                            "detailedErrorCode": JSONValue(failure.detailedErrorCode)])]
        }
        injectedLoadFailure = failure
        defer { injectedLoadFailure = nil }
        return perform(type: pending.type, request: pending.request, requestId: pending.requestId, now: now)
    }

    private mutating func cancelPendingLoad() -> [AppOutput] {
        guard let old = pendingLoad else { return [] }
        pendingLoad = nil
        return [.pendingReply(token: old.token, ["type": "LOAD_CANCELLED", "requestId": JSONValue(old.requestId)])]
    }
}
