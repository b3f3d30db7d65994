import Foundation
import Synchronization

/// A ``CastIntentStore`` kept in memory, for tests of modules that use a store.
///
/// It follows exactly the same rules as ``SQLiteIntentStore`` (validation, ordering, errors,
/// change events); the same test suite runs against both.
public final class InMemoryIntentStore: CastIntentStore {
    private struct Stored {
        var sequence: Int
        var interaction: Interaction
    }
    private struct State {
        var nextSequence = 1
        var interactions: [Stored] = []  // in donation order
        var identifiers: Set<String> = []
        var suggestions: [PlayMediaIntent] = []
        var modes: [MediaItemType: PredictionMode] = [:]
    }
    private let state = Mutex(State())
    private let broadcaster = ChangeBroadcaster()

    /// Creates an empty store.
    public init() {}

    /// Records a donation.
    public func donate(_ interaction: Interaction) async throws(CastIntentsError) {
        try interaction.validateForDonation()
        try state.withLock { (state: inout State) throws(CastIntentsError) in
            if state.identifiers.contains(interaction.identifier) {
                throw CastIntentsError(
                    code: .duplicateInteraction,
                    message: "An interaction with identifier '\(interaction.identifier)' was already donated.")
            }
            state.interactions.append(Stored(sequence: state.nextSequence, interaction: interaction))
            state.identifiers.insert(interaction.identifier)
            state.nextSequence += 1
            broadcaster.publish(.donated(interaction))
        }
    }

    /// Deletes a group's donations.
    public func deleteInteractions(groupIdentifier: String) async throws(CastIntentsError) -> [String] {
        try Validation.identifier(groupIdentifier, "group identifier")
        return delete { $0.groupIdentifier == groupIdentifier }
    }

    /// Deletes donations by identifier.
    public func deleteInteractions(identifiers: [String]) async throws(CastIntentsError) -> [String] {
        for identifier in identifiers { try Validation.identifier(identifier, "interaction identifier") }
        let wanted = Set(identifiers)
        return delete { wanted.contains($0.identifier) }
    }

    /// Deletes every donation.
    public func deleteAllInteractions() async throws(CastIntentsError) -> [String] {
        delete { _ in true }
    }

    private func delete(where predicate: (Interaction) -> Bool) -> [String] {
        state.withLock { state in
            let deleted = state.interactions.filter { predicate($0.interaction) }.map(\.interaction.identifier)
            guard !deleted.isEmpty else { return [] }
            state.interactions.removeAll { predicate($0.interaction) }
            state.identifiers.subtract(deleted)
            broadcaster.publish(.deleted(identifiers: deleted))
            return deleted
        }
    }

    /// The donation with this identifier.
    public func interaction(identifier: String) async throws(CastIntentsError) -> Interaction? {
        try Validation.identifier(identifier, "interaction identifier")
        return state.withLock { $0.interactions.first { $0.interaction.identifier == identifier }?.interaction }
    }

    /// The number of donations.
    public func interactionCount() async throws(CastIntentsError) -> Int {
        state.withLock { $0.interactions.count }
    }

    /// The most recent donations.
    public func mostRecentInteractions(limit: Int?) async throws(CastIntentsError) -> [Interaction] {
        try StoreRules.validateLimit(limit)
        return recent(limit: limit) { _ in true }
    }

    /// A group's donations, newest first.
    public func interactions(groupIdentifier: String, limit: Int?) async throws(CastIntentsError) -> [Interaction] {
        try Validation.identifier(groupIdentifier, "group identifier")
        try StoreRules.validateLimit(limit)
        return recent(limit: limit) { $0.groupIdentifier == groupIdentifier }
    }

    /// A container's donations, newest first.
    public func interactions(containerIdentifier: String, limit: Int?) async throws(CastIntentsError) -> [Interaction] {
        try Validation.identifier(containerIdentifier, "container identifier")
        try StoreRules.validateLimit(limit)
        return recent(limit: limit) { $0.intent.containerIdentifier == containerIdentifier }
    }

