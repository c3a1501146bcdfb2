import Foundation
import GRDB

/// The versions of one model, oldest first, and the custom steps between them: the
/// migrator ``PersistentContainer`` uses to open a store written by an older version.
///
/// Each step from one version to the next is inferred (lightweight, as Core Data calls it)
/// for additive changes — a new optional or defaulted attribute, a new entity, a new index or
/// uniqueness constraint, an attribute or entity renamed through its `renamingIdentifier`, a
/// removed attribute or entity, a new to-one relationship (a nullable column) — and a new
/// derived count is filled by counting once. Anything else (a new required attribute without
/// a default, a changed type, values computed from old ones) takes an
/// ``EntityMigrationPolicy`` for that entity and step, which sees every old row.
///
/// Migration works on a copy: the store (with its WAL) is copied to `<store>.v<old>.bak`,
/// the copy is migrated, every step inside one transaction, and only then replaces the
/// store. A failure (a policy throws, a new uniqueness constraint is violated by existing
/// rows, a required value is missing) throws ``ObjectGraphError/migrationFailed(path:reason:)``
/// naming the step and the entity, and leaves the store byte for byte as it was. Store
/// metadata set by the application survives; the model version and schema hash are updated.
/// The store must not be open in another process while it is migrated (it is replaced).
///
/// ```swift
/// let plan = try MigrationPlan(versions: [toDoV1, toDoV2], policies: [
///     EntityMigrationPolicy(entity: "ToDo", toVersion: 2) { row in
///         if row.oldString("name")?.hasPrefix("A") == true { row["doNotAlert"] = true }
///     },
/// ])
/// let container = try PersistentContainer(model: toDoV2, store: .file(url), migrator: plan)
/// ```
public struct MigrationPlan: StoreMigrator {
    /// The model versions, oldest first (strictly increasing version numbers, one model name).
    public let versions: [ManagedObjectModel]
    /// Custom steps, by entity and destination version.
    public let policies: [EntityMigrationPolicy]
    /// Attributes moved into a new one-to-one entity, by destination version (see ``AttributeMove``).
    public let moves: [AttributeMove]
    /// What happens to the backup copy once a migration succeeds.
    public let backupRetention: BackupRetention

    /// What to do with `<store>.v<old>.bak` after a successful migration.
    ///
    /// ```swift
    /// let plan = try MigrationPlan(versions: [v1, v2], backupRetention: .remove)
    /// ```
    public enum BackupRetention: Sendable, Equatable {
        /// Keep the copy of the old store beside the migrated one (the default).
        case keep
        /// Delete it once the migrated store has replaced the old one.
        case remove
    }

    /// Checks that the versions belong to one model, in increasing order, and that every
    /// policy names an entity of its destination version.
    ///
    /// ```swift
    /// let plan = try MigrationPlan(versions: [v1, v2, v3])
    /// ```
    public init(
        versions: [ManagedObjectModel], policies: [EntityMigrationPolicy] = [], moves: [AttributeMove] = [],
        backupRetention: BackupRetention = .keep
    ) throws(ModelError) {
        guard let first = versions.first else { throw ModelError(message: "a migration plan needs at least one model version") }
        ManagedObjectModel.markSuperseded(versions.dropLast())
        for (a, b) in zip(versions, versions.dropFirst()) {
            guard b.name == first.name else {
                throw ModelError(message: "migration plan mixes models '\(first.name)' and '\(b.name)'")
            }
            guard b.version > a.version else {
                throw ModelError(message: "migration plan versions must increase: \(a.version) is followed by \(b.version)")
            }
        }
        for policy in policies {
            guard let index = versions.firstIndex(where: { $0.version == policy.toVersion }), index > 0 else {
                throw ModelError(
                    message: "policy for \(policy.entityName): version \(policy.toVersion) is not a destination in the plan")
            }
            guard versions[index].entityIfPresent(named: policy.entityName) != nil else {
                throw ModelError(message: "policy for \(policy.entityName): no such entity in version \(policy.toVersion)")
            }
        }
        for move in moves {
            guard let index = versions.firstIndex(where: { $0.version == move.toVersion }), index > 0 else {
                throw ModelError(
                    message: "move from \(move.entityName): version \(move.toVersion) is not a destination in the plan")
            }
            guard !policies.contains(where: { $0.toVersion == move.toVersion && $0.entityName == move.entityName }) else {
                throw ModelError(
                    message: "move from \(move.entityName): the entity also has a policy for version \(move.toVersion)")
            }
            try move.validate(from: versions[index - 1], to: versions[index])
        }
        self.versions = versions
        self.policies = policies
        self.moves = moves
        self.backupRetention = backupRetention
    }

