import CastIntents
import Foundation
import Testing
import CastTestSupport

/// The two stores give the same answers to the same seeded random sequence of operations,
/// including errors and published changes.
@Suite("Store equivalence")
struct StoreEquivalenceTests {
    /// The outcome of one operation, comparable across stores.
    enum Outcome: Equatable, CustomStringConvertible {
        case value(String)
        case error(String)
        var description: String {
            switch self {
            case .value(let text): "value \(text)"
            case .error(let code): "error \(code)"
            }
        }
    }

    static func outcome(_ body: () async throws(CastIntentsError) -> String) async -> Outcome {
        do { return .value(try await body()) } catch { return .error(error.code.description) }
    }

    static func describe(_ interactions: [Interaction]) -> String {
        interactions.map { "\($0.identifier)@\($0.date.timeIntervalSinceReferenceDate)" }.joined(separator: ",")
    }

    @Test(arguments: [1 as UInt64, 2, 3])
    func randomOperationSequencesGiveIdenticalResults(seed: UInt64) async throws {
        let stores = try StoreKind.allCases.map { try $0.makeStore() }
        let streams = stores.map { $0.changes() }
        var generator = SeededGenerator(seed: seed)
        func pick(_ range: Range<Int>) -> Int { Int(generator.next() % UInt64(range.count)) + range.lowerBound }
        let types: [MediaItemType] = [.podcastEpisode, .song, .podcastShow, .movie]

        var nonEmptyAnswers = 0
        var errors = 0
        for step in 0..<300 {
            let operation = pick(0..<12)
            var outcomes: [Outcome] = []
            // Build the operation's arguments once, so both stores get the very same input.
            let show = pick(0..<4)
            let episode = pick(0..<6)
            let date = Double(pick(0..<40))  // few distinct dates: many ties
            let identifier = "i\(pick(0..<120))"  // repeats: some duplicates
            let limit: Int? = pick(0..<4) == 0 ? nil : pick(-1..<6)
            let type = types[pick(0..<types.count)]
            let suggestionIndices = (0..<pick(0..<5)).map { _ in pick(0..<8) }
            let deletions = (0..<pick(0..<6)).map { _ in "i\(pick(0..<120))" }
            let mode: PredictionMode = pick(0..<2) == 0 ? .default : .onlyPredictSuggestedIntents
            for store in stores {
                let result: Outcome
                switch operation {
                case 0, 1, 2, 3:
                    result = await Self.outcome { () throws(CastIntentsError) -> String in
                        let intent: PlayMediaIntent
                        if episode == 5 {
                            intent = try PlayMediaIntent(mediaContainer: MediaItem(identifier: "show-\(show)", type: .podcastShow))
                        } else if episode == 4 {
                            intent = try PlayMediaIntent(mediaItems: [MediaItem(identifier: "song-\(show)", type: .song)])
                        } else {
                            intent = try PlayMediaIntent(
                                mediaItems: [MediaItem(identifier: "ep-\(show)-\(episode)", type: .podcastEpisode,
                                                       containerIdentifier: "show-\(show)")])
                        }
                        try await store.donate(
                            Interaction(
                                intent: intent, date: Date(timeIntervalSinceReferenceDate: date), identifier: identifier,
                                groupIdentifier: show == 3 ? nil : "show-\(show)"))
                        return "ok"
                    }
                case 4:
                    result = await Self.outcome { () throws(CastIntentsError) in
                        try await store.deleteInteractions(groupIdentifier: "show-\(show)").joined(separator: ",")
                    }
                case 5:
                    result = await Self.outcome { () throws(CastIntentsError) in
                        try await store.deleteInteractions(identifiers: deletions).joined(separator: ",")
                    }
                case 6:
                    result = await Self.outcome { () throws(CastIntentsError) in
                        Self.describe(try await store.mostRecentInteractions(limit: limit))
                    }
                case 7:
                    result = await Self.outcome { () throws(CastIntentsError) in
                        try await store.mostFrequentMediaItems(ofType: pick2(type), limit: limit)
                            .map { "\($0.mediaItem.identifier)x\($0.donationCount)/\($0.latestInteraction.identifier)" }
                            .joined(separator: ",")
                    }
                case 8:
                    result = await Self.outcome { () throws(CastIntentsError) in
                        Self.describe(try await store.interactions(containerIdentifier: "show-\(show)", limit: limit))
                    }
                case 9:
                    result = await Self.outcome { () throws(CastIntentsError) in
                        let intents = try suggestionIndices.map { (index: Int) throws(CastIntentsError) -> PlayMediaIntent in
                            try PlayMediaIntent(
                                mediaItems: [MediaItem(identifier: "ep-\(index % 4)-\(index)", type: index % 3 == 0 ? .song : .podcastEpisode)])
                        }
                        try await store.setSuggestedMediaIntents(intents)
                        return "ok"
                    }
                case 10:
                    result = await Self.outcome { () throws(CastIntentsError) in
                        try await store.setPredictionMode(mode, for: type)
                        return "ok"
                    }
                default:
                    result = await Self.outcome { () throws(CastIntentsError) in
                        try await store.predictions(for: type, limit: limit)
                            .map { $0.primaryItem?.identifier ?? "-" }.joined(separator: ",")
                    }
                }
                outcomes.append(result)
            }
            #expect(outcomes[0] == outcomes[1], "seed \(seed), step \(step), operation \(operation)")
            switch outcomes[0] {
            case .value(let text): if !text.isEmpty && text != "ok" { nonEmptyAnswers += 1 }
            case .error: errors += 1
            }
        }
        // The sequence exercised both answers and rejections (duplicates, negative limits, empty suggestions).
        #expect(nonEmptyAnswers > 30)
        #expect(errors > 10)
        print("equivalence seed \(seed): \(nonEmptyAnswers) non-empty answers, \(errors) errors")
        var published: [[IntentStoreChange]] = []
        for (store, stream) in zip(stores, streams) {
            published.append(try await changesBeforeSentinel(stream, store: store))
        }
        #expect(published[0] == published[1])
        #expect(!published[0].isEmpty)
        #expect(try await stores[0].mostRecentInteractions() == stores[1].mostRecentInteractions())
    }
}

/// Half of the frequency queries are unfiltered.
private func pick2(_ type: MediaItemType) -> MediaItemType? {
    type == .movie ? nil : type
}
