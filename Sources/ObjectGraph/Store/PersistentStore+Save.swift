import Foundation
import GRDB
import GRDBSQLite
import Synchronization

// MARK: - The save plan (what a context hands the store)

/// Everything a context's save asks of the store: the rows to insert, update and delete,
/// and the parents whose only change is a derived count. Made by
/// `ManagedObjectContext.makeSavePlan()` on the context's queue; read (never changed) by
/// ``SaveExecution`` inside the write transaction while that queue waits.
struct SavePlan {
    struct Insert {
        let object: ManagedObject
        let entity: Entity
        let temporaryID: ObjectID
        // The object's values are read in place: the context's queue waits for the
        // write, so nothing changes them meanwhile.
        var values: [Value] { object.values }
        var toOne: [ObjectID?] { object.toOne }
    }
    struct Update {
        let object: ManagedObject
        let entity: Entity
        let pk: Int64
        let expectedVersion: Int64
        let values: [Value]
        let toOne: [ObjectID?]
        let snapshot: Snapshot
        let changedAttributes: [Int]
        let changedRelationships: [Int]
        let changedKeys: Set<String>
    }
    struct Delete {
        let object: ManagedObject
        let entity: Entity
        let pk: Int64
        let expectedVersion: Int64?
    }
    var inserts: [Insert] = []
    var updates: [Update] = []
    var deletes: [Delete] = []
    var deletedIDs: Set<ObjectID> = []
    /// Parents whose only change is a derived count.
    var counterOnly: [ManagedObject] = []
    /// Many-to-many pairs to insert or delete (see ``JoinTable``).
    var joinWrites: [JoinWrite] = []
    /// Orders of ordered many-to-many relationships to write.
    var orderWrites: [OrderWrite] = []
    /// Who saves, for the history (``ManagedObjectContext/transactionAuthor`` and the context's name).
    var author: String?
    var contextName: String?
}

/// What the store did with a ``SavePlan``: the permanent IDs it allocated, each update's
/// final state after conflict resolution, and the derived counts as the transaction left them.
struct SaveOutcome {
    var permanentIDs: [ObjectID: ObjectID] = [:]
    /// The permanent ID of each of the plan's inserts, in the plan's order.
    var insertedIDs: [ObjectID] = []
    /// Final values and snapshot per updated object, after conflict resolution.
    var resolved: [ObjectID: Snapshot] = [:]
    var resolvedValues: [ObjectID: ([Value], [ObjectID?])] = [:]
    var updatedKeys: [ObjectID: Set<String>] = [:]
    var deletedInStore: Set<ObjectID> = []
    /// Final stored derived counts, by parent (permanent ID) and attribute index.
    var counterValues: [ObjectID: [Int: Int64]] = [:]
}

extension PersistentStore {
    /// Writes `plan` in one transaction under `policy` and reports what it did; throws
    /// (writing nothing) on a constraint failure or, under ``MergePolicy/error``, a conflict.
    func save(_ plan: SavePlan, policy: MergePolicy) throws(ObjectGraphError) -> SaveOutcome {
        let model = self.model
        let batchLimit = fullTextBatchRows.withLock { $0 }
        return try write { db in
            var execution = SaveExecution(plan: plan, policy: policy, model: model, db: db)
            // Asked inside the transaction, which no other connection can change the schema during.
            execution.tablesWithTriggers = try SaveExecution.tablesWithTriggers(in: db, cache: triggerTables)
            // Asked inside the transaction: a bulk write's end clears it before it indexes
            // what waits, on this same writer, so no save leaves rows after that.
            execution.defersFullTextIndexing = batchLimit > 1 && bulkWriteDefersIndexing.withLock { $0 }
            execution.fullTextBatchLimit = batchLimit
            execution.history = historyRecord(author: plan.author, contextName: plan.contextName)
            try execution.run()
            return execution.outcome
        }
    }
}

// MARK: - Executing a plan (inside the write transaction; touches no context state)

