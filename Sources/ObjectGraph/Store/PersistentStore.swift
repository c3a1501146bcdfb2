import Foundation
import GRDB
import GRDBSQLite
import Synchronization

/// Where a store keeps its data.
///
/// ```swift
/// let onDisk = StoreLocation.file(URL(fileURLWithPath: "notes.sqlite"))
/// let scratch = StoreLocation.inMemory
/// ```
public enum StoreLocation: Sendable, Equatable {
    /// An SQLite file in WAL mode: one writer at a time, readers never blocked, shared
    /// with other processes.
    case file(URL)
    /// A private in-memory SQLite database (tests, scratch work, demos).
    case inMemory
}

/// An SQLite store for one model: schema creation, validation on open, metadata, and the
/// reads and writes contexts perform. One store per file.
///
/// ```swift
/// let store = try PersistentStore(model: model, location: .file(url))
/// try store.setMetadata("2024-05-01", forKey: "lastImport")
/// ```
public final class PersistentStore: Sendable {
    public let model: ManagedObjectModel
    public let location: StoreLocation
    let writer: any DatabaseWriter
    /// Whether the store was opened for reading only (asked for, or a file this process
    /// may not write): every write throws ``ObjectGraphError/readOnlyStore(path:)``.
    ///
    /// ```swift
    /// let store = try PersistentStore(model: model, location: .file(url), readOnly: true)
    /// if store.isReadOnly { print("browsing only") }
    /// ```
    public let isReadOnly: Bool
    /// The store's own identifier: a UUID recorded in its metadata
    /// (``MetadataKey/storeIdentifier``) when the store is first opened for writing, so it
    /// stays the same across relaunches and migrations; for a read-only file made before
    /// identifiers existed, `path-` and a hash of its path. Object-ID URIs name it.
    ///
    /// ```swift
    /// print(store.identifier)   // "5F0C…", the same every time this file is opened
    /// ```
    public let identifier: String
    /// How many ``withBulkWrites(_:)`` spans are running (PersistentStore+BulkWrites.swift).
    let bulkWriters = Mutex(0)
    /// How many rows a bulk write lets wait for the full-text index (FullTextIndex.swift).
    let fullTextBatchRows = Mutex(FullTextIndexSchema.deferredRowLimit)
    /// Whether saves leave their rows for the full-text index now (a bulk write runs); never
    /// held across a database call.
    let bulkWriteDefersIndexing = Mutex(false)
    /// Checkpoints the `-wal` off the writer while a bulk write runs (BulkCheckpointer.swift).
    let bulkCheckpointer = Mutex<BulkCheckpointer?>(nil)
    /// Which fetch texts stay prepared on this store's connections (FetchStatementCache.swift).
    let fetchStatements = FetchStatementCache()
    /// The tables of the main schema that have triggers, as of its `schema_version`
    /// (``SaveExecution/tablesWithTriggers(in:cache:)``).
    /// The persistent history this store records (nil: none), read when it opens.
    let historyTracking = Mutex<PersistentHistoryTracking?>(nil)
    /// Names this store object's transactions in the history, so it can tell them from
    /// those of other processes (or other stacks on the same file).
    let historyWriterID = UUID().uuidString
    let triggerTables = Mutex<(schemaVersion: Int64, tables: Set<String>)?>(nil)
    /// How long any connection waits for another connection's (or process's) lock
    /// before giving up with "database is locked", in seconds.
    static let busyTimeout: TimeInterval = 10
    /// `PRAGMA journal_size_limit` on every connection of a file store, in bytes (4 MiB):
    /// the `-wal` file is truncated to at most this size whenever a checkpoint resets it.
    public static let journalSizeLimit = 4 * 1024 * 1024
    /// The page size of a new file store (and of a migrated one), in bytes (16 KiB): rows
    /// of a few kilobytes (an article's HTML) share a page instead of leaving most of a
    /// 4 KiB page empty, and a page of narrow rows still holds dozens of them.
    public static let pageSize = 16_384
    /// The GRDB database, for ObjectGraph's tests, which look at the schema and rows as
    /// stored. Not public: everything above ObjectGraph goes through contexts, fetch and
    /// batch requests and full-text indexes, and no SQL is written against its schema.
    var database: any DatabaseWriter { writer }

    static let metadataTable = "Z_METADATA"