    /// The backup path used for a store at `path` migrated from `version`.
    ///
    /// ```swift
    /// let backup = MigrationPlan.backupPath(forStoreAt: "/x/zeader.sqlite", version: 1)   // "/x/zeader.sqlite.v1.bak"
    /// ```
    public static func backupPath(forStoreAt path: String, version: Int) -> String {
        "\(path).v\(version).bak"
    }

    // MARK: StoreMigrator

    /// Migrates the store at `path` from `version` to `model` step by step (called by
    /// ``PersistentStore`` when it opens an older store).
    ///
    /// ```swift
    /// try plan.migrate(storeAt: url.path, from: 1, to: toDoV2)   // usually done by PersistentContainer
    /// ```
    public func migrate(storeAt path: String, from version: Int, to model: ManagedObjectModel) throws {
        guard let start = versions.firstIndex(where: { $0.version == version }) else {
            throw ObjectGraphError.migrationFailed(
                path: path, reason: "store is version \(version), which the migration plan does not list")
        }
        guard let end = versions.firstIndex(where: { $0.version == model.version }) else {
            throw ObjectGraphError.migrationFailed(
                path: path, reason: "model version \(model.version) is not in the migration plan")
        }
        guard versions[end].schemaHash == model.schemaHash else {
            let differences = SchemaDifference.describe(
                model: model, comparedTo: versions[end], otherName: "the plan's version \(model.version)")
            throw ObjectGraphError.migrationFailed(
                path: path,
                reason: "model '\(model.name)' version \(model.version) differs from the plan's version \(model.version): "
                    + differences.joined(separator: "; "))
        }
        let storedHash = try Self.storedSchemaHash(path: path)
        guard storedHash == versions[start].schemaHash else {
            let differences = Self.storeDifferences(path: path, from: versions[start], named: "version \(version) of the plan")
            throw ObjectGraphError.migrationFailed(
                path: path,
                reason: "the store's schema does not match version \(version) of the migration plan"
                    + (differences.isEmpty ? "" : ": " + differences.joined(separator: "; ")))
        }

        let fm = FileManager.default
        let backup = Self.freePath(Self.backupPath(forStoreAt: path, version: version))
        // A working copy left by a migration that was killed is garbage: start afresh.
        let work = path + ".migrating"
        for p in [work, work + "-journal"] where fm.fileExists(atPath: p) { try? fm.removeItem(atPath: p) }
        var succeeded = false
        var originalTouched = false
        defer {
            if !succeeded {
                for p in [work, work + "-journal", work + "-wal", work + "-shm"] { try? fm.removeItem(atPath: p) }
                // Once the old WAL is gone, the backup is the only complete copy: keep it.
                if !originalTouched { try? fm.removeItem(atPath: backup) }
            }
        }
        do {
            // The SQLite backup API reads through the WAL: the copy holds every committed
            // transaction, and the original is only read.
            var readOnly = Configuration()
            readOnly.readonly = true
            readOnly.busyMode = .timeout(PersistentStore.busyTimeout)
            // Both copies are made with it, each left as one self-contained file (rollback
            // journal, not WAL), so that nothing depends on a -wal file beside it.
            let source = try DatabaseQueue(path: path, configuration: readOnly)
            let copy = try DatabaseQueue(path: backup)
            try source.backup(to: copy)
            try copy.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA journal_mode = DELETE") }
            try copy.close()

            var config = Configuration()
            config.prepareDatabase { db in PredicateSQLFunctions.register(in: db) }
            let queue = try DatabaseQueue(path: work, configuration: config)
            try source.backup(to: queue)
            try source.close()
            try queue.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA journal_mode = DELETE") }
            try queue.write { db in
                for i in start..<end {
                    let step = MigrationStep(
                        from: versions[i], to: versions[i + 1],
                        policies: policies.filter { $0.toVersion == versions[i + 1].version },
                        moves: moves.filter { $0.toVersion == versions[i + 1].version })
                    try step.run(in: db)
                }
                try PersistentStore.writeModelMetadata(model: model, in: db)
            }
            // The copy takes the page size of new stores, and leaves behind the pages of the
            // tables it rebuilt (a quarter or more of the file empty): both take a VACUUM.
            let (pageSize, pages, free) = try queue.read { db in
                (
                    try Int.fetchOne(db, sql: "PRAGMA page_size") ?? 0, try Int.fetchOne(db, sql: "PRAGMA page_count") ?? 0,
                    try Int.fetchOne(db, sql: "PRAGMA freelist_count") ?? 0
                )
            }
            if pageSize != PersistentStore.pageSize || free * 4 >= pages {
                try queue.writeWithoutTransaction { db in
                    try db.execute(sql: "PRAGMA page_size = \(PersistentStore.pageSize)")
                    try db.execute(sql: "VACUUM")
                }
            }
            try queue.close()
        } catch let failure as MigrationStep.Failure {
            throw ObjectGraphError.migrationFailed(path: path, reason: failure.reason)
        } catch let error as ObjectGraphError {
            throw error
        } catch {
            throw ObjectGraphError.migrationFailed(path: path, reason: "\(ObjectGraphError.wrapping(error))")
        }

        // The backup holds everything the old WAL held; the old WAL must not be replayed
        // onto the new file.
        originalTouched = true
        for p in [path + "-wal", path + "-shm"] where fm.fileExists(atPath: p) { try? fm.removeItem(atPath: p) }
        guard rename(work, path) == 0 else {
            throw ObjectGraphError.migrationFailed(
                path: path,
                reason: "could not replace the store with the migrated copy (errno \(errno)); the old store is in \(backup)")
        }
        succeeded = true
        if backupRetention == .remove { try? fm.removeItem(atPath: backup) }
    }