/// One save, step by step: allocate primary keys, insert, update (with optimistic locking
/// and conflict resolution), delete, then apply the derived-count deltas the changes
/// caused and read back the counts.
struct SaveExecution {
    let plan: SavePlan
    let policy: MergePolicy
    let model: ManagedObjectModel
    let db: Database
    /// Whether the rows inserted into full-text indexed entities are left for a later
    /// statement over many saves' rows (during a bulk write: FullTextIndex.swift).
    var defersFullTextIndexing = false
    /// How many rows may wait (``PersistentStore/fullTextBatchLimit``).
    var fullTextBatchLimit = FullTextIndexSchema.deferredRowLimit
    /// The tables (lowercased) that have triggers now: the others take `INSERT OR FAIL`
    /// (see ``insertRows()``). Nil: unknown, every table takes a plain `INSERT`.
    var tablesWithTriggers: Set<String>?
    /// The history of this save, when the store records history (History/SaveExecution+History.swift).
    var history: HistoryRecord?
    private(set) var outcome = SaveOutcome()
    /// Each derived count's deltas per parent. A model has a handful of counts: a linear
    /// search finds a count's entry.
    private var counterDeltas: [(counter: CounterInfo, deltas: [ObjectID: Int64])] = []
    private var conflicts: [MergeConflict] = []
    // The last temporary ID ``saved(_:)`` resolved, and its permanent ID.
    private var lastTemporary: ObjectID?
    private var lastPermanent: ObjectID?
    /// The inserted rows' text and blob bytes while their statement runs.
    private let boundBytes = BoundBytes()

    init(plan: SavePlan, policy: MergePolicy, model: ManagedObjectModel, db: Database) {
        self.plan = plan
        self.policy = policy
        self.model = model
        self.db = db
    }

    mutating func run() throws {
        try allocatePrimaryKeys()
        var manyToManyCounts = try ManyToManyCounts(before: self)
        try FullTextIndexSchema.withSaveIndexingInserts { try insertRows() }
        try indexInsertedRows()
        try updateRows()
        try recordDeletionsInHistory()
        try deleteRows()
        try writeJoinChanges()
        if !conflicts.isEmpty { throw ObjectGraphError.mergeConflict(conflicts) }
        try applyCounterDeltas()
        outcome.counterValues = try manyToManyCounts.finish(self)
        try readBackCounters()
        try writeHistory()
    }

    // MARK: Keys

    /// Permanent primary keys, never reused (kept in Z_PRIMARYKEY like Core Data), handed
    /// out in insertion order. The entity's next key is looked up only when the entity
    /// changes, in a list of the save's few tables (inserts of two entities may alternate:
    /// a dictionary keyed by table name hashed the name at every change).
    private mutating func allocatePrimaryKeys() throws {
        outcome.insertedIDs.reserveCapacity(plan.inserts.count)
        outcome.permanentIDs.reserveCapacity(plan.inserts.count)
        // By table: the entities of an inheritance hierarchy share their root's keys.
        var nextPK: [(table: String, next: Int64)] = []
        var currentEntity: Entity?
        var slot = 0
        for insert in plan.inserts {
            if insert.entity !== currentEntity {
                currentEntity = insert.entity
                let table = insert.entity.tableName
                if let found = nextPK.firstIndex(where: { $0.table == table }) {
                    slot = found
                } else {
                    nextPK.append((table, try PrimaryKeyAllocator.next(for: insert.entity, in: db)))
                    slot = nextPK.count - 1
                }
            }
            let permanent = ObjectID(entity: insert.entity, rawValue: nextPK[slot].next)
            nextPK[slot].next += 1
            outcome.insertedIDs.append(permanent)
            outcome.permanentIDs[insert.temporaryID] = permanent
        }
        for (table, next) in nextPK {
            let entity = model.tableEntities.first { $0.tableName == table }!
            try PrimaryKeyAllocator.record(last: next - 1, for: entity, in: db)
        }
    }

    /// Where a relationship points, as saved: nil for objects deleted in this save,
    /// permanent IDs for objects inserted in it. Consecutive objects usually point at the
    /// same new object (a feed's new items at their new feed): one look-up for all.
    private mutating func saved(_ id: ObjectID?) -> ObjectID? {
        guard let id else { return nil }
        if !plan.deletedIDs.isEmpty && plan.deletedIDs.contains(id) { return nil }
        guard id.isTemporary else { return id }
        if id == lastTemporary { return lastPermanent }
        let permanent = outcome.permanentIDs[id] ?? id
        lastTemporary = id
        lastPermanent = permanent
        return permanent
    }

