extension EmulatedReceiver {
    /// Every fetch the receiver made so far, in the order they completed (empty unless
    /// ``EmulatedReceiverConfiguration/mediaFetching`` is on).
    public var fetches: [EmulatedReceiverFetch] { fetchLog }

    /// The fetches so far, then each new one as it completes; the stream ends when the receiver stops.
    ///
    /// Each call returns an independent stream, so several observers can follow the same receiver.
    public func fetchEvents() -> AsyncStream<EmulatedReceiverFetch> {
        let (stream, continuation) = AsyncStream.makeStream(of: EmulatedReceiverFetch.self)
        for fetch in fetchLog { continuation.yield(fetch) }
        guard phase != .stopped else {
            continuation.finish()
            return stream
        }
        let id = nextFetchId
        nextFetchId += 1
        fetchSubscribers[id] = continuation
        continuation.onTermination = { [weak self] _ in
            Task { await self?.unsubscribe(id) }
        }
        return stream
    }

    private func unsubscribe(_ id: Int) {
        fetchSubscribers[id] = nil
    }

    /// Runs the fetches of a held media request in a task, then reports back to the engine.
    func startFetching(_ plan: MediaFetchPlan) {
        guard let fetcher, phase != .stopped else { return }
        let id = nextFetchId
        nextFetchId += 1
        fetchTasks[id] = Task { [weak self] in
            let outcome = await fetcher.run(plan) { [weak self] fetch in await self?.record(fetch) }
            await self?.fetchFinished(plan, outcome: outcome, task: id)
        }
    }

    private func record(_ fetch: EmulatedReceiverFetch) {
        guard phase != .stopped else { return }
        fetchLog.append(fetch)
        if fetch.succeeded {
            logger.info("fetched", metadata: ["fetch": "\(fetch)"])
        } else {
            logger.notice("fetch failed", metadata: ["fetch": "\(fetch)"])
        }
        for continuation in fetchSubscribers.values { continuation.yield(fetch) }
    }

    private func fetchFinished(_ plan: MediaFetchPlan, outcome: MediaFetchOutcome, task: Int) {
        fetchTasks[task] = nil
        guard phase != .stopped else { return }
        let before = engine.violationCount
        perform(engine.mediaFetchCompleted(
            sessionId: plan.sessionId, token: plan.token, failure: outcome.failure, durations: outcome.durations,
            seekability: outcome.seekability, now: clock.elapsed()))
        logNewViolations(since: before)
        rearm()
        refreshAdvertisement()
    }

    /// Cancels the fetches in flight and ends every fetch stream.
    func stopFetching() {
        for task in fetchTasks.values { task.cancel() }
        fetchTasks = [:]
        for continuation in fetchSubscribers.values { continuation.finish() }
        fetchSubscribers = [:]
    }
}