    private func recent(limit: Int?, where predicate: (Interaction) -> Bool) -> [Interaction] {
        let matching = state.withLock { state in state.interactions.filter { predicate($0.interaction) } }
        let sorted = matching.sorted(by: Self.newerFirst).map(\.interaction)
        return limit.map { Array(sorted.prefix($0)) } ?? sorted
    }

    private static func newerFirst(_ a: Stored, _ b: Stored) -> Bool {
        if a.interaction.date != b.interaction.date { return a.interaction.date > b.interaction.date }
        return a.sequence > b.sequence
    }

    /// The most frequently played items.
    public func mostFrequentMediaItems(ofType type: MediaItemType?, limit: Int?) async throws(CastIntentsError)
        -> [MediaItemUsage]
    {
        try StoreRules.validateLimit(limit)
        return Self.frequent(in: state.withLock { $0.interactions }, ofType: type, limit: limit)
    }

    private static func frequent(in all: [Stored], ofType type: MediaItemType?, limit: Int?) -> [MediaItemUsage] {
        var groups: [String: (count: Int, latest: Stored)] = [:]
        for stored in all {
            guard let primary = stored.interaction.intent.primaryItem else { continue }
            if let type, primary.type != type { continue }
            if let existing = groups[primary.identifier] {
                let latest = Self.newerFirst(stored, existing.latest) ? stored : existing.latest
                groups[primary.identifier] = (existing.count + 1, latest)
            } else {
                groups[primary.identifier] = (1, stored)
            }
        }
        let ordered = groups.values.sorted { a, b in
            if a.count != b.count { return a.count > b.count }
            return Self.newerFirst(a.latest, b.latest)
        }
        let usages = ordered.compactMap { group -> MediaItemUsage? in
            guard let item = group.latest.interaction.intent.primaryItem else { return nil }
            return MediaItemUsage(mediaItem: item, donationCount: group.count, latestInteraction: group.latest.interaction)
        }
        return limit.map { Array(usages.prefix($0)) } ?? usages
    }

    /// Replaces the suggestions.
    public func setSuggestedMediaIntents(_ intents: [PlayMediaIntent]) async throws(CastIntentsError) {
        try StoreRules.validateSuggestions(intents)
        state.withLock { state in
            state.suggestions = intents
            broadcaster.publish(.suggestionsChanged(intents))
        }
    }

    /// The suggestions, most important first.
    public func suggestedMediaIntents() async throws(CastIntentsError) -> [PlayMediaIntent] {
        state.withLock { $0.suggestions }
    }

    /// Sets a type's prediction mode.
    public func setPredictionMode(_ mode: PredictionMode, for type: MediaItemType) async throws(CastIntentsError) {
        _ = try PredictionMode(validating: mode.rawValue)
        try type.validate()
        state.withLock { state in
            state.modes[type] = mode
            broadcaster.publish(.predictionModeChanged(type: type, mode: mode))
        }
    }

    /// A type's prediction mode.
    public func predictionMode(for type: MediaItemType) async throws(CastIntentsError) -> PredictionMode {
        try type.validate()
        return state.withLock { $0.modes[type] ?? .default }
    }

    /// Predictions for a type.
    public func predictions(for type: MediaItemType, limit: Int?) async throws(CastIntentsError) -> [PlayMediaIntent] {
        try type.validate()
        try StoreRules.validateLimit(limit)
        let (mode, suggestions, all) = state.withLock { ($0.modes[type] ?? .default, $0.suggestions, $0.interactions) }
        let history =
            StoreRules.usesHistory(mode)
            ? Self.frequent(
                in: all, ofType: type,
                limit: StoreRules.historyLimit(for: limit, suggestionCount: suggestions.count)) : []
        return StoreRules.predictions(type: type, mode: mode, suggestions: suggestions, history: history, limit: limit)
    }

    /// A new sequence of committed changes.
    public func changes() -> AsyncStream<IntentStoreChange> { broadcaster.stream() }
}