    // MARK: Inserts

    /// Each entity's new rows go in multi-row INSERTs of up to ``maxRowsPerInsert`` rows
    /// (fewer when SQLite's limit on bound parameters is lower),
    /// bound through SQLite's C API (a boxed argument list per row would cost more than the
    /// SQL itself). Row counts are powers of two, so an entity needs at most nine statements.
    ///
    /// Why several rows per statement: inside a transaction, a statement that may fail half
    /// way (an INSERT that fires the full-text index's trigger) first copies every page it
    /// is about to change into a statement journal, the item table's and each of its indexes'.
    /// One statement per row would copy those pages again for every row, many times the
    /// store's size in a refresh (docs/PERFORMANCE.md, "Tuning in the code"). A statement of
    /// many rows copies each page once. A constraint failure is retried row by row, so that the error
    /// names the row that broke it.
    ///
    /// A table without triggers (an item's body, say) takes `INSERT OR FAIL`, which needs no
    /// statement journal at all: a save's transaction is all or nothing anyway, so undoing
    /// one statement buys nothing. A failing row leaves the rows before it in place until
    /// the transaction rolls back, and SQLite's count of them names the failing row
    /// (`zeader-bench refresh-index`: 5 % fewer instructions on a store without the search
    /// index). A table with triggers keeps the plain `INSERT`: an outer conflict clause
    /// replaces those of the triggers' own statements (kept counts' `INSERT OR IGNORE` into
    /// their log would become `OR FAIL`, KeptCounts.swift), and the full-text index's
    /// insert trigger, compiled in even while its `WHEN` stands it aside, writes to a
    /// virtual table, which SQLite journals whatever the clause.
    private mutating func insertRows() throws {
        // By entity, in insertion order within each: keys are allocated already, so the order
        // of rows across tables does not matter.
        var groups: [(entity: Entity, inserts: [Int])] = []
        var groupOf: [ObjectIdentifier: Int] = [:]
        for (n, insert) in plan.inserts.enumerated() {
            let key = ObjectIdentifier(insert.entity)
            if let g = groupOf[key] {
                groups[g].inserts.append(n)
            } else {
                groupOf[key] = groups.count
                groups.append((insert.entity, [n]))
            }
        }
        let variableLimit = Int(sqlite3_limit(db.sqliteConnection, SQLITE_LIMIT_VARIABLE_NUMBER, -1))
        for (entity, inserts) in groups {
            let maxRows = max(1, min(Self.maxRowsPerInsert, variableLimit / Self.insertColumnCount(for: entity)))
            var start = 0
            while start < inserts.count {
                let count = Self.rowsPerInsert(remaining: inserts.count - start, maxRows: maxRows)
                try insert(inserts[start..<(start + count)], of: entity)
                start += count
            }
            if !entity.counterDependencies.isEmpty {
                for n in inserts {
                    account(entity, before: nil, afterValues: plan.inserts[n].values, afterToOne: plan.inserts[n].toOne)
                }
            }
        }
        try SaveExecution.notifyRawInserts(into: groups.map(\.entity), db: db)
    }

    /// The most rows one INSERT statement carries.
    static let maxRowsPerInsert = 256

    /// How many of `remaining` rows the next INSERT carries: the largest power of two up to
    /// `remaining` and `maxRows` (at least one).
    static func rowsPerInsert(remaining: Int, maxRows: Int) -> Int {
        let fitting = max(1, min(remaining, maxRows))
        return 1 << (Int.bitWidth - 1 - fitting.leadingZeroBitCount)
    }

