public import CastIntents
public import Castor

/// What a Cast device plays for the app's media items: the app's half of ``CastIntentPlayer``.
///
/// An intent names content by the app's identifiers (`MediaItem`); only the app knows which URL,
/// MIME type and metadata stand behind an identifier — Audio Cast maps an episode identifier to the
/// episode's enclosure URL. The provider may also remember where the user stopped in an item, so
/// that a request with `resumePlayback` starts there.
public protocol MediaAssetProvider: Sendable {
    /// The asset to load for `item`, or `nil` when the app has nothing playable for it (the item is
    /// then left out of the queue and reported in ``IntentPlayback/unavailableItemIdentifiers``).
    /// - Throws: any error when the lookup itself fails; the play request then fails with
    ///   `PlayMediaFailure.Code.assetUnavailable`.
    func asset(for item: MediaItem) async throws -> CastAsset?

    /// The stored playback position of `item`, if the app keeps one. Asked only for the item
    /// playback starts with, and only when the request resumes playback.
    func resumePosition(for item: MediaItem) async -> Duration?
}

extension MediaAssetProvider {
    /// No stored positions: resumed items start at their beginning.
    public func resumePosition(for item: MediaItem) async -> Duration? { nil }
}

/// A ``MediaAssetProvider`` made of two closures.
///
/// ```swift
/// let assets = MediaAssetMapping { item in
///     library.episode(item.identifier).map { .url($0.enclosure, configuration: .init(mimeType: $0.mimeType)) }
/// } resumePosition: { item in
///     library.position(of: item.identifier)
/// }
/// ```
public struct MediaAssetMapping: MediaAssetProvider {
    /// Finds the asset of an item; `nil` when there is none.
    public typealias AssetLookup = @Sendable (_ item: MediaItem) async throws -> CastAsset?
    /// Finds the stored position of an item; `nil` when there is none.
    public typealias PositionLookup = @Sendable (_ item: MediaItem) async -> Duration?

    private let assetLookup: AssetLookup
    private let positionLookup: PositionLookup

    /// Creates a mapping.
    /// - Parameters:
    ///   - asset: finds the asset of an item.
    ///   - resumePosition: finds the stored position of an item (by default: none).
    public init(asset: @escaping AssetLookup, resumePosition: @escaping PositionLookup = { _ in nil }) {
        assetLookup = asset
        positionLookup = resumePosition
    }

    /// Calls the asset closure.
    public func asset(for item: MediaItem) async throws -> CastAsset? { try await assetLookup(item) }

    /// Calls the position closure.
    public func resumePosition(for item: MediaItem) async -> Duration? { await positionLookup(item) }
}