    /// Opens (creating if needed) the store at `location` for `model`.
    ///
    /// A file that is not an SQLite database, or that was made for another model, is refused
    /// with ``ObjectGraphError/notADatabase(path:)`` or ``ObjectGraphError/incompatibleStore(path:reason:)``
    /// and left untouched; a store from a newer model version is refused with
    /// ``ObjectGraphError/storeTooNew(path:storeVersion:modelVersion:)``; an older one is
    /// migrated by `migrator` when one is given.
    ///
    /// With `readOnly` (or when the file exists and this process may not write it) the
    /// store is opened for reading only: fetches work, and saves, batch requests and
    /// metadata changes throw ``ObjectGraphError/readOnlyStore(path:)``. A file whose pages
    /// turn out to be damaged makes any call throw ``ObjectGraphError/damaged(path:detail:)``.
    public init(model: ManagedObjectModel, location: StoreLocation, migrator: StoreMigrator? = nil, readOnly: Bool = false)
        throws(ObjectGraphError)
    {
        self.model = model
        self.location = location
        // Whether the store records history, read in the transaction that opens it.
        let tracking: PersistentHistoryTracking?
        var config = Configuration()
        config.label = "ObjectGraph"
        config.busyMode = .timeout(Self.busyTimeout)
        config.prepareDatabase { db in
            PredicateSQLFunctions.register(in: db)
            FullTextIndexSchema.registerSaveGate(in: db)
        }
        do {
            switch location {
            case .inMemory:
                isReadOnly = false
                let queue = try DatabaseQueue(configuration: config)
                identifier = try queue.write { db in
                    try Self.createSchema(model: model, in: db)
                    try FullTextIndexSchema.update(model: model, in: db)
                    return try Self.identifier(in: db, location: location)
                }
                tracking = nil
                writer = queue
            case .file(let url):
                let path = url.path
                // Every connection: once a checkpoint resets the `-wal`, it is cut back to this size.
                config.prepareDatabase { db in
                    try db.execute(sql: "PRAGMA journal_size_limit = \(Self.journalSizeLimit)")
                    // Only a file without pages yet takes it (before WAL mode is set up).
                    try db.execute(sql: "PRAGMA page_size = \(Self.pageSize)")
                }
                let exists = FileManager.default.fileExists(atPath: path)
                isReadOnly = readOnly || (exists && access(path, W_OK) != 0)
                if isReadOnly {
                    guard exists else {
                        throw ObjectGraphError.incompatibleStore(path: path, reason: "does not exist (opened read-only)")
                    }
                    try Self.inspectExistingFile(path: path, model: model, migrator: nil, readOnly: true)
                    config.readonly = true
                    let queue = try DatabaseQueue(path: Self.readOnlyOpenPath(path), configuration: config)
                    (identifier, tracking) = try queue.read { db in
                        (try Self.identifier(in: db, location: location), try HistorySchema.tracking(in: db))
                    }
                    writer = queue
                    break
                }
                try Self.inspectExistingFile(path: path, model: model, migrator: migrator, readOnly: false)
                let pool = try DatabasePool(path: path, configuration: config)
                (identifier, tracking) = try pool.write { db in
                    if try !db.tableExists(Self.metadataTable) {
                        try Self.createSchema(model: model, in: db)
                    } else {
                        try Self.recordIdentifierIfMissing(in: db)
                    }
                    if try FullTextIndexSchema.needsWork(model: model, in: db) {
                        try FullTextIndexSchema.update(model: model, in: db)
                    }
                    return (try Self.identifier(in: db, location: location), try HistorySchema.tracking(in: db))
                }
                writer = pool
            }
        } catch {
            throw ObjectGraphError.wrapping(error, path: location.path)
        }
        historyTracking.withLock { $0 = tracking }
    }

    /// Gives a store made before identifiers existed its UUID (in the write that opens it).
    static func recordIdentifierIfMissing(in db: Database) throws {
        try db.execute(
            sql: "INSERT OR IGNORE INTO \"Z_METADATA\" (key, value) VALUES (?, ?)",
            arguments: [MetadataKey.storeIdentifier, UUID().uuidString])
    }

    /// The store's identifier: the recorded UUID, else (a read-only file made before
    /// identifiers existed) a hash of its path.
    static func identifier(in db: Database, location: StoreLocation) throws -> String {
        if let recorded = try String.fetchOne(
            db, sql: "SELECT value FROM \"Z_METADATA\" WHERE key = ?", arguments: [MetadataKey.storeIdentifier])
        {
            return recorded
        }
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in location.path.utf8 {
            h ^= UInt64(b)
            h = h &* 0x100_0000_01b3
        }
        return "path-" + String(h, radix: 16)
    }