    /// Inserts the plan's inserts `rows` (all of `entity`) with one statement; after a
    /// constraint failure, one row at a time, to throw the failing row's error.
    private mutating func insert(_ rows: ArraySlice<Int>, of entity: Entity) throws {
        let orFail = tablesWithTriggers.map { !$0.contains(entity.tableName.lowercased()) } ?? false
        let statement = try db.cachedStatement(sql: Self.insertSQL(for: entity, rows: rows.count, orFail: orFail))
        let raw = statement.sqliteStatement
        let perRow = Int32(Self.insertColumnCount(for: entity))
        var first: Int32 = 1
        for n in rows {
            bind(plan.inserts[n], pk: outcome.insertedIDs[n].rawValue, to: raw, from: first)
            first += perRow
        }
        do {
            // The step clears the bindings (even when it fails) before the bytes go.
            defer { boundBytes.removeAll() }
            try RawSQLite.step(raw, sql: statement.sql, in: db)
        } catch let error as DatabaseError {
            if orFail {
                // The rows before the failing one stay (the save's transaction, which fails,
                // rolls them back); SQLite counted them.
                let written = Int(sqlite3_changes(db.sqliteConnection))
                let failing = rows[rows.startIndex + min(max(0, written), rows.count - 1)]
                throw Self.mapConstraintError(error, entity: entity, values: plan.inserts[failing].values)
            }
            guard rows.count > 1, error.resultCode == .SQLITE_CONSTRAINT else {
                throw Self.mapConstraintError(error, entity: entity, values: plan.inserts[rows.first!].values)
            }
            // SQLite undid the whole statement: the rows again, one each, up to the failing one.
            for n in rows { try insert([n][...], of: entity) }
        }
    }

    /// Binds one insert's row to the parameters from `first` (1-based) on.
    private mutating func bind(_ insert: SavePlan.Insert, pk: Int64, to raw: OpaquePointer, from first: Int32) {
        let entity = insert.entity
        sqlite3_bind_int64(raw, first, pk)
        sqlite3_bind_int64(raw, first + 1, 1)
        var parameter = first + 2
        let object = insert.object
        for i in entity.storedAttributeIndexes {
            // Derived counts start at zero; the children's deltas fill them in.
            if entity.counters.isEmpty || !entity.attributes[i].isDerivedCounter {
                RawSQLite.bind(raw, parameter, object.values[i], keepingBytesIn: boundBytes)
            } else {
                sqlite3_bind_int64(raw, parameter, 0)
            }
            parameter += 1
        }
        for r in entity.foreignKeyIndexes {
            if let key = saved(object.toOne[r])?.primaryKey {
                sqlite3_bind_int64(raw, parameter, key)
            } else {
                sqlite3_bind_null(raw, parameter)
            }
            parameter += 1
        }
    }

    /// Values per row of `entity`'s INSERT: Z_PK, Z_OPT, the stored attributes, the foreign keys.
    static func insertColumnCount(for entity: Entity) -> Int {
        2 + entity.storedAttributeIndexes.count + entity.foreignKeyIndexes.count
    }

    /// The INSERT (`OR FAIL` with `orFail`) of `rows` rows (one by default) of `entity`,
    /// values bound by position.
    static func insertSQL(for entity: Entity, rows: Int = 1, orFail: Bool = false) -> String {
        var columns = ["\"Z_PK\"", "\"Z_OPT\""]
        for i in entity.storedAttributeIndexes { columns.append(SchemaGenerator.quote(entity.attributes[i].name)) }
        for r in entity.foreignKeyIndexes { columns.append(SchemaGenerator.quote(entity.relationships[r].name)) }
        var placeholders = Array(repeating: "?", count: columns.count)
        if entity.inheritance != nil {
            // The row's entity, in the hierarchy's table (a literal: not a bound parameter).
            columns.append(SchemaGenerator.quote(Inheritance.discriminatorColumn))
            placeholders.append(SchemaGenerator.sqlLiteral(.string(entity.name)))
        }
        let row = "(" + placeholders.joined(separator: ", ") + ")"
        return (orFail ? "INSERT OR FAIL INTO " : "INSERT INTO ")
            + "\(SchemaGenerator.quote(entity.tableName)) (\(columns.joined(separator: ", "))) VALUES "
            + Array(repeating: row, count: max(1, rows)).joined(separator: ", ")
    }

    // MARK: Updates

