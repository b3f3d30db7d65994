extension ReceiverEngine {
    /// The fetches of a held media request finished at `now` (`failure` is the first that failed;
    /// `durations` what was read from the media, by URL).
    /// Runs or fails the request and answers its sender; nothing happens when the app session is gone
    /// or the request was cancelled meanwhile.
    mutating func mediaFetchCompleted(
        sessionId: String, token: Int, failure: MediaFetchFailure?, durations: [String: ProbedDuration] = [:], now: Duration
    ) -> [ReceiverAction] {
        runTimersBeforeInput(now: now)
        guard let requester = fetchRequesters.removeValue(forKey: FetchKey(sessionId: sessionId, token: token)),
            var running = app, running.sessionId == sessionId, var media = running.media
        else { return drain() }
        let outputs = media.fetchCompleted(token: token, failure: failure, durations: durations, now: now)
        running.media = media
        app = running
        deliver(outputs, app: running, namespace: Wire.media, requester: requester)
        advanceMediaIfDue(now: now)
        return drain()
    }
}
