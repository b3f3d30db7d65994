/// What the Default Media Receiver must fetch before a request takes effect (media fetching on).
struct MediaFetchPlan: Sendable, Hashable {
    /// One URL to fetch.
    struct Target: Sendable, Hashable {
        var kind: EmulatedReceiverFetch.Kind
        var url: String
        /// Whether the response must carry CORS headers admitting the receiver's origin.
        var requiresCORS: Bool
        /// Whether the media's duration must be read from the fetched bytes (the sender gave none).
        var probesDuration = false
        /// The `contentType` the sender gave the media (its `codecs` parameter describes media whose
        /// bytes no probe reads).
        var contentType: String?
    }

    /// Identifies the held request within its app session.
    var token: Int
    /// The app session the request belongs to (filled in by the engine).
    var sessionId = ""
    /// The `requestId` of the held request.
    var requestId: Int
    var targets: [Target]

    /// What a receiver fetches for these items: each `http://` media (CORS required when it has tracks)
    /// and each `http://` text track, once per URL, in item order.
    static func targets(for items: [MediaQueueItem]) -> [Target] {
        var targets: [Target] = []
        var seen: Set<Target> = []
        func add(_ target: Target) {
            if seen.insert(target).inserted { targets.append(target) }
        }
        for item in items {
            if isFetchable(item.url) {
                add(Target(
                    kind: .media, url: item.url, requiresCORS: !item.tracks.isEmpty, probesDuration: item.needsDuration,
                    contentType: item.media["contentType"]?.stringValue))
            }
            for url in item.textTrackURLs where isFetchable(url) {
                add(Target(kind: .textTrack, url: url, requiresCORS: true))
            }
        }
        return targets
    }

    /// Only plain `http://` URLs are fetched.
    static func isFetchable(_ url: String) -> Bool { url.lowercased().hasPrefix("http://") }
}

/// The first fetch of a plan that failed: the URL and the `detailedErrorCode` of the LOAD_FAILED.
struct MediaFetchFailure: Sendable, Hashable {
    var url: String
    var detailedErrorCode: Int
}

extension MediaQueueItem {
    /// Whether the sender left the duration of BUFFERED media open (absent, `null` or negative).
    var needsDuration: Bool {
        let given = media["duration"].flatMap(Lenient.number).map { $0 >= 0 } ?? false
        let live = media["streamType"]?.stringValue?.uppercased() == "LIVE"
        return !given && !live
    }

    /// The `trackContentId` of each TEXT track.
    var textTrackURLs: [String] {
        tracks.filter { $0["type"]?.stringValue == "TEXT" }.compactMap { $0["trackContentId"]?.stringValue }
    }
}
