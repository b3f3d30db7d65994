/// A kind of media selection (replaces `AVMediaCharacteristic`).
public enum CastMediaCharacteristic: String, Sendable, Hashable, Codable, CaseIterable {
    /// Audio tracks.
    case audible
    /// Text tracks: subtitles and captions.
    case legible
}

/// A choice among a characteristic's tracks.
public enum CastMediaSelectionOption: Sendable, Hashable {
    /// No track (legible only).
    case off
    /// A track.
    case on(CastMediaTrackInfo)

    /// A name to show: the track's name, else its language, else its id.
    public var displayName: String {
        switch self {
        case .off: "Off"
        case .on(let track): track.name ?? track.languageCode ?? "Track \(track.id)"
        }
    }
}

/// A track as the player shows it.
public struct CastMediaTrackInfo: Sendable, Hashable, Identifiable {
    /// The receiver's track id.
    public var id: Int
    /// The track's name.
    public var name: String?
    /// The language (RFC 5646).
    public var languageCode: String?
    /// The characteristic the track belongs to.
    public var characteristic: CastMediaCharacteristic

    /// Creates a track description.
    public init(id: Int, name: String? = nil, languageCode: String? = nil, characteristic: CastMediaCharacteristic) {
        self.id = id
        self.name = name
        self.languageCode = languageCode
        self.characteristic = characteristic
    }
}

/// Preferred languages for a characteristic, applied to the first content once its tracks are known.
public enum CastMediaSelectionPreference: Sendable, Hashable {
    /// No track (legible only; audible falls back to the receiver's default).
    case off
    /// The first track matching one of these languages, in order.
    case on(languages: [String])

    /// The first track matching one of `languages`.
    public static func on(languages: String...) -> Self { .on(languages: languages) }
}