    /// Each changed row, written only if its version is still the one the object read
    /// (optimistic locking); a row changed meanwhile is resolved by the merge policy.
    private mutating func updateRows() throws {
        for update in plan.updates {
            let entity = update.entity
            let written = try writeUpdate(
                entity: entity, pk: update.pk, expectedVersion: update.expectedVersion,
                attributes: update.changedAttributes, relationships: update.changedRelationships,
                values: update.values, toOne: update.toOne)
            if written {
                var snapshot = Snapshot(values: update.values, toOne: update.toOne, version: update.expectedVersion + 1)
                snapshot.toOne = snapshot.toOne.map { id in id.flatMap { outcome.permanentIDs[$0] ?? $0 } }
                outcome.resolved[update.object.objectID] = snapshot
                outcome.updatedKeys[update.object.objectID] = update.changedKeys
                if !entity.counterDependencies.isEmpty {
                    account(entity, before: update.snapshot, afterValues: update.values, afterToOne: update.toOne)
                }
            } else {
                try resolveConflict(update)
            }
        }
    }

    /// The row changed (or vanished) since the object read it: record a conflict under
    /// ``MergePolicy/error`` and ``MergePolicy/rollback``, else merge as the policy says.
    private mutating func resolveConflict(_ update: SavePlan.Update) throws {
        let entity = update.entity
        let layout = RowLayout(entity: entity, alias: "t0")
        let row = try Row.fetchOne(
            db, sql: "SELECT \(layout.columnsSQL) FROM \(SchemaGenerator.quote(entity.tableName)) t0 WHERE t0.\"Z_PK\" = ?",
            arguments: [update.pk])
        guard let row else {
            if policy == .error {
                conflicts.append(
                    MergeConflict(
                        objectID: update.object.objectID, storeChangedKeys: [], objectChangedKeys: update.changedKeys.sorted(),
                        deletedInStore: true))
            } else {
                outcome.deletedInStore.insert(update.object.objectID)
            }
            return
        }
        let store = layout.decode(row, model: model).snapshot
        let storeChanged = Self.changedKeys(entity: entity, from: update.snapshot, to: store)
        if policy == .error {
            conflicts.append(
                MergeConflict(
                    objectID: update.object.objectID, storeChangedKeys: storeChanged.sorted(),
                    objectChangedKeys: update.changedKeys.sorted(), deletedInStore: false))
            return
        }
        var values = store.values
        var toOne = store.toOne
        var attributes: [Int] = []
        var relationships: [Int] = []
        switch policy {
        case .error, .rollback:
            break
        case .storeTrumps, .objectTrumps:
            for i in update.changedAttributes {
                let key = entity.attributes[i].name
                if entity.attributes[i].isDerivedCounter {
                    // A count kept by deltas: apply this context's delta to the store's value.
                    let delta = (Int64(fromValue: update.values[i]) ?? 0) - (Int64(fromValue: update.snapshot.values[i]) ?? 0)
                    values[i] = .integer((Int64(fromValue: store.values[i]) ?? 0) + delta)
                    attributes.append(i)
                } else if policy == .objectTrumps || !storeChanged.contains(key) {
                    values[i] = update.values[i]
                    attributes.append(i)
                }
            }
            for r in update.changedRelationships {
                if policy == .objectTrumps || !storeChanged.contains(entity.relationships[r].name) {
                    toOne[r] = update.toOne[r]
                    relationships.append(r)
                }
            }
        case .overwrite:
            values = update.values
            toOne = update.toOne
            attributes = entity.storedAttributeIndexes
            relationships = entity.relationships.indices.filter { entity.storesForeignKey[$0] }
        }
        // Transient attributes keep the context's values.
        for (i, a) in entity.attributes.enumerated() where a.isTransient { values[i] = update.values[i] }
        var version = store.version
        if !attributes.isEmpty || !relationships.isEmpty {
            _ = try writeUpdate(
                entity: entity, pk: update.pk, expectedVersion: store.version, attributes: attributes,
                relationships: relationships, values: values, toOne: toOne)
            version += 1
        }
        if !entity.counterDependencies.isEmpty {
            account(entity, before: store, afterValues: values, afterToOne: toOne)
        }
        let resolvedToOne = toOne.map { id in id.flatMap { outcome.permanentIDs[$0] ?? $0 } }
        outcome.resolved[update.object.objectID] = Snapshot(values: values, toOne: resolvedToOne, version: version)
        outcome.resolvedValues[update.object.objectID] = (values, resolvedToOne)
        let writtenKeys = Set(attributes.map { entity.attributes[$0].name } + relationships.map { entity.relationships[$0].name })
        outcome.updatedKeys[update.object.objectID] = writtenKeys.union(storeChanged)
    }

