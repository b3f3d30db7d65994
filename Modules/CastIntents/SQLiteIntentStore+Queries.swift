import Foundation
internal import GRDB

extension SQLiteIntentStore {
    // MARK: Donations

    /// Records a donation; it is on disk when this returns.
    public func donate(_ interaction: Interaction) async throws(CastIntentsError) {
        try interaction.validateForDonation()
        let json = try Self.encode(interaction.intent)
        @Sendable func insert(_ db: Database, _ primary: MediaItem?) throws {
            try db.execute(
                sql: """
                    INSERT INTO interaction
                        (identifier, groupIdentifier, date, intent, primaryItemIdentifier, primaryItemType, containerIdentifier)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    interaction.identifier, interaction.groupIdentifier, interaction.date.timeIntervalSinceReferenceDate,
                    json, primary?.identifier, primary?.type.rawValue, interaction.intent.containerIdentifier,
                ])
        }

        let broadcaster = self.broadcaster
        try await write { db in
            if try Bool.fetchOne(
                db, sql: "SELECT EXISTS (SELECT 1 FROM interaction WHERE identifier = ?)",
                arguments: [interaction.identifier]) == true
            {
                throw CastIntentsError(
                    code: .duplicateInteraction,
                    message: "An interaction with identifier '\(interaction.identifier)' was already donated.")
            }
            let primary = interaction.intent.primaryItem
            do {
                try insert(db, primary)
            } catch let error as DatabaseError where error.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE {
                // The check above runs in an IMMEDIATE transaction, so this is a safety net only.
                throw CastIntentsError(
                    code: .duplicateInteraction,
                    message: "An interaction with identifier '\(interaction.identifier)' was already donated.", cause: error)
            }
            db.afterNextTransaction { _ in broadcaster.publish(.donated(interaction)) }
        }
    }

    /// Deletes a group's donations.
    public func deleteInteractions(groupIdentifier: String) async throws(CastIntentsError) -> [String] {
        try Validation.identifier(groupIdentifier, "group identifier")
        return try await delete(where: "groupIdentifier = ?", arguments: [groupIdentifier])
    }

    /// Deletes donations by identifier.
    public func deleteInteractions(identifiers: [String]) async throws(CastIntentsError) -> [String] {
        for identifier in identifiers { try Validation.identifier(identifier, "interaction identifier") }
        let unique = Array(Set(identifiers))
        guard !unique.isEmpty else { return [] }
        let broadcaster = self.broadcaster
        return try await write { db in
            var deleted: [(Int64, String)] = []
            // Stay well under SQLite's limit on bound parameters.
            for start in stride(from: 0, to: unique.count, by: 500) {
                let chunk = Array(unique[start..<min(start + 500, unique.count)])
                let placeholders = Array(repeating: "?", count: chunk.count).joined(separator: ",")
                let rows = try Row.fetchAll(
                    db, sql: "SELECT seq, identifier FROM interaction WHERE identifier IN (\(placeholders))",
                    arguments: StatementArguments(chunk))
                deleted += rows.map { ($0["seq"], $0["identifier"]) }
                try db.execute(
                    sql: "DELETE FROM interaction WHERE identifier IN (\(placeholders))", arguments: StatementArguments(chunk))
            }
            let identifiers = deleted.sorted { $0.0 < $1.0 }.map(\.1)
            if !identifiers.isEmpty {
                db.afterNextTransaction { _ in broadcaster.publish(.deleted(identifiers: identifiers)) }
            }
            return identifiers
        }
    }

    /// Deletes every donation.
    public func deleteAllInteractions() async throws(CastIntentsError) -> [String] {
        try await delete(where: "1", arguments: [])
    }

    private func delete(where condition: String, arguments: StatementArguments) async throws(CastIntentsError) -> [String] {
        let broadcaster = self.broadcaster
        return try await write { db in
            let identifiers = try String.fetchAll(
                db, sql: "SELECT identifier FROM interaction WHERE \(condition) ORDER BY seq", arguments: arguments)
            guard !identifiers.isEmpty else { return [] }
            try db.execute(sql: "DELETE FROM interaction WHERE \(condition)", arguments: arguments)
            db.afterNextTransaction { _ in broadcaster.publish(.deleted(identifiers: identifiers)) }
            return identifiers
        }
    }

    // MARK: Queries

    /// The donation with this identifier.
    public func interaction(identifier: String) async throws(CastIntentsError) -> Interaction? {
        try Validation.identifier(identifier, "interaction identifier")
        return try await read { db in
            try Row.fetchOne(
                db, sql: "SELECT identifier, groupIdentifier, date, intent FROM interaction WHERE identifier = ?",
                arguments: [identifier]
            ).map(Self.interaction(from:))
        }
    }

    /// The number of donations.
    public func interactionCount() async throws(CastIntentsError) -> Int {
        try await read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM interaction") ?? 0 }
    }

    /// The most recent donations.
    public func mostRecentInteractions(limit: Int?) async throws(CastIntentsError) -> [Interaction] {
        try StoreRules.validateLimit(limit)
        return try await recent(where: "1", arguments: [], limit: limit)
    }

    /// A group's donations, newest first.
    public func interactions(groupIdentifier: String, limit: Int?) async throws(CastIntentsError) -> [Interaction] {
        try Validation.identifier(groupIdentifier, "group identifier")
        try StoreRules.validateLimit(limit)
        return try await recent(where: "groupIdentifier = ?", arguments: [groupIdentifier], limit: limit)
    }

    /// A container's donations, newest first.
    public func interactions(containerIdentifier: String, limit: Int?) async throws(CastIntentsError) -> [Interaction] {
        try Validation.identifier(containerIdentifier, "container identifier")
        try StoreRules.validateLimit(limit)
        return try await recent(where: "containerIdentifier = ?", arguments: [containerIdentifier], limit: limit)
    }

    private func recent(where condition: String, arguments: StatementArguments, limit: Int?) async throws(CastIntentsError)
        -> [Interaction]
    {
        var arguments = arguments
        arguments += [limit ?? -1]
        return try await read { [arguments] db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT identifier, groupIdentifier, date, intent FROM interaction WHERE \(condition)
                    ORDER BY date DESC, seq DESC LIMIT ?
                    """,
                arguments: arguments
            ).map(Self.interaction(from:))
        }
    }

