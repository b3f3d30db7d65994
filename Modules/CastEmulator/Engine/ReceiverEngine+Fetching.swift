extension ReceiverEngine {
    /// The fetches of a held media request finished at `now` (`failure` is the first that failed;
    /// `durations` what was read from the media and `seekability` how it can be sought, by URL).
    /// Runs or fails the request and answers its sender; nothing happens when the app session is gone
    /// or the request was cancelled meanwhile.
    mutating func mediaFetchCompleted(
        sessionId: String, token: Int, failure: MediaFetchFailure?, durations: [String: ProbedDuration] = [:],
        seekability: [String: MediaSeekability] = [:], now: Duration
    ) -> [ReceiverAction] {
        runTimersBeforeInput(now: now)
        guard let requester = fetchRequesters.removeValue(forKey: FetchKey(sessionId: sessionId, token: token)),
            let running = app?.address, running.sessionId == sessionId,
            let outputs = app?.media?.fetchCompleted(
                token: token, failure: failure, durations: durations, seekability: seekability, now: now)
        else { return drain() }
        exactRequestId = requester.exactRequestId
        defer { exactRequestId = nil }
        deliver(outputs, from: running, namespace: Wire.media, requester: (requester.socket, requester.sender))
        advanceMediaIfDue(now: now)
        return drain()
    }
}