    /// `UPDATE … SET changed columns, Z_OPT = Z_OPT + 1 WHERE Z_PK = ? AND Z_OPT = ?`;
    /// false when the row's version was not `expectedVersion`.
    private mutating func writeUpdate(
        entity: Entity, pk: Int64, expectedVersion: Int64, attributes: [Int], relationships: [Int],
        values: [Value], toOne: [ObjectID?]
    ) throws -> Bool {
        var assignments: [String] = []
        var arguments: [DatabaseValue] = []
        for i in attributes {
            assignments.append("\(SchemaGenerator.quote(entity.attributes[i].name)) = ?")
            arguments.append(values[i].databaseValue)
        }
        for r in relationships {
            assignments.append("\(SchemaGenerator.quote(entity.relationships[r].name)) = ?")
            arguments.append(saved(toOne[r])?.primaryKey?.databaseValue ?? .null)
        }
        assignments.append("\"Z_OPT\" = \"Z_OPT\" + 1")
        arguments.append(pk.databaseValue)
        arguments.append(expectedVersion.databaseValue)
        let sql =
            "UPDATE \(SchemaGenerator.quote(entity.tableName)) SET \(assignments.joined(separator: ", ")) WHERE \"Z_PK\" = ? AND \"Z_OPT\" = ?"
        do {
            try db.cachedStatement(sql: sql).execute(arguments: StatementArguments(arguments))
        } catch let error as DatabaseError {
            throw Self.mapConstraintError(error, entity: entity, values: values)
        }
        return db.changesCount > 0
    }

    // MARK: Deletes

    /// A row already gone is fine; one changed elsewhere is a conflict only under the
    /// error policy.
    private mutating func deleteRows() throws {
        for delete in plan.deletes {
            let table = SchemaGenerator.quote(delete.entity.tableName)
            if !delete.entity.counterDependencies.isEmpty {
                let layout = RowLayout(entity: delete.entity, alias: "t0")
                if let row = try Row.fetchOne(
                    db, sql: "SELECT \(layout.columnsSQL) FROM \(table) t0 WHERE t0.\"Z_PK\" = ?", arguments: [delete.pk])
                {
                    account(delete.entity, before: layout.decode(row, model: model).snapshot, afterValues: nil, afterToOne: nil)
                }
            }
            if policy == .error, let expected = delete.expectedVersion {
                try db.execute(
                    sql: "DELETE FROM \(table) WHERE \"Z_PK\" = ? AND \"Z_OPT\" = ?", arguments: [delete.pk, expected])
                if db.changesCount == 0,
                    try Bool.fetchOne(db, sql: "SELECT 1 FROM \(table) WHERE \"Z_PK\" = ?", arguments: [delete.pk]) == true
                {
                    conflicts.append(
                        MergeConflict(
                            objectID: delete.object.objectID, storeChangedKeys: [], objectChangedKeys: [], deletedInStore: false))
                }
            } else {
                try db.execute(sql: "DELETE FROM \(table) WHERE \"Z_PK\" = ?", arguments: [delete.pk])
            }
        }
    }

    // MARK: Derived counts