    /// What differs between the store file at `path` and the tables `model` makes (empty
    /// when the file cannot be read: the refusal is then made without the detail).
    static func storeDifferences(path: String, from model: ManagedObjectModel, named modelName: String) -> [String] {
        var config = Configuration()
        config.readonly = true
        config.busyMode = .timeout(PersistentStore.busyTimeout)
        guard let queue = try? DatabaseQueue(path: path, configuration: config) else { return [] }
        defer { try? queue.close() }
        return
            (try? queue.read { db in
                try SchemaDifference.describe(model: model, in: db, store: "the store", modelName: modelName)
            }) ?? []
    }

    /// The schema hash recorded in the store's metadata.
    static func storedSchemaHash(path: String) throws -> String? {
        var config = Configuration()
        config.readonly = true
        config.busyMode = .timeout(PersistentStore.busyTimeout)
        let queue = try DatabaseQueue(path: path, configuration: config)
        defer { try? queue.close() }
        return try queue.read { db in
            try String.fetchOne(db, sql: "SELECT value FROM \"Z_METADATA\" WHERE key = ?", arguments: [MetadataKey.schemaHash])
        }
    }

    /// `path`, or `path` with a number added when something already exists there (a backup
    /// is never overwritten).
    static func freePath(_ path: String) -> String {
        var candidate = path
        var n = 2
        while FileManager.default.fileExists(atPath: candidate) {
            candidate = "\(path).\(n)"
            n += 1
        }
        return candidate
    }
}

/// A custom migration step for one entity, like Core Data's `NSEntityMigrationPolicy`: it
/// sees every old row of the entity and can change the values of the new row.
///
/// The row's ``MigrationRow/newValues`` start as the inferred step would write them
/// (renamed attributes carried over, new attributes at their defaults); the policy changes
/// them. Throwing fails the whole migration and leaves the store untouched.
///
/// ```swift
/// let policy = EntityMigrationPolicy(entity: "ToDo", toVersion: 2) { row in
///     if row.oldString("name")?.hasPrefix("A") == true { row["doNotAlert"] = true }
/// }
/// ```
public struct EntityMigrationPolicy: Sendable {
    /// The entity's name in the destination version.
    public let entityName: String
    /// The version this step migrates to.
    public let toVersion: Int
    /// Called once per old row, in primary-key order.
    public let transform: @Sendable (inout MigrationRow) throws -> Void

    /// A policy for `entity` on the step that leads to `toVersion`.
    public init(entity: String, toVersion: Int, transform: @escaping @Sendable (inout MigrationRow) throws -> Void) {
        self.entityName = entity
        self.toVersion = toVersion
        self.transform = transform
    }
}

/// One row being migrated by an ``EntityMigrationPolicy``.
///
/// Values are keyed by attribute name; stored to-one relationships appear under their name
/// as the destination's primary key (`.integer`), or `.null`.
///
/// ```swift
/// let policy = EntityMigrationPolicy(entity: "ToDo", toVersion: 2) { row in
///     if row.old["dueDate"] == .null {       // row.old["dueDate"]: .date(…) or .null
///         row["doNotAlert"] = .bool(true)    // same as row.newValues["doNotAlert"] = …
///     }
/// }
/// ```
public struct MigrationRow: Sendable {
    /// The row's primary key (kept by the migration).
    public let primaryKey: Int64
    /// The old row's values, by the old version's attribute names.
    public let old: [String: Value]
    /// The new row's values, by the new version's attribute names.
    public var newValues: [String: Value]

    /// The new value of `key`: `row["doNotAlert"] = true`.
    public subscript(key: String) -> Value {
        get { newValues[key] ?? .null }
        set { newValues[key] = newValue }
    }

    /// The old value of `key` as a string, if it is one.
    ///
    /// ```swift
    /// let policy = EntityMigrationPolicy(entity: "ToDo", toVersion: 2) { row in
    ///     if row.oldString("name")?.hasPrefix("A") == true { row["doNotAlert"] = true }
    /// }
    /// ```
    public func oldString(_ key: String) -> String? {
        if case .string(let s)? = old[key] { return s }
        return nil
    }
}
