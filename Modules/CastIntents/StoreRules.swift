import Foundation

/// The rules both stores share, so that they behave identically.
enum StoreRules {
    static func validateLimit(_ limit: Int?) throws(CastIntentsError) {
        if let limit, limit < 0 {
            throw CastIntentsError(code: .invalidLimit, message: "The limit \(limit) is negative.")
        }
    }

    static func validateSuggestions(_ intents: [PlayMediaIntent]) throws(CastIntentsError) {
        if intents.count > CastIntentStoreLimits.maximumSuggestionCount {
            throw CastIntentsError(
                code: .tooManySuggestions,
                message: "\(intents.count) suggested intents; at most \(CastIntentStoreLimits.maximumSuggestionCount) are kept.")
        }
        var seen = Set<PlayMediaIntent>()
        for (index, intent) in intents.enumerated() {
            do {
                try intent.validateHasContent()
            } catch {
                throw CastIntentsError(code: error.code, message: "Suggestion \(index): \(error.message)")
            }
            if !seen.insert(intent).inserted {
                throw CastIntentsError(
                    code: .duplicateSuggestion, message: "Suggestion \(index) repeats an earlier suggestion.")
            }
        }
    }

    /// Whether a mode predicts from the donation history. Unknown modes are treated as
    /// "only suggested", the conservative reading.
    static func usesHistory(_ mode: PredictionMode) -> Bool { mode == .default }

    /// The prediction rule documented on ``CastIntentStore/predictions(for:limit:)``.
    static func predictions(
        type: MediaItemType, mode: PredictionMode, suggestions: [PlayMediaIntent],
        history: [MediaItemUsage], limit: Int?
    ) -> [PlayMediaIntent] {
        var result = suggestions.filter { $0.primaryItem?.type == type }
        if usesHistory(mode) {
            let suggested = Set(result.compactMap { $0.primaryItem?.identifier })
            for usage in history where !suggested.contains(usage.mediaItem.identifier) {
                result.append(usage.latestInteraction.intent)
            }
        }
        if let limit, result.count > limit { result.removeLast(result.count - limit) }
        return result
    }

    /// How many history entries ``predictions(type:mode:suggestions:history:limit:)`` can use.
    static func historyLimit(for limit: Int?, suggestionCount: Int) -> Int? {
        limit.map { $0 + suggestionCount }
    }
}