    /// The most frequently played items.
    public func mostFrequentMediaItems(ofType type: MediaItemType?, limit: Int?) async throws(CastIntentsError)
        -> [MediaItemUsage]
    {
        try StoreRules.validateLimit(limit)
        return try await read { db in try Self.frequent(db, type: type, limit: limit) }
    }

    static func frequent(_ db: Database, type: MediaItemType?, limit: Int?) throws -> [MediaItemUsage] {
        let rows = try Row.fetchAll(
            db,
            sql: """
                WITH ranked AS (
                    SELECT seq,
                           COUNT(*) OVER (PARTITION BY primaryItemIdentifier) AS donationCount,
                           ROW_NUMBER() OVER (PARTITION BY primaryItemIdentifier ORDER BY date DESC, seq DESC) AS rank
                    FROM interaction
                    WHERE primaryItemIdentifier IS NOT NULL AND (?1 IS NULL OR primaryItemType = ?1)
                )
                SELECT interaction.identifier, interaction.groupIdentifier, interaction.date, interaction.intent,
                       ranked.donationCount
                FROM ranked JOIN interaction ON interaction.seq = ranked.seq
                WHERE ranked.rank = 1
                ORDER BY ranked.donationCount DESC, interaction.date DESC, interaction.seq DESC
                LIMIT ?2
                """,
            arguments: [type?.rawValue, limit ?? -1])
        return try rows.map { row in
            let interaction = try interaction(from: row)
            guard let item = interaction.intent.primaryItem else {
                throw CastIntentsError(
                    code: .corruptRecord, message: "The stored interaction '\(interaction.identifier)' names no content.")
            }
            return MediaItemUsage(mediaItem: item, donationCount: row["donationCount"], latestInteraction: interaction)
        }
    }

    // MARK: Suggestions and predictions

    /// Replaces the suggestions.
    public func setSuggestedMediaIntents(_ intents: [PlayMediaIntent]) async throws(CastIntentsError) {
        try StoreRules.validateSuggestions(intents)
        var encoded: [String] = []
        encoded.reserveCapacity(intents.count)
        for intent in intents { encoded.append(try Self.encode(intent)) }
        let broadcaster = self.broadcaster
        try await write { [encoded] db in
            try db.execute(sql: "DELETE FROM suggestion")
            for (position, json) in encoded.enumerated() {
                try db.execute(sql: "INSERT INTO suggestion (position, intent) VALUES (?, ?)", arguments: [position, json])
            }
            db.afterNextTransaction { _ in broadcaster.publish(.suggestionsChanged(intents)) }
        }
    }

    /// The suggestions, most important first.
    public func suggestedMediaIntents() async throws(CastIntentsError) -> [PlayMediaIntent] {
        try await read { db in try Self.suggestions(db) }
    }

    static func suggestions(_ db: Database) throws -> [PlayMediaIntent] {
        try Row.fetchAll(db, sql: "SELECT position, intent FROM suggestion ORDER BY position").map { row in
            let position: Int64 = row["position"]
            return try decodeIntent(column(row, "intent", as: String.self), record: "suggestion \(position)")
        }
    }

