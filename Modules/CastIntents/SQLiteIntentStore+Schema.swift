import Foundation
internal import GRDB

extension SQLiteIntentStore {
    /// The identifiers of the schema migrations, oldest first. A database records which it has
    /// applied; opening it applies the missing ones in order.
    ///
    /// - `v1.interactions`: the donation table (identifier, group, date, intent as JSON).
    /// - `v2.primaryItemAndContainer`: primary-item and container columns, filled from each stored
    ///   intent, with their indexes (for frequency, prediction and container queries).
    /// - `v3.suggestionsAndPredictionModes`: the suggested intents and the prediction modes.
    public static let migrationIdentifiers = [
        "v1.interactions", "v2.primaryItemAndContainer", "v3.suggestionsAndPredictionModes",
    ]

    static func makeMigrator() -> DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration(migrationIdentifiers[0]) { db in
            try db.execute(
                sql: """
                    CREATE TABLE interaction (
                        seq INTEGER PRIMARY KEY AUTOINCREMENT,
                        identifier TEXT NOT NULL UNIQUE,
                        groupIdentifier TEXT,
                        date REAL NOT NULL,
                        intent TEXT NOT NULL
                    );
                    CREATE INDEX interaction_group ON interaction(groupIdentifier);
                    """)
        }
        migrator.registerMigration(migrationIdentifiers[1]) { db in
            try db.execute(
                sql: """
                    ALTER TABLE interaction ADD COLUMN primaryItemIdentifier TEXT;
                    ALTER TABLE interaction ADD COLUMN primaryItemType TEXT;
                    ALTER TABLE interaction ADD COLUMN containerIdentifier TEXT;
                    """)
            // Fill the new columns from the stored intents. A record that cannot be decoded keeps
            // NULL columns: it is not lost, and reading it reports `corruptRecord`.
            let rows = try Row.fetchAll(db, sql: "SELECT seq, intent FROM interaction")
            let decoder = JSONDecoder()
            for row in rows {
                let seq: Int64 = row["seq"]
                guard let json = column(row, "intent", as: String.self),
                    let intent = try? decoder.decode(PlayMediaIntent.self, from: Data(json.utf8))
                else { continue }
                try db.execute(
                    sql: """
                        UPDATE interaction SET primaryItemIdentifier = ?, primaryItemType = ?, containerIdentifier = ?
                        WHERE seq = ?
                        """,
                    arguments: [
                        intent.primaryItem?.identifier, intent.primaryItem?.type.rawValue, intent.containerIdentifier, seq,
                    ])
            }
            try db.execute(
                sql: """
                    CREATE INDEX interaction_primary ON interaction(primaryItemType, primaryItemIdentifier);
                    CREATE INDEX interaction_container ON interaction(containerIdentifier);
                    CREATE INDEX interaction_date ON interaction(date, seq);
                    """)
        }
        migrator.registerMigration(migrationIdentifiers[2]) { db in
            try db.execute(
                sql: """
                    CREATE TABLE suggestion (
                        position INTEGER PRIMARY KEY,
                        intent TEXT NOT NULL
                    );
                    CREATE TABLE predictionMode (
                        mediaItemType TEXT PRIMARY KEY NOT NULL,
                        mode TEXT NOT NULL
                    );
                    """)
        }
        return migrator
    }
}
