public import CastJSON
public import CastMediaMetadata

extension CastMediaChannel {
    /// Loads media (LOAD) and returns the first status of the new media session.
    /// - Parameters:
    ///   - media: what to play.
    ///   - autoplay: start playing once loaded (default true).
    ///   - startTime: where to start, in seconds (omit for a live stream's live edge).
    ///   - activeTrackIds: the tracks to activate.
    ///   - playbackRate: the initial rate.
    ///   - credentials: user credentials for the receiver app.
    ///   - credentialsType: the type of `credentials`.
    ///   - queueData: a queue to load with the media.
    ///   - customData: application data.
    /// - Throws: ``CastMediaError``: `loadFailed` (with ``CastMediaError/detailedErrorCode``), `loadCancelled`,
    ///   `invalidRequest`, `messageTooLarge` (nothing sent), `timeout`, `connectionLost`, `notConnected`.
    @discardableResult
    public func load(
        _ media: MediaInformation, autoplay: Bool = true, startTime: Double? = nil, activeTrackIds: [Int]? = nil,
        playbackRate: Double? = nil, credentials: String? = nil, credentialsType: String? = nil,
        queueData: QueueData? = nil, customData: CastCustomData? = nil
    ) async throws(CastMediaError) -> MediaStatus {
        var payload: JSONValue = ["type": "LOAD", "media": try Self.json(media), "autoplay": .bool(autoplay)]
        payload["currentTime"] = startTime.map(JSONValue.number)
        payload["activeTrackIds"] = activeTrackIds.map { .array($0.map { .number(Double($0)) }) }
        payload["playbackRate"] = playbackRate.map(JSONValue.number)
        payload["credentials"] = credentials.map(JSONValue.string)
        payload["credentialsType"] = credentialsType.map(JSONValue.string)
        if let queueData { payload["queueData"] = try Self.json(queueData) }
        payload["customData"] = customData?.json
        return try await requiredStatusRequest(payload, needsSession: false)
    }

    /// Resumes playback (PLAY).
    @discardableResult
    public func play(customData: CastCustomData? = nil) async throws(CastMediaError) -> MediaStatus {
        try await requiredStatusRequest(Self.command("PLAY", customData: customData))
    }

    /// Pauses playback (PAUSE).
    @discardableResult
    public func pause(customData: CastCustomData? = nil) async throws(CastMediaError) -> MediaStatus {
        try await requiredStatusRequest(Self.command("PAUSE", customData: customData))
    }

    /// Stops playback and ends the media session (STOP). Returns the final status, or `nil` when the
    /// receiver reports no session any more.
    @discardableResult
    public func stop(customData: CastCustomData? = nil) async throws(CastMediaError) -> MediaStatus? {
        try await statusRequest(Self.command("STOP", customData: customData), needsSession: true)
    }

    /// Seeks to a position, in seconds (SEEK `currentTime`).
    /// - Parameters:
    ///   - time: the position, in seconds.
    ///   - resumeState: play or pause after seeking; `nil` keeps the current state.
    ///   - customData: application data.
    @discardableResult
    public func seek(to time: Double, resumeState: ResumeState? = nil, customData: CastCustomData? = nil)
        async throws(CastMediaError) -> MediaStatus
    {
        try await requiredStatusRequest(Self.seekCommand(to: time, resumeState: resumeState, customData: customData))
    }

    /// Seeks by an offset from the current position, in seconds (SEEK `relativeTime`).
    @discardableResult
    public func seek(by offset: Double, resumeState: ResumeState? = nil, customData: CastCustomData? = nil)
        async throws(CastMediaError) -> MediaStatus
    {
        var payload = Self.command("SEEK", customData: customData)
        payload["relativeTime"] = .number(offset)
        if let resumeState { payload["resumeState"] = .string(resumeState.rawValue) }
        return try await requiredStatusRequest(payload)
    }

    /// Sets the playback rate (SET_PLAYBACK_RATE), such as 0.5 or 2.
    /// - Throws: ``CastMediaError`` `invalidRequest` without sending when the rate is not positive.
    @discardableResult
    public func setPlaybackRate(_ rate: Double, customData: CastCustomData? = nil) async throws(CastMediaError) -> MediaStatus {
        guard rate > 0, rate.isFinite else {
            throw CastMediaError(code: .invalidRequest, message: "A playback rate must be positive, not \(rate)",
                                 reason: .invalidParams)
        }
        var payload = Self.command("SET_PLAYBACK_RATE", customData: customData)
        payload["playbackRate"] = .number(rate)
        return try await requiredStatusRequest(payload)
    }

