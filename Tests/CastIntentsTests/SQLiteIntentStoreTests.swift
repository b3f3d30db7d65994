@testable import CastIntents
import Foundation
import GRDB
import Testing
import CastTestSupport

@Suite("SQLite store: files, schema versions, damaged records")
struct SQLiteIntentStoreTests {
    @Test func everythingPersistsAcrossReopening() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("intents.sqlite")
        let a = try Fixture.interaction("a", episode: 1, at: 1)
        let suggestions = try [Fixture.playEpisode(5), Fixture.playEpisode(4)]
        do {
            let store = try SQLiteIntentStore(path: path)
            try await store.donate(a)
            try await store.setSuggestedMediaIntents(suggestions)
            try await store.setPredictionMode(.onlyPredictSuggestedIntents, for: .podcastEpisode)
        }
        let reopened = try SQLiteIntentStore(path: path)
        #expect(try await reopened.mostRecentInteractions() == [a])
        #expect(try await reopened.suggestedMediaIntents() == suggestions)
        #expect(try await reopened.predictionMode(for: .podcastEpisode) == .onlyPredictSuggestedIntents)
        #expect(try await reopened.appliedMigrations() == SQLiteIntentStore.migrationIdentifiers)
        #expect(try await reopened.checkIntegrity() == [])
    }

    @Test func connectionsUseWALAndFullSynchronous() async throws {
        let directory = try TemporaryDirectory()
        let store = try SQLiteIntentStore(path: directory.path("intents.sqlite"))
        let writerSynchronous = try await store.pool.write { db in try Int.fetchOne(db, sql: "PRAGMA synchronous") }
        let readerSynchronous = try await store.pool.read { db in try Int.fetchOne(db, sql: "PRAGMA synchronous") }
        #expect(writerSynchronous == 2, "2 is FULL")
        #expect(readerSynchronous == 2)
        let journal = try await store.pool.read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") }
        #expect(journal == "wal")
    }

    /// The exact schema of version 1 (`v1.interactions`), as GRDB's migrator recorded it.
    static func createVersion1Database(at path: String, rows: [(identifier: String, group: String?, date: Double, intent: String)])
        throws
    {
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);
                    INSERT INTO grdb_migrations (identifier) VALUES ('v1.interactions');
                    CREATE TABLE interaction (
                        seq INTEGER PRIMARY KEY AUTOINCREMENT,
                        identifier TEXT NOT NULL UNIQUE,
                        groupIdentifier TEXT,
                        date REAL NOT NULL,
                        intent TEXT NOT NULL
                    );
                    CREATE INDEX interaction_group ON interaction(groupIdentifier);
                    """)
            for row in rows {
                try db.execute(
                    sql: "INSERT INTO interaction (identifier, groupIdentifier, date, intent) VALUES (?, ?, ?, ?)",
                    arguments: [row.identifier, row.group, row.date, row.intent])
            }
        }
        try queue.close()
    }

    @Test func aVersion1DatabaseOpensAndMigrates() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("v1.sqlite")
        let episode = #"{"identifier":"ep-1","title":"Pilot","type":"podcastEpisode","containerIdentifier":"show-a"}"#
        let episode2 = #"{"identifier":"ep-2","title":"Second","type":"podcastEpisode","containerIdentifier":"show-a"}"#
        let future = #"{"identifier":"holo-1","type":"hologram"}"#
        try Self.createVersion1Database(
            at: path,
            rows: [
                ("old-1", "show-a", 10, #"{"mediaItems":[\#(episode)]}"#),
                ("old-2", "show-a", 20, #"{"mediaItems":[\#(episode)],"resumePlayback":true}"#),
                ("old-3", nil, 30, #"{"mediaItems":[\#(future)]}"#),
                ("old-4", "show-a", 40, #"{"mediaItems":[\#(episode2)],"playbackSpeed":1.5}"#),
                ("broken", nil, 25, "{this is not json"),
            ])

        let store = try SQLiteIntentStore(path: path)
        #expect(try await store.appliedMigrations() == SQLiteIntentStore.migrationIdentifiers)
        #expect(try await store.checkIntegrity() == [])
        #expect(try await store.interactionCount() == 5)

        // The damaged record is kept and reported, never a crash.
        let error = await castIntentsError { _ = try await store.mostRecentInteractions() }
        #expect(error?.code == .corruptRecord)
        #expect(error?.message.contains("broken") == true)
        #expect(await castIntentsError { _ = try await store.interaction(identifier: "broken") }?.code == .corruptRecord)

        // The new columns were filled from the stored intents.
        let frequent = try await store.mostFrequentMediaItems(ofType: .podcastEpisode, limit: nil)
        #expect(frequent.map(\.mediaItem.identifier) == ["ep-1", "ep-2"])
        #expect(frequent.map(\.donationCount) == [2, 1])
        #expect(frequent.first?.latestInteraction.identifier == "old-2")
        #expect(try await store.interactions(containerIdentifier: "show-a", limit: nil).map(\.identifier) == ["old-4", "old-2", "old-1"])
        let hologram = try #require(try await store.interaction(identifier: "old-3"))
        #expect(hologram.intent.mediaItems.first?.type == MediaItemType(rawValue: "hologram"))
        #expect(try await store.mostFrequentMediaItems(ofType: MediaItemType(rawValue: "hologram"), limit: nil).count == 1)

        // The tables of later versions exist and work.
        try await store.setSuggestedMediaIntents([Fixture.playEpisode(1)])
        try await store.setPredictionMode(.onlyPredictSuggestedIntents, for: .podcastEpisode)
        #expect(try await store.predictions(for: .podcastEpisode).count == 1)

        // Removing the damaged record by identifier works, and then everything reads.
        #expect(try await store.deleteInteractions(identifiers: ["broken"]) == ["broken"])
        #expect(try await store.mostRecentInteractions().map(\.identifier) == ["old-4", "old-3", "old-2", "old-1"])
        try await store.donate(Fixture.interaction("new", episode: 1, at: 50))
        #expect(try await store.interactionCount() == 5)
    }

    @Test func aDatabaseOfANewerVersionIsRefusedAndLeftUntouched() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("future.sqlite")
        do {
            let store = try SQLiteIntentStore(path: path)
            try await store.donate(Fixture.interaction("a", episode: 1, at: 1))
        }
        let queue = try DatabaseQueue(path: path)
        try await queue.write { db in
            try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v4.somethingNew')")
        }
        let error = await castIntentsError { _ = try SQLiteIntentStore(path: path) }
        #expect(error?.code == .incompatibleSchema)
        #expect(error?.message.contains("v4.somethingNew") == true)
        let stillThere = try await queue.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM interaction") }
        #expect(stillThere == 1)
        try queue.close()
    }

    @Test func aFileThatIsNotAnIntentStoreIsATypedError() async throws {
        let directory = try TemporaryDirectory()
        let garbage = directory.path("garbage.sqlite")
        var generator = SeededGenerator(seed: 7)
        let bytes = (0..<8_192).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
        try Data(bytes).write(to: URL(fileURLWithPath: garbage))
        #expect(await castIntentsError { _ = try SQLiteIntentStore(path: garbage) }?.code == .incompatibleSchema)

        let foreign = directory.path("foreign.sqlite")
        let queue = try DatabaseQueue(path: foreign)
        try await queue.write { db in try db.execute(sql: "CREATE TABLE interaction (something TEXT)") }
        try queue.close()
        #expect(await castIntentsError { _ = try SQLiteIntentStore(path: foreign) }?.code == .incompatibleSchema)

        let missingDirectory = directory.path("no/such/dir/intents.sqlite")
        #expect(await castIntentsError { _ = try SQLiteIntentStore(path: missingDirectory) }?.code == .storage)
    }

    @Test func damagedRecordsGiveTypedErrors() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("damaged.sqlite")
        let store = try SQLiteIntentStore(path: path)
        try await store.donate(Fixture.interaction("good", episode: 1, at: 1))
        let queue = try DatabaseQueue(path: path)
        let badType = #"{"mediaItems":[{"identifier":"x","type":"not a type"}]}"#
        try await queue.write { db in
            try db.execute(
                sql: """
                    INSERT INTO interaction (identifier, groupIdentifier, date, intent, primaryItemIdentifier, primaryItemType)
                    VALUES ('textDate', NULL, 'yesterday', '{"mediaItems":[{"identifier":"y","type":"song"}]}', 'y', 'song');
                    INSERT INTO interaction (identifier, date, intent, primaryItemIdentifier, primaryItemType)
                    VALUES ('badType', 2, ?, 'x', 'song');
                    INSERT INTO interaction (identifier, date, intent) VALUES ('', 3, '{"mediaContainer":{"identifier":"s","type":"podcastShow"}}');
                    INSERT INTO suggestion (position, intent) VALUES (0, X'00FF');
                    INSERT INTO predictionMode (mediaItemType, mode) VALUES ('song', '');
                    """,
                arguments: [badType])
        }
        try queue.close()
        #expect(await castIntentsError { _ = try await store.interaction(identifier: "textDate") }?.code == .corruptRecord)
        #expect(await castIntentsError { _ = try await store.interaction(identifier: "badType") }?.code == .corruptRecord)
        #expect(await castIntentsError { _ = try await store.mostRecentInteractions() }?.code == .corruptRecord)
        #expect(await castIntentsError { _ = try await store.mostFrequentMediaItems(ofType: .song, limit: nil) }?.code == .corruptRecord)
        #expect(await castIntentsError { _ = try await store.suggestedMediaIntents() }?.code == .corruptRecord)
        #expect(await castIntentsError { _ = try await store.predictionMode(for: .song) }?.code == .corruptRecord)
        #expect(await castIntentsError { _ = try await store.predictions(for: .podcastEpisode) }?.code == .corruptRecord)
        // Nothing was lost, and the good record still reads.
        #expect(try await store.interactionCount() == 4)
        #expect(try await store.interaction(identifier: "good")?.identifier == "good")
        // Replacing the damaged suggestions and mode repairs them.
        try await store.setSuggestedMediaIntents([])
        try await store.setPredictionMode(.default, for: .song)
        #expect(try await store.predictionMode(for: .song) == .default)
    }

    @Test func twoInstancesOnOneFileSeeEachOthersWrites() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("shared.sqlite")
        let app = try SQLiteIntentStore(path: path)
        let extensionStore = try SQLiteIntentStore(path: path)
        try await app.donate(Fixture.interaction("from-app", episode: 1, at: 1))
        try await extensionStore.donate(Fixture.interaction("from-extension", episode: 2, at: 2))
        #expect(try await app.mostRecentInteractions().map(\.identifier) == ["from-extension", "from-app"])
        #expect(await castIntentsError { try await app.donate(Fixture.interaction("from-extension", episode: 3, at: 3)) }?.code == .duplicateInteraction)
    }

    @Test func concurrentWritersThroughTwoConnectionsOnOneFile() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("shared.sqlite")
        let stores = [try SQLiteIntentStore(path: path), try SQLiteIntentStore(path: path)]
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, store) in stores.enumerated() {
                for writer in 0..<3 {
                    group.addTask {
                        for donation in 0..<25 {
                            try await store.donate(
                                Fixture.interaction("s\(index)-w\(writer)-\(donation)", episode: donation % 4, at: Double(donation)))
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        for store in stores {
            let identifiers = try await store.mostRecentInteractions().map(\.identifier)
            #expect(identifiers.count == 150)
            #expect(Set(identifiers).count == 150)
        }
        #expect(try await stores[0].checkIntegrity() == [])
    }
}
