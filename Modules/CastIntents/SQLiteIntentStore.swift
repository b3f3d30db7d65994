import Foundation
internal import GRDB

/// A durable ``CastIntentStore`` in an SQLite database file.
///
/// - The database is opened in WAL mode (a GRDB `DatabasePool`: one writer, concurrent readers)
///   with `PRAGMA synchronous = FULL`, so a donation whose call has returned survives a crash or a
///   power cut, and readers never wait for the writer.
/// - The schema is versioned (``migrationIdentifiers``); opening a database written by an older
///   version migrates it, opening one written by a newer version throws
///   ``CastIntentsError/Code/incompatibleSchema`` and leaves the file untouched.
/// - Several processes may open the same file; a process waits up to ``Configuration/busyTimeout``
///   for another's write. Change events (``changes()``) report this instance's changes only.
public final class SQLiteIntentStore: CastIntentStore {
    /// Options for opening a store.
    public struct Configuration: Sendable {
        /// How long a write waits for another connection (another process) to finish its write.
        public var busyTimeout: Duration
        /// Creates a configuration.
        public init(busyTimeout: Duration = .seconds(10)) { self.busyTimeout = busyTimeout }
    }

    /// The database file.
    public let path: String
    let pool: DatabasePool
    let broadcaster = ChangeBroadcaster()

    /// Opens (creating if needed) the store at `path` and migrates it to the current schema.
    /// - Throws: ``CastIntentsError/Code/incompatibleSchema`` for a database of a newer version or a
    ///   file that is not an intent store; ``CastIntentsError/Code/storage`` when SQLite cannot open it.
    public init(path: String, configuration: Configuration = Configuration()) throws(CastIntentsError) {
        self.path = path
        var config = GRDB.Configuration()
        let timeout = configuration.busyTimeout.components
        config.busyMode = .timeout(Double(timeout.seconds) + Double(timeout.attoseconds) / 1e18)
        config.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = FULL")
        }
        config.label = "CastIntents"
        do {
            pool = try DatabasePool(path: path, configuration: config)
            // Every commit is synced to disk before the call returns. GRDB switches the writer to
            // `synchronous = NORMAL` when it enables WAL (after `prepareDatabase`), so set it again on
            // the writer connection, which lives as long as the pool.
            try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
        } catch {
            throw Self.mapOpenError(error, path: path)
        }
        let migrator = Self.makeMigrator()
        do {
            try pool.write { db in
                if try migrator.hasBeenSuperseded(db) {
                    let applied = try migrator.appliedIdentifiers(db).subtracting(Self.migrationIdentifiers).sorted()
                    throw CastIntentsError(
                        code: .incompatibleSchema,
                        message: "The database at \(path) was written by a newer version (unknown migrations: \(applied.joined(separator: ", "))).")
                }
            }
        } catch let error as CastIntentsError {
            throw error
        } catch {
            throw Self.mapOpenError(error, path: path)
        }
        do {
            try migrator.migrate(pool)
        } catch {
            throw CastIntentsError(
                code: .incompatibleSchema,
                message: "The database at \(path) could not be migrated to the current schema: \(error)",
                cause: error as? DatabaseError)
        }
    }

    private static func mapOpenError(_ error: any Error, path: String) -> CastIntentsError {
        if let error = error as? DatabaseError, error.resultCode == .SQLITE_NOTADB {
            return CastIntentsError(
                code: .incompatibleSchema, message: "The file at \(path) is not an SQLite database.", cause: error)
        }
        return CastIntentsError(
            code: .storage, message: "Cannot open the intent store at \(path): \(error)",
            cause: error as? DatabaseError)
    }

    /// Runs SQLite's `PRAGMA integrity_check`.
    /// - Returns: the problems found; empty when the database is sound.
    public func checkIntegrity() async throws(CastIntentsError) -> [String] {
        let lines = try await read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check") }
        return lines == ["ok"] ? [] : lines
    }

    /// The identifiers of the migrations applied to the database.
    public func appliedMigrations() async throws(CastIntentsError) -> [String] {
        try await read { db in try Self.makeMigrator().completedMigrations(db) }
    }

    /// A new sequence of committed changes made through this instance.
    public func changes() -> AsyncStream<IntentStoreChange> { broadcaster.stream() }

    // MARK: Access helpers

    func read<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws(CastIntentsError) -> T {
        do {
            return try await pool.read(body)
        } catch {
            throw Self.mapError(error)
        }
    }

    func write<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws(CastIntentsError) -> T {
        do {
            return try await pool.write(body)
        } catch {
            throw Self.mapError(error)
        }
    }

    static func mapError(_ error: any Error) -> CastIntentsError {
        if let error = error as? CastIntentsError { return error }
        return CastIntentsError(
            code: .storage, message: "The intent store failed: \(error)", cause: error as? DatabaseError)
    }
}