    /// Checks an existing file before anything writes to it (opening in WAL mode would
    /// change its header), so that a refused file is left exactly as it was.
    static func inspectExistingFile(path: String, model: ManagedObjectModel, migrator: StoreMigrator?, readOnly: Bool = false)
        throws
    {
        let fm = FileManager.default
        guard fm.fileExists(atPath: path) else { return }
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw ObjectGraphError.incompatibleStore(path: path, reason: "cannot be read")
        }
        let header = (try? handle.read(upToCount: 16)) ?? Data()
        try? handle.close()
        if header.isEmpty { return }  // an empty file becomes a new store
        guard header == Data("SQLite format 3\0".utf8) else { throw ObjectGraphError.notADatabase(path: path) }

        var config = Configuration()
        config.readonly = true
        // Another process may hold the lock for a moment (a refresh committing): wait, as every other open does.
        config.busyMode = .timeout(busyTimeout)
        let info: (tables: [String], metadata: [String: String], differences: [String])
        do {
            let queue = try DatabaseQueue(path: readOnly ? readOnlyOpenPath(path) : path, configuration: config)
            info = try queue.read { db in
                let tables = try String.fetchAll(
                    db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
                var metadata: [String: String] = [:]
                if tables.contains(metadataTable) {
                    for row in try Row.fetchAll(db, sql: "SELECT key, value FROM \"Z_METADATA\"") {
                        metadata[row["key"]] = row["value"]
                    }
                }
                // Only when the schema hash differs (and the rest matches) is the file compared in detail.
                let differs =
                    metadata[MetadataKey.modelName] == model.name
                    && Int(metadata[MetadataKey.modelVersion] ?? "") == model.version
                    && metadata[MetadataKey.schemaHash] != model.schemaHash
                return (tables, metadata, differs ? try SchemaDifference.describe(model: model, in: db) : [])
            }
            try queue.close()
        } catch let error as DatabaseError where error.resultCode == .SQLITE_NOTADB {
            throw ObjectGraphError.notADatabase(path: path)
        }
        if info.tables.isEmpty { return }
        guard info.tables.contains(metadataTable) else {
            throw ObjectGraphError.incompatibleStore(path: path, reason: "an SQLite database that is not an ObjectGraph store")
        }
        guard info.metadata[MetadataKey.modelName] == model.name else {
            throw ObjectGraphError.incompatibleStore(
                path: path,
                reason: "made for model '\(info.metadata[MetadataKey.modelName] ?? "?")', not '\(model.name)'")
        }
        let storeVersion = Int(info.metadata[MetadataKey.modelVersion] ?? "") ?? 0
        if storeVersion > model.version {
            throw ObjectGraphError.storeTooNew(path: path, storeVersion: storeVersion, modelVersion: model.version)
        }
        if storeVersion < model.version {
            if readOnly {
                throw ObjectGraphError.migrationFailed(
                    path: path, reason: "store is version \(storeVersion), model is \(model.version), and the store is read-only")
            }
            guard let migrator else {
                throw ObjectGraphError.migrationFailed(
                    path: path, reason: "store is version \(storeVersion), model is \(model.version), and no migrator was given")
            }
            try migrator.migrate(storeAt: path, from: storeVersion, to: model)
            return
        }
        if info.metadata[MetadataKey.schemaHash] != model.schemaHash {
            throw ObjectGraphError.incompatibleStore(
                path: path,
                reason: "its schema differs from model '\(model.name)' version \(model.version): "
                    + info.differences.joined(separator: "; "))
        }
    }