    /// Activates tracks (EDIT_TRACKS_INFO); an empty array turns every track off.
    @discardableResult
    public func setActiveTracks(_ trackIds: [Int], customData: CastCustomData? = nil) async throws(CastMediaError) -> MediaStatus {
        var payload = Self.command("EDIT_TRACKS_INFO", customData: customData)
        payload["activeTrackIds"] = .array(trackIds.map { .number(Double($0)) })
        return try await requiredStatusRequest(payload)
    }

    /// Applies a text-track style (EDIT_TRACKS_INFO `textTrackStyle`); the active tracks are unchanged.
    @discardableResult
    public func setTextTrackStyle(_ style: TextTrackStyle, customData: CastCustomData? = nil) async throws(CastMediaError) -> MediaStatus {
        var payload = Self.command("EDIT_TRACKS_INFO", customData: customData)
        payload["textTrackStyle"] = try Self.json(style)
        return try await requiredStatusRequest(payload)
    }

    /// Sets the stream volume, 0–1 (SET_VOLUME on the media namespace; not the device volume).
    @discardableResult
    public func setStreamVolume(_ level: Double, customData: CastCustomData? = nil) async throws(CastMediaError) -> MediaStatus {
        guard (0...1).contains(level) else {
            throw CastMediaError(code: .invalidRequest, message: "A volume level is between 0 and 1, not \(level)",
                                 reason: .invalidParams)
        }
        var payload = Self.command("SET_VOLUME", customData: customData)
        payload["volume"] = ["level": .number(level)]
        return try await requiredStatusRequest(payload)
    }

    /// Mutes or unmutes the stream (SET_VOLUME `muted`).
    @discardableResult
    public func setStreamMuted(_ muted: Bool, customData: CastCustomData? = nil) async throws(CastMediaError) -> MediaStatus {
        var payload = Self.command("SET_VOLUME", customData: customData)
        payload["volume"] = ["muted": .bool(muted)]
        return try await requiredStatusRequest(payload)
    }

    /// Asks for the status (GET_STATUS); `nil` when there is no media session.
    /// - Parameter withoutMetadata: ask the receiver to leave metadata out (option NO_METADATA).
    @discardableResult
    public func getStatus(withoutMetadata: Bool = false) async throws(CastMediaError) -> MediaStatus? {
        var payload: JSONValue = ["type": "GET_STATUS"]
        if withoutMetadata { payload["options"] = 1 }
        if let sessionId = mediaSessionId { payload["mediaSessionId"] = .number(Double(sessionId)) }
        return try await statusRequest(payload, needsSession: false)
    }

    // MARK: - Helpers

    /// The SEEK that ``seek(to:resumeState:customData:)`` sends, before the channel adds `mediaSessionId`
    /// and the connection its `requestId` (the round-trip benchmark's instruction counts build it here too).
    package static func seekCommand(to time: Double, resumeState: ResumeState?, customData: CastCustomData?) -> JSONValue {
        var payload = command("SEEK", customData: customData)
        payload["currentTime"] = .number(time)
        if let resumeState { payload["resumeState"] = .string(resumeState.rawValue) }
        return payload
    }

    static func command(_ type: String, customData: CastCustomData?) -> JSONValue {
        // Room for what a command adds (its arguments, `mediaSessionId`) in one allocation: a literal
        // of one member has room for one, and grew twice on the way to the wire. A copy of an empty
        // dictionary of that size, made when the first member is set: `Dictionary(minimumCapacity:)` is
        // not specialized for callers and looked up the storage's type metadata at run time on every
        // call (the copy saves about 400 instructions a command, callgrind `seek-work --side sender`).
        var members = commandMembers
        members["type"] = .string(type)
        if let customData { members["customData"] = customData.json }
        return .object(members)
    }

    /// An empty dictionary with room for a command's members, copied by ``command(_:customData:)``.
    private static let commandMembers = [String: JSONValue](minimumCapacity: 6)

    /// Encodes a model value as JSON.
    public static func json(_ value: some Encodable) throws(CastMediaError) -> JSONValue {
        do {
            return try JSONValue(encoding: value)
        } catch {
            throw CastMediaError(code: .invalidRequest, message: "Cannot encode \(type(of: value)): \(error.message)",
                                 reason: .invalidParams, cause: error)
        }
    }
}