    /// Notes a changed child's contribution to each count it feeds, before (as stored)
    /// and after (nil values: deleted).
    private mutating func account(_ entity: Entity, before: Snapshot?, afterValues: [Value]?, afterToOne: [ObjectID?]?) {
        for counter in entity.counterDependencies {
            let old = before.flatMap { counter.contribution(of: entity, values: $0.values, toOne: $0.toOne) }
            var new: ObjectID?
            if let afterValues, let afterToOne {
                new = saved(counter.contribution(of: entity, values: afterValues, toOne: afterToOne))
            }
            if old == new { continue }
            let slot: Int
            if let found = counterDeltas.firstIndex(where: {
                $0.counter.parentEntityIndex == counter.parentEntityIndex && $0.counter.attributeIndex == counter.attributeIndex
            }) {
                slot = found
            } else {
                counterDeltas.append((counter, [:]))
                slot = counterDeltas.count - 1
            }
            if let old { counterDeltas[slot].deltas[old, default: 0] -= 1 }
            if let new { counterDeltas[slot].deltas[new, default: 0] += 1 }
        }
    }

    /// Applies the deltas as increments, exact whatever else was saved meanwhile.
    private func applyCounterDeltas() throws {
        for (counter, deltas) in counterDeltas {
            try DerivedCountWriter.apply(
                deltas.compactMap { id, delta in id.primaryKey.map { ($0, delta) } }, to: counter, model: model, in: db)
        }
    }

    /// Reads the final counts of every parent involved: those the deltas touched and every
    /// saved object that keeps counts.
    private mutating func readBackCounters() throws {
        var parentsToRead: [ObjectIdentifier: (Entity, Set<Int64>)] = [:]
        func add(_ entity: Entity, _ pk: Int64?) {
            guard let pk else { return }
            parentsToRead[ObjectIdentifier(entity), default: (entity, [])].1.insert(pk)
        }
        for (counter, deltas) in counterDeltas {
            let parent = model.entities[counter.parentEntityIndex]
            for (id, delta) in deltas where delta != 0 { add(parent, id.primaryKey) }
        }
        for object in plan.counterOnly + plan.updates.map(\.object) where !object.entity.counters.isEmpty {
            add(object.entity, object.objectID.primaryKey)
        }
        for (n, insert) in plan.inserts.enumerated() where !insert.entity.counters.isEmpty {
            add(insert.entity, outcome.insertedIDs[n].primaryKey)
        }
        for (_, (parent, pks)) in parentsToRead {
            for (pk, counts) in try DerivedCountWriter.read(parent, keys: pks, in: db) {
                outcome.counterValues[ObjectID(entity: parent, rawValue: pk)] = counts
            }
        }
    }

    /// The tables (lowercased) that triggers are declared on, TEMP ones included; the main
    /// schema's are read again only when its `schema_version` changed since `cache` was filled.
    static func tablesWithTriggers(
        in db: Database, cache: borrowing Mutex<(schemaVersion: Int64, tables: Set<String>)?>
    ) throws -> Set<String> {
        let version = try Int64.fetchOne(db.cachedStatement(sql: "PRAGMA main.schema_version")) ?? 0
        var tables: Set<String>
        if let cached = cache.withLock({ $0 }), cached.schemaVersion == version {
            tables = cached.tables
        } else {
            tables = Set(
                try String.fetchAll(
                    db.cachedStatement(sql: "SELECT tbl_name FROM main.sqlite_master WHERE type = 'trigger'")
                ).map { $0.lowercased() })
            cache.withLock { $0 = (version, tables) }
        }
        for table in try String.fetchAll(
            db.cachedStatement(sql: "SELECT tbl_name FROM temp.sqlite_master WHERE type = 'trigger'"))
        {
            tables.insert(table.lowercased())
        }
        return tables
    }

    // MARK: Errors and keys

    /// Turns SQLite's uniqueness failures into ``ObjectGraphError/uniquenessViolation(entity:keys:values:)``.
    static func mapConstraintError(_ error: DatabaseError, entity: Entity, values: [Value]) -> Error {
        guard error.resultCode == .SQLITE_CONSTRAINT else { return ObjectGraphError(error) }
        let message = error.message ?? ""
        if message.hasPrefix("UNIQUE constraint failed:") {
            let keys = message.dropFirst("UNIQUE constraint failed:".count)
                .split(separator: ",")
                .map { $0.trimmingCharacters(in: .whitespaces) }
                .map { $0.split(separator: ".").last.map(String.init) ?? $0 }
            let shown = keys.map { key in entity.attributeIndexByName[key].map { values[$0].description } ?? "?" }
            return ObjectGraphError.uniquenessViolation(entity: entity.name, keys: keys, values: shown)
        }
        return ObjectGraphError(error)
    }