    /// The name SQLite opens a store by for reading only. A WAL store needs its `-shm` file
    /// (created beside it on open); in a folder this process may not write, where it is
    /// missing and cannot be made, the file is opened as immutable (`file:…?immutable=1`,
    /// no locks, no WAL): nobody can be writing it there without that file either.
    static func readOnlyOpenPath(_ path: String) -> String {
        let folder = (path as NSString).deletingLastPathComponent
        guard access(folder.isEmpty ? "." : folder, W_OK) != 0, !FileManager.default.fileExists(atPath: path + "-shm") else {
            return path
        }
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "?#%")
        return "file:" + (path.addingPercentEncoding(withAllowedCharacters: allowed) ?? path) + "?immutable=1"
    }

    static func createSchema(model: ManagedObjectModel, in db: Database) throws {
        try db.execute(sql: "CREATE TABLE \"Z_METADATA\" (key TEXT PRIMARY KEY NOT NULL, value TEXT)")
        try db.execute(sql: "CREATE TABLE \"Z_PRIMARYKEY\" (Z_ENTITY TEXT PRIMARY KEY NOT NULL, Z_MAX INTEGER NOT NULL)")
        for sql in SchemaGenerator.createStatements(for: model) { try db.execute(sql: sql) }
        for sql in SchemaGenerator.joinTableStatements(for: model) { try db.execute(sql: sql) }
        try writeModelMetadata(model: model, in: db)
        try recordIdentifierIfMissing(in: db)
    }

    static func writeModelMetadata(model: ManagedObjectModel, in db: Database) throws {
        for (k, v) in [
            (MetadataKey.modelName, model.name), (MetadataKey.modelVersion, String(model.version)),
            (MetadataKey.schemaHash, model.schemaHash),
        ] {
            try db.execute(sql: "INSERT OR REPLACE INTO \"Z_METADATA\" (key, value) VALUES (?, ?)", arguments: [k, v])
        }
    }

    // MARK: Metadata

    /// The store's metadata value for `key` (kept across migrations).
    ///
    /// ```swift
    /// let marker = try store.metadata(forKey: "import.resume")
    /// ```
    public func metadata(forKey key: String) throws(ObjectGraphError) -> String? {
        try read { db in try String.fetchOne(db, sql: "SELECT value FROM \"Z_METADATA\" WHERE key = ?", arguments: [key]) }
    }

    /// Sets (or with nil, removes) a metadata value.
    ///
    /// ```swift
    /// try store.setMetadata("42", forKey: "import.resume")
    /// ```
    public func setMetadata(_ value: String?, forKey key: String) throws(ObjectGraphError) {
        try write { db in try Self.setMetadata(value, forKey: key, in: db) }
    }

    static func setMetadata(_ value: String?, forKey key: String, in db: Database) throws {
        if let value {
            try db.cachedStatement(sql: "INSERT OR REPLACE INTO \"Z_METADATA\" (key, value) VALUES (?, ?)")
                .execute(arguments: [key, value])
        } else {
            try db.cachedStatement(sql: "DELETE FROM \"Z_METADATA\" WHERE key = ?").execute(arguments: [key])
        }
    }

    /// All metadata as a dictionary.
    public func allMetadata() throws(ObjectGraphError) -> [String: String] {
        try read { db in
            var result: [String: String] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT key, value FROM \"Z_METADATA\"") { result[row["key"]] = row["value"] }
            return result
        }
    }

    // MARK: Access

    func read<T>(_ block: (Database) throws -> T) throws(ObjectGraphError) -> T {
        do {
            return try writer.read(block)
        } catch {
            throw ObjectGraphError.wrapping(error, path: location.path)
        }
    }

    /// Runs `body`; writes it starts on this thread run `work` at the end of their transaction.
    /// A batched import uses it to record its resume marker in the transaction that saves
    /// the batch. (A thread-dictionary entry, not a task-local: contexts run on dispatch queues.)
    static func withTransactionExtras<R>(_ work: @escaping (Database) throws -> Void, _ body: () throws -> R) rethrows -> R {
        let dictionary = Thread.current.threadDictionary
        let previous = dictionary[TransactionExtras.key]
        dictionary[TransactionExtras.key] = TransactionExtras(work: work)
        defer { dictionary[TransactionExtras.key] = previous }
        return try body()
    }

    final class TransactionExtras {
        static let key = "ObjectGraph.transactionExtras"
        let work: (Database) throws -> Void
        init(work: @escaping (Database) throws -> Void) { self.work = work }
    }

    func write<T>(_ block: (Database) throws -> T) throws(ObjectGraphError) -> T {
        if isReadOnly { throw .readOnlyStore(path: location.path) }
        let extras = Thread.current.threadDictionary[TransactionExtras.key] as? TransactionExtras
        do {
            return try writer.write { db in
                let result = try block(db)
                try extras?.work(db)
                return result
            }
        } catch {
            throw ObjectGraphError.wrapping(error, path: location.path)
        }
    }

    // MARK: Checking

    /// SQLite's `PRAGMA integrity_check` over the whole store: the problems found, or an
    /// empty list when the store is sound. A damaged store answers with what SQLite
    /// could tell; restore a backup, or copy what can still be read into a new store.
    ///
    /// ```swift
    /// let problems = try store.integrityCheck()
    /// if !problems.isEmpty { print("damaged:", problems.joined(separator: "\n")) }
    /// ```
    public func integrityCheck() throws(ObjectGraphError) -> [String] {
        do {
            let lines = try read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check") }
            return lines == ["ok"] ? [] : lines
        } catch .damaged(_, let detail) {
            return [detail]
        }
    }

    /// SQLite's `PRAGMA data_version` as seen by a reader: changes when another connection
    /// (or process) commits.
    func dataVersion() -> Int64? {
        try? writer.read { db in try Int64.fetchOne(db, sql: "PRAGMA data_version") } ?? nil
    }

    /// Copies the write-ahead log back into the database file (`PRAGMA wal_checkpoint`) and,
    /// with `truncate`, cuts the `-wal` file to zero bytes; call it after bulk writes so the
    /// `-wal` does not stay large. Best-effort: when a reader elsewhere holds an old snapshot
    /// the checkpoint stops where it must and this answers `false` instead of throwing. An
    /// in-memory store has no log and answers `true`; a read-only store answers `false`.
    ///
    /// ```swift
    /// try context.execute(BatchUpdateRequest(entityName: "FeedItem", propertiesToUpdate: ["read": .bool(true)]))
    /// store.checkpoint(truncate: true)
    /// ```
    @discardableResult
    public func checkpoint(truncate: Bool = true) -> Bool {
        guard case .file = location else { return true }
        guard !isReadOnly, let pool = writer as? DatabasePool else { return false }
        let mode = truncate ? "TRUNCATE" : "PASSIVE"
        do {
            return try pool.writeWithoutTransaction { db in
                // Wait for readers briefly, not the full busy timeout: this is housekeeping.
                sqlite3_busy_timeout(db.sqliteConnection, Int32(Self.checkpointBusyMilliseconds))
                defer { sqlite3_busy_timeout(db.sqliteConnection, Int32(Self.busyTimeout * 1000)) }
                let row = try Row.fetchOne(db, sql: "PRAGMA wal_checkpoint(\(mode))")
                let busy: Int = row?[0] ?? 1
                return busy == 0
            }
        } catch {
            return false
        }
    }

    /// How long ``checkpoint(truncate:)`` waits for another connection's read to finish.
    static let checkpointBusyMilliseconds = 500

    /// Closes the database (only needed to remove or replace the file while the process runs).
    public func close() throws(ObjectGraphError) {
        do {
            if let pool = writer as? DatabasePool { try pool.close() }
            if let queue = writer as? DatabaseQueue { try queue.close() }
        } catch {
            throw ObjectGraphError.wrapping(error)
        }
    }
}