    /// Sets a type's prediction mode.
    public func setPredictionMode(_ mode: PredictionMode, for type: MediaItemType) async throws(CastIntentsError) {
        _ = try PredictionMode(validating: mode.rawValue)
        try type.validate()
        let broadcaster = self.broadcaster
        try await write { db in
            try db.execute(
                sql: """
                    INSERT INTO predictionMode (mediaItemType, mode) VALUES (?, ?)
                    ON CONFLICT (mediaItemType) DO UPDATE SET mode = excluded.mode
                    """,
                arguments: [type.rawValue, mode.rawValue])
            db.afterNextTransaction { _ in broadcaster.publish(.predictionModeChanged(type: type, mode: mode)) }
        }
    }

    /// A type's prediction mode.
    public func predictionMode(for type: MediaItemType) async throws(CastIntentsError) -> PredictionMode {
        try type.validate()
        return try await read { db in try Self.mode(db, type: type) }
    }

    static func mode(_ db: Database, type: MediaItemType) throws -> PredictionMode {
        guard let raw = try String.fetchOne(
            db, sql: "SELECT mode FROM predictionMode WHERE mediaItemType = ?", arguments: [type.rawValue])
        else { return .default }
        do {
            return try PredictionMode(validating: raw)
        } catch {
            throw CastIntentsError(
                code: .corruptRecord, message: "The stored prediction mode of '\(type)' is malformed: \(error.message)")
        }
    }

    /// Predictions for a type.
    public func predictions(for type: MediaItemType, limit: Int?) async throws(CastIntentsError) -> [PlayMediaIntent] {
        try type.validate()
        try StoreRules.validateLimit(limit)
        return try await read { db in
            let mode = try Self.mode(db, type: type)
            let suggestions = try Self.suggestions(db)
            let history =
                StoreRules.usesHistory(mode)
                ? try Self.frequent(
                    db, type: type, limit: StoreRules.historyLimit(for: limit, suggestionCount: suggestions.count)) : []
            return StoreRules.predictions(
                type: type, mode: mode, suggestions: suggestions, history: history, limit: limit)
        }
    }

    // MARK: Records

    static func encode(_ intent: PlayMediaIntent) throws(CastIntentsError) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        do {
            return String(decoding: try encoder.encode(intent), as: UTF8.self)
        } catch {
            throw CastIntentsError(code: .storage, message: "Cannot encode the intent: \(error)")
        }
    }

    static func decodeIntent(_ json: String?, record: String) throws(CastIntentsError) -> PlayMediaIntent {
        guard let json else {
            throw CastIntentsError(code: .corruptRecord, message: "The stored \(record) has no intent.")
        }
        do {
            return try JSONDecoder().decode(PlayMediaIntent.self, from: Data(json.utf8))
        } catch {
            throw CastIntentsError(
                code: .corruptRecord, message: "The stored \(record) cannot be decoded: \(decodingSummary(error))")
        }
    }

    /// Reads a column without GRDB's fatal error on a value of the wrong type: a damaged record
    /// must give a typed error, never a crash.
    static func column<T: DatabaseValueConvertible>(_ row: Row, _ name: String, as type: T.Type = T.self) -> T? {
        let value: DatabaseValue = row[name]
        return T.fromDatabaseValue(value)
    }

    static func interaction(from row: Row) throws(CastIntentsError) -> Interaction {
        let identifier = column(row, "identifier", as: String.self)
        let record = "interaction '\(identifier ?? "?")'"
        let intent = try decodeIntent(column(row, "intent", as: String.self), record: record)
        guard let identifier, let seconds = column(row, "date", as: Double.self) else {
            throw CastIntentsError(code: .corruptRecord, message: "The stored \(record) lacks an identifier or a date.")
        }
        do {
            return try Interaction(
                intent: intent, date: Date(timeIntervalSinceReferenceDate: seconds), identifier: identifier,
                groupIdentifier: column(row, "groupIdentifier", as: String.self))
        } catch {
            throw CastIntentsError(code: .corruptRecord, message: "The stored \(record) is invalid: \(error.message)")
        }
    }

    private static func decodingSummary(_ error: any Error) -> String {
        switch error {
        case DecodingError.dataCorrupted(let context): return context.debugDescription
        case DecodingError.keyNotFound(let key, _): return "missing key '\(key.stringValue)'"
        case DecodingError.typeMismatch(let type, let context):
            return "expected \(type) at \(context.codingPath.map(\.stringValue).joined(separator: "."))"
        case DecodingError.valueNotFound(let type, _): return "null where \(type) was expected"
        default: return "\(error)"
        }
    }
}