    static func changedKeys(entity: Entity, from old: Snapshot, to new: Snapshot) -> Set<String> {
        var keys = Set<String>()
        for i in entity.storedAttributeIndexes where old.values[i] != new.values[i] { keys.insert(entity.attributes[i].name) }
        for (r, rel) in entity.relationships.enumerated() where entity.storesForeignKey[r] && old.toOne[r] != new.toOne[r] {
            keys.insert(rel.name)
        }
        return keys
    }
}

// MARK: - Shared store steps

/// Hands out primary keys: never reused, even after the row with the highest key is
/// deleted (the last key given out is kept in `Z_PRIMARYKEY`, like Core Data's).
enum PrimaryKeyAllocator {
    /// The next free key of `entity`.
    static func next(for entity: Entity, in db: Database) throws -> Int64 {
        let stored =
            try Int64.fetchOne(
                db.cachedStatement(sql: "SELECT Z_MAX FROM \"Z_PRIMARYKEY\" WHERE Z_ENTITY = ?"), arguments: [entity.tableName])
            ?? 0
        let maxRow =
            try Int64.fetchOne(
                db.cachedStatement(sql: "SELECT COALESCE(MAX(\"Z_PK\"), 0) FROM \(SchemaGenerator.quote(entity.tableName))")) ?? 0
        return max(stored, maxRow) + 1
    }

    /// Records `last` as the highest key given out for `entity`.
    static func record(last: Int64, for entity: Entity, in db: Database) throws {
        try db.cachedStatement(sql: "INSERT OR REPLACE INTO \"Z_PRIMARYKEY\" (Z_ENTITY, Z_MAX) VALUES (?, ?)")
            .execute(arguments: [entity.tableName, last])
    }
}

/// Writes and reads stored derived counts ("parent watching its child").
enum DerivedCountWriter {
    /// Adds each delta to its parent's stored count.
    static func apply(
        _ deltas: [(parent: Int64, delta: Int64)], to counter: CounterInfo, model: ManagedObjectModel, in db: Database
    ) throws {
        let parent = model.entities[counter.parentEntityIndex]
        let column = SchemaGenerator.quote(parent.attributes[counter.attributeIndex].name)
        let statement = try db.cachedStatement(
            sql: "UPDATE \(SchemaGenerator.quote(parent.tableName)) SET \(column) = \(column) + ? WHERE \"Z_PK\" = ?")
        for (pk, delta) in deltas where delta != 0 {
            try statement.execute(arguments: [delta, pk])
        }
    }

    /// The stored counts of the parents with these keys, by key and attribute index.
    static func read(_ parent: Entity, keys: some Collection<Int64>, in db: Database) throws -> [Int64: [Int: Int64]] {
        let columns = parent.counters.map { SchemaGenerator.quote(parent.attributes[$0.attributeIndex].name) }
        let rows = try Row.fetchAll(
            db.cachedStatement(
                sql:
                    "SELECT \"Z_PK\", \(columns.joined(separator: ", ")) FROM \(SchemaGenerator.quote(parent.tableName)) WHERE \"Z_PK\" IN (SELECT value FROM json_each(?))"
            ),
            arguments: [jsonArray(keys)])
        var result: [Int64: [Int: Int64]] = [:]
        for row in rows {
            var values: [Int: Int64] = [:]
            for (n, counter) in parent.counters.enumerated() { values[counter.attributeIndex] = row[n + 1] }
            result[row[0]] = values
        }
        return result
    }
}

/// `[1,2,3]`: a list of keys as one argument, for `IN (SELECT value FROM json_each(?))`.
func jsonArray(_ keys: some Collection<Int64>) -> String {
    var text = "["
    text.reserveCapacity(keys.count * 8 + 2)
    var first = true
    for key in keys {
        if !first { text += "," }
        first = false
        text += String(key)
    }
    return text + "]"
}