extension StoreLocation {
    /// The file's path, or `:memory:`.
    var path: String {
        switch self {
        case .file(let url): return url.path
        case .inMemory: return ":memory:"
        }
    }
}

/// Metadata keys ObjectGraph itself uses.
public enum MetadataKey {
    public static let modelName = "objectgraph.model"
    public static let modelVersion = "objectgraph.version"
    public static let schemaHash = "objectgraph.schemaHash"
    /// The store's identifier (see ``PersistentStore/identifier``).
    public static let storeIdentifier = "objectgraph.storeIdentifier"
}

extension ObjectGraphError {
    init(_ error: DatabaseError) {
        self = .sqlite(code: error.resultCode.rawValue, message: error.message ?? "\(error)", sql: error.sql)
    }

    static func wrapping(_ error: any Error) -> ObjectGraphError {
        if let e = error as? ObjectGraphError { return e }
        if let e = error as? DatabaseError { return ObjectGraphError(e) }
        return .sqlite(code: -1, message: "\(error)", sql: nil)
    }

    /// As ``wrapping(_:)``, naming the store at `path` when SQLite finds its file damaged
    /// (SQLITE_CORRUPT, SQLITE_NOTADB) or read-only (SQLITE_READONLY).
    static func wrapping(_ error: any Error, path: String) -> ObjectGraphError {
        let wrapped = wrapping(error)
        guard case .sqlite(let code, let message, _) = wrapped else { return wrapped }
        switch code & 0xff {
        case SQLITE_CORRUPT, SQLITE_NOTADB: return .damaged(path: path, detail: message)
        case SQLITE_READONLY: return .readOnlyStore(path: path)
        default: return wrapped
        }
    }
}
