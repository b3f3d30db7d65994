import CastJSON

/// The end of a MEDIA_STATUS text as ``MediaPlayerModel`` wrote it, and everything it was written from.
///
/// A media session's status is sorted by key, so everything after `currentTime` (custom data, the
/// items around the current one, the media, the ids, the rate, the player state, the queue data, the
/// repeat mode, the supported commands and the stream volume, then the end of the message) does not
/// depend on the time. A receiver sends a status for every command, and a SEEK, PAUSE or PLAY leaves
/// all of it but the player state as it was: the next status splices this text instead of writing it
/// again, when ``matches(_:supportedCommands:volumeLevel:isMuted:)`` says nothing it came from changed.
///
/// The item and media texts are compared as arrays: an unchanged item still holds the very buffer
/// kept here, which compares equal at once; a changed item has a new text, compared byte by byte.
struct StatusTail: Sendable {
    /// The text: the members after `currentTime` (starting with their comma), `}]`, the type and `}`.
    var text: [UInt8]
    var customData: JSONValue?
    var itemTexts: [[UInt8]]
    var mediaText: [UInt8]
    var mediaSessionId: Int
    var playbackRate: Double
    var playerState: String
    var preloadedItemId: Int?
    var queueData: [String: JSONValue]?
    var repeatMode: RepeatMode
    var supportedCommands: Int
    var volumeLevel: Double
    var isMuted: Bool

    init(text: [UInt8], session: MediaSessionState, supportedCommands: Int, volumeLevel: Double, isMuted: Bool) {
        self.text = text
        customData = session.customData
        let index = session.currentIndex
        itemTexts = session.items[session.statusWindow(around: index)].map(\.text)
        mediaText = session.items[index].mediaText
        mediaSessionId = session.mediaSessionId
        playbackRate = session.playbackRate
        playerState = session.playerState
        preloadedItemId = session.preloadedItemId
        queueData = session.queueData
        repeatMode = session.repeatMode
        self.supportedCommands = supportedCommands
        self.volumeLevel = volumeLevel
        self.isMuted = isMuted
    }

    /// Whether this text is what the tail of `session`'s status would be now.
    func matches(_ session: MediaSessionState, supportedCommands: Int, volumeLevel: Double, isMuted: Bool) -> Bool {
        // The cheap members first: most changes are caught before any text is compared.
        guard mediaSessionId == session.mediaSessionId, playbackRate == session.playbackRate,
            playerState == session.playerState, preloadedItemId == session.preloadedItemId,
            repeatMode == session.repeatMode, self.supportedCommands == supportedCommands,
            self.volumeLevel == volumeLevel, self.isMuted == isMuted
        else { return false }
        let index = session.currentIndex
        let window = session.statusWindow(around: index)
        guard itemTexts.count == window.count else { return false }
        for (kept, item) in zip(itemTexts, session.items[window]) where kept != item.text { return false }
        // Custom and queue data are compared as values, and `String ==` holds canonically equivalent
        // spellings equal ("é" and "e" + U+0301) that are written as different bytes. That is sound
        // because both are set only when a session starts, and a new session has a new id (compared
        // above); a change that lets them change within a session must compare their text instead.
        return mediaText == session.items[index].mediaText && customData == session.customData
            && queueData == session.queueData
    }
}
