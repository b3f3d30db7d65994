import Foundation

/// A store of media-intent donations, suggestions and prediction modes.
///
/// The Linux counterpart of what SiriKit keeps for an app: `INInteraction.donate`,
/// `INInteraction.delete(with:)`, and `INUpcomingMediaManager`'s suggested intents and
/// prediction modes — plus the queries a system needs to offer content back to the user.
///
/// Two implementations behave identically (the same test suite runs against both):
/// ``SQLiteIntentStore`` (durable, on disk) and ``InMemoryIntentStore`` (for tests of other modules).
///
/// ## Ordering rules
/// - "Most recent" orders by ``Interaction/date`` descending, then by donation order descending
///   (of two donations with the same date, the later donated comes first).
/// - Deletions report identifiers in donation order.
///
/// ## Changes
/// Every successful change is published on ``changes()``, in the order the changes were committed.
/// An operation that changes nothing (deleting an unknown group) publishes nothing.
public protocol CastIntentStore: Sendable {
    /// Records that the user played the intent.
    /// - Throws: ``CastIntentsError/Code/duplicateInteraction`` if an interaction with the same
    ///   identifier is stored; ``CastIntentsError/Code/emptyIntent`` if the intent names no content;
    ///   ``CastIntentsError/Code/storage`` when the database fails. When this returns, the donation
    ///   is durable (for ``SQLiteIntentStore``: committed and synced to disk).
    func donate(_ interaction: Interaction) async throws(CastIntentsError)

    /// Deletes every donation whose group identifier is `groupIdentifier`.
    /// - Returns: the identifiers of the deleted donations, in donation order.
    @discardableResult
    func deleteInteractions(groupIdentifier: String) async throws(CastIntentsError) -> [String]

    /// Deletes the donations with these identifiers; unknown identifiers are ignored.
    /// - Returns: the identifiers of the deleted donations, in donation order.
    @discardableResult
    func deleteInteractions(identifiers: [String]) async throws(CastIntentsError) -> [String]

    /// Deletes every donation (suggestions and prediction modes are kept).
    /// - Returns: the identifiers of the deleted donations, in donation order.
    @discardableResult
    func deleteAllInteractions() async throws(CastIntentsError) -> [String]

    /// The donation with this identifier, if stored.
    func interaction(identifier: String) async throws(CastIntentsError) -> Interaction?

    /// How many donations are stored.
    func interactionCount() async throws(CastIntentsError) -> Int

    /// The most recent donations, newest first; `limit` `nil` returns all.
    /// - Throws: ``CastIntentsError/Code/invalidLimit`` for a negative limit;
    ///   ``CastIntentsError/Code/corruptRecord`` if a stored record cannot be decoded.
    func mostRecentInteractions(limit: Int?) async throws(CastIntentsError) -> [Interaction]

    /// The donations of one group, newest first.
    func interactions(groupIdentifier: String, limit: Int?) async throws(CastIntentsError) -> [Interaction]

    /// The donations played from a container (see ``PlayMediaIntent/containerIdentifier``), newest first.
    func interactions(containerIdentifier: String, limit: Int?) async throws(CastIntentsError) -> [Interaction]

    /// The most frequently played media items, counting donations by the identifier of their
    /// ``PlayMediaIntent/primaryItem``, optionally only items of one type.
    ///
    /// Ordered by count descending, then by their latest donation (most recent first).
    func mostFrequentMediaItems(ofType type: MediaItemType?, limit: Int?) async throws(CastIntentsError) -> [MediaItemUsage]

    /// Replaces the suggested intents (new content the app offers), most important first.
    /// - Throws: ``CastIntentsError/Code/emptyIntent``, ``CastIntentsError/Code/duplicateSuggestion``,
    ///   ``CastIntentsError/Code/tooManySuggestions``. On error the previous suggestions are kept.
    func setSuggestedMediaIntents(_ intents: [PlayMediaIntent]) async throws(CastIntentsError)

    /// The suggested intents, most important first.
    func suggestedMediaIntents() async throws(CastIntentsError) -> [PlayMediaIntent]

    /// Sets how content of one type is predicted.
    func setPredictionMode(_ mode: PredictionMode, for type: MediaItemType) async throws(CastIntentsError)

    /// How content of one type is predicted (``PredictionMode/default`` unless set).
    func predictionMode(for type: MediaItemType) async throws(CastIntentsError) -> PredictionMode

    /// What a system would offer the user for content of one type, best first.
    ///
    /// The rule, for the intents whose ``PlayMediaIntent/primaryItem`` has this type:
    /// - ``PredictionMode/onlyPredictSuggestedIntents`` (and any mode this version does not know):
    ///   the suggested intents, in the order the app gave.
    /// - ``PredictionMode/default``: the suggested intents in the app's order, followed by the
    ///   donation history as ``mostFrequentMediaItems(ofType:limit:)`` orders it (each item's
    ///   latest donated intent), leaving out items already suggested (same primary item identifier).
    ///
    /// At most `limit` intents are returned (`nil`: all).
    func predictions(for type: MediaItemType, limit: Int?) async throws(CastIntentsError) -> [PlayMediaIntent]

    /// A new sequence of the changes committed from now on. Each call returns an independent
    /// sequence; it finishes when the store is deallocated.
    func changes() -> AsyncStream<IntentStoreChange>
}

/// A media item's place in the donation history.
public struct MediaItemUsage: Sendable, Hashable {
    /// The item, as named by its latest donation.
    public var mediaItem: MediaItem
    /// How many donations name it as primary item.
    public var donationCount: Int
    /// Its latest donation.
    public var latestInteraction: Interaction

    /// Creates a usage record.
    public init(mediaItem: MediaItem, donationCount: Int, latestInteraction: Interaction) {
        self.mediaItem = mediaItem
        self.donationCount = donationCount
        self.latestInteraction = latestInteraction
    }
}

/// A committed change of a ``CastIntentStore``.
public enum IntentStoreChange: Sendable, Hashable {
    /// An interaction was donated.
    case donated(Interaction)
    /// Donations were deleted (identifiers in donation order; never empty).
    case deleted(identifiers: [String])
    /// The suggested intents were replaced (the new list, most important first).
    case suggestionsChanged([PlayMediaIntent])
    /// The prediction mode of a media-item type was set.
    case predictionModeChanged(type: MediaItemType, mode: PredictionMode)
}

/// Limits every ``CastIntentStore`` enforces.
public enum CastIntentStoreLimits {
    /// The most suggested intents a store keeps: 1 000.
    public static let maximumSuggestionCount = 1_000
}

extension CastIntentStore {
    /// The most recent donations, newest first.
    public func mostRecentInteractions() async throws(CastIntentsError) -> [Interaction] {
        try await mostRecentInteractions(limit: nil)
    }
    /// Every prediction for a type.
    public func predictions(for type: MediaItemType) async throws(CastIntentsError) -> [PlayMediaIntent] {
        try await predictions(for: type, limit: nil)
    }
}
