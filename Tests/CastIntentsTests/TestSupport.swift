import CastIntents
import Foundation
import Testing

/// The two store implementations; every contract test runs against both.
enum StoreKind: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case inMemory, sqlite

    var testDescription: String { rawValue }

    /// A fresh, empty store (a new database file in a new temporary directory for SQLite).
    func makeStore() throws -> any CastIntentStore {
        switch self {
        case .inMemory: return InMemoryIntentStore()
        case .sqlite: return try SQLiteIntentStore(path: TemporaryDirectory().path("intents.sqlite"))
        }
    }
}

/// One directory per test process under the system's temporary directory, removed when the process exits.
enum TestRoot {
    static let url: URL = {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("castintents-tests-\(UUID().uuidString)")
        atexit { try? FileManager.default.removeItem(at: TestRoot.url) }
        return url
    }()
}

/// A directory inside ``TestRoot``, unique per call.
struct TemporaryDirectory: Sendable {
    let url: URL

    init() throws {
        url = TestRoot.url.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func path(_ name: String) -> String { url.appendingPathComponent(name).path }
}

/// Builders for fixtures.
enum Fixture {
    static func episode(_ number: Int, show: Int = 1, title: String? = nil) throws -> MediaItem {
        try MediaItem(
            identifier: "episode-\(show)-\(number)", title: title ?? "Episode \(number) of show \(show)",
            type: .podcastEpisode, artworkURL: URL(string: "https://example.invalid/art/\(show)/\(number).png"),
            containerIdentifier: "show-\(show)")
    }

    static func show(_ number: Int) throws -> MediaItem {
        try MediaItem(identifier: "show-\(number)", title: "Show \(number)", type: .podcastShow)
    }

    static func playEpisode(_ number: Int, show: Int = 1) throws -> PlayMediaIntent {
        try PlayMediaIntent(mediaItems: [episode(number, show: show)], mediaContainer: Fixture.show(show))
    }

    static func interaction(
        _ identifier: String, episode number: Int, show: Int = 1, at seconds: Double
    ) throws -> Interaction {
        try Interaction(
            intent: playEpisode(number, show: show), date: Date(timeIntervalSinceReferenceDate: seconds),
            identifier: identifier, groupIdentifier: "show-\(show)")
    }
}

/// Runs `body` and returns the ``CastIntentsError`` it threw, or records an issue if it did not throw one.
func castIntentsError(
    sourceLocation: SourceLocation = #_sourceLocation, _ body: () async throws -> Void
) async -> CastIntentsError? {
    do {
        try await body()
        Issue.record("Expected a CastIntentsError, but nothing was thrown", sourceLocation: sourceLocation)
        return nil
    } catch let error as CastIntentsError {
        return error
    } catch {
        Issue.record("Expected a CastIntentsError, got \(error)", sourceLocation: sourceLocation)
        return nil
    }
}

/// Collects the next `count` changes of a subscription.
func collect(_ count: Int, from stream: AsyncStream<IntentStoreChange>) async -> [IntentStoreChange] {
    var result: [IntentStoreChange] = []
    guard count > 0 else { return result }
    for await change in stream {
        result.append(change)
        if result.count == count { break }
    }
    return result
}

/// Every change published on `stream` before a sentinel change that this function makes itself, so
/// that a test sees exactly the changes its operations published, without waiting on a timer.
func changesBeforeSentinel(
    _ stream: AsyncStream<IntentStoreChange>, store: any CastIntentStore
) async throws -> [IntentStoreChange] {
    let sentinel = MediaItemType(rawValue: "test.sentinel.\(UUID().uuidString.prefix(8))")
    try await store.setPredictionMode(.default, for: sentinel)
    var result: [IntentStoreChange] = []
    for await change in stream {
        if case .predictionModeChanged(let type, _) = change, type == sentinel { return result }
        result.append(change)
    }
    Issue.record("The change stream finished before the sentinel arrived")
    return result
}
