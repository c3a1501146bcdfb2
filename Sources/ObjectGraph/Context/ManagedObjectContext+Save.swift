import Foundation
import GRDB
import GRDBSQLite

extension ManagedObjectContext {
    /// Writes every unsaved change to the store in one transaction, then announces it with
    /// DidSave on the container's bus.
    ///
    /// On failure (a required value missing, a uniqueness or deny-rule violation, a merge
    /// conflict under ``MergePolicy/error``) nothing is written, and the context still holds
    /// all its changes, ready to be fixed and saved again.
    ///
    /// ```swift
    /// do { try context.save() } catch { print(error) }   // e.g. "FeedItem.guid: uniqueness violated by "a""
    /// ```
    public func save() throws(ObjectGraphError) {
        assertOnQueue()
        processPendingChanges()
        guard hasChanges else { return }
        // willSave may change (or insert) objects: iterate over copies.
        for object in Array(newObjects) { object.willSave() }
        for object in Array(updatedByID.values) { object.willSave() }
        processPendingChanges()
        try validateForSave()
        bus?.postWillSave(WillSaveNotification(context: self))

        let plan = makeSavePlan()
        let policy = mergePolicy
        let model = self.model
        let outcome = try store.write { db in try Self.execute(plan, policy: policy, model: model, in: db) }
        let notification = apply(outcome, plan: plan)
        bus?.postDidSave(notification)
    }

    // MARK: Validation

    func validateForSave() throws(ObjectGraphError) {
        func validate(_ object: ManagedObject) throws(ObjectGraphError) {
            let entity = object.entity
            object.fireFaultIfNeeded()
            for i in entity.requiredAttributeIndexes where object.values[i].isNull {
                throw .missingValue(entity: entity.name, key: entity.attributes[i].name)
            }
            for r in entity.requiredForeignKeyIndexes {
                // Pointing at an object deleted in this save counts as nil.
                if let target = object.toOne[r], deletedByID.isEmpty || deletedByID[target] == nil { continue }
                throw .missingValue(entity: entity.name, key: entity.relationships[r].name)
            }
        }
        for object in newObjects { try validate(object) }
        for object in updatedByID.values { try validate(object) }
        for object in deletedByID.values {
            for (r, relationship) in object.entity.relationships.enumerated() where relationship.deleteRule == .deny {
                let remaining = try relatedObjects(of: object, relationshipIndex: r).filter { deletedByID[$0.objectID] == nil }
                if !remaining.isEmpty {
                    throw .deleteDenied(entity: object.entity.name, relationship: relationship.name, count: remaining.count)
                }
            }
        }
    }

    // MARK: Plan

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
    }

    func makeSavePlan() -> SavePlan {
        var plan = SavePlan()
        plan.deletedIDs = Set(deletedByID.keys)
        // Deterministic primary keys: insertion order.
        plan.inserts.reserveCapacity(newObjects.count)
        for object in newObjects {
            plan.inserts.append(.init(object: object, entity: object.entity, temporaryID: object.objectID))
        }
        for (id, object) in updatedByID {
            guard let pk = id.primaryKey, let snapshot = object.snapshot else { continue }
            let entity = object.entity
            var attributes: [Int] = []
            var relationships: [Int] = []
            for key in object.changedKeys {
                if let i = entity.attributeIndexByName[key], !entity.attributes[i].isTransient {
                    // Derived counts are written as deltas computed in the transaction.
                    if !entity.attributes[i].isDerivedCounter { attributes.append(i) }
                } else if let r = entity.relationshipIndexByName[key], entity.storesForeignKey[r] {
                    relationships.append(r)
                }
            }
            guard !attributes.isEmpty || !relationships.isEmpty else {
                if object.changedKeys.contains(where: { entity.attribute(named: $0)?.isDerivedCounter == true }) {
                    plan.counterOnly.append(object)
                }
                continue
            }
            plan.updates.append(
                .init(
                    object: object, entity: entity, pk: pk, expectedVersion: snapshot.version, values: object.values,
                    toOne: object.toOne, snapshot: snapshot, changedAttributes: attributes.sorted(),
                    changedRelationships: relationships.sorted(), changedKeys: object.changedKeys))
        }
        for (id, object) in deletedByID {
            guard let pk = id.primaryKey else { continue }
            plan.deletes.append(.init(object: object, entity: object.entity, pk: pk, expectedVersion: object.snapshot?.version))
        }
        return plan
    }

    // MARK: Execution (inside the write transaction; touches no context state)

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

    static func execute(_ plan: SavePlan, policy: MergePolicy, model: ManagedObjectModel, in db: Database) throws -> SaveOutcome {
        var outcome = SaveOutcome()
        // 1. Permanent primary keys, never reused (kept in Z_PRIMARYKEY like Core Data),
        //    handed out in insertion order; inserts come grouped by entity in practice, so
        //    the entity's next key is looked up only when the entity changes.
        outcome.insertedIDs.reserveCapacity(plan.inserts.count)
        outcome.permanentIDs.reserveCapacity(plan.inserts.count)
        var nextPK: [ObjectIdentifier: Int64] = [:]
        var currentEntity: Entity?
        var currentNext: Int64 = 0
        for insert in plan.inserts {
            if insert.entity !== currentEntity {
                if let currentEntity { nextPK[ObjectIdentifier(currentEntity)] = currentNext }
                currentEntity = insert.entity
                if let next = nextPK[ObjectIdentifier(insert.entity)] {
                    currentNext = next
                } else {
                    let stored = try Int64.fetchOne(
                        db, sql: "SELECT Z_MAX FROM \"Z_PRIMARYKEY\" WHERE Z_ENTITY = ?", arguments: [insert.entity.name]) ?? 0
                    let maxRow = try Int64.fetchOne(
                        db, sql: "SELECT COALESCE(MAX(\"Z_PK\"), 0) FROM \(SchemaGenerator.quote(insert.entity.tableName))") ?? 0
                    currentNext = max(stored, maxRow) + 1
                }
            }
            let permanent = ObjectID(entity: insert.entity, rawValue: currentNext)
            currentNext += 1
            outcome.insertedIDs.append(permanent)
            outcome.permanentIDs[insert.temporaryID] = permanent
        }
        if let currentEntity { nextPK[ObjectIdentifier(currentEntity)] = currentNext }
        for (key, next) in nextPK {
            let entity = model.entities.first { ObjectIdentifier($0) == key }!
            try db.execute(
                sql: "INSERT OR REPLACE INTO \"Z_PRIMARYKEY\" (Z_ENTITY, Z_MAX) VALUES (?, ?)",
                arguments: [entity.name, next - 1])
        }
        // Where a relationship points, as saved: nil for objects deleted in this save,
        // permanent IDs for objects inserted in it. Consecutive objects usually point at
        // the same new object (a feed's new items at their new feed): one look-up for all.
        var lastTemporary: ObjectID?
        var lastPermanent: ObjectID?
        func saved(_ id: ObjectID?) -> ObjectID? {
            guard let id else { return nil }
            if !plan.deletedIDs.isEmpty && plan.deletedIDs.contains(id) { return nil }
            guard id.isTemporary else { return id }
            if id == lastTemporary { return lastPermanent }
            let permanent = outcome.permanentIDs[id] ?? id
            lastTemporary = id
            lastPermanent = permanent
            return permanent
        }
        func fk(_ id: ObjectID?) -> DatabaseValue {
            saved(id)?.primaryKey?.databaseValue ?? .null
        }

        // 2. Inserts, one prepared statement per entity.
        var insertStatements: [ObjectIdentifier: Statement] = [:]
        var statementEntity: Entity?
        var statement: Statement?
        for (n, insert) in plan.inserts.enumerated() {
            let entity = insert.entity
            let pk = outcome.insertedIDs[n].rawValue
            if entity !== statementEntity {
                statementEntity = entity
                if let cached = insertStatements[ObjectIdentifier(entity)] {
                    statement = cached
                } else {
                    var columns = ["\"Z_PK\"", "\"Z_OPT\""]
                    for i in entity.storedAttributeIndexes { columns.append(SchemaGenerator.quote(entity.attributes[i].name)) }
                    for r in entity.foreignKeyIndexes { columns.append(SchemaGenerator.quote(entity.relationships[r].name)) }
                    let sql = "INSERT INTO \(SchemaGenerator.quote(entity.tableName)) (\(columns.joined(separator: ", "))) VALUES (\(Array(repeating: "?", count: columns.count).joined(separator: ", ")))"
                    let prepared = try db.cachedStatement(sql: sql)
                    insertStatements[ObjectIdentifier(entity)] = prepared
                    statement = prepared
                }
            }
            guard let statement else { continue }
            let raw = statement.sqliteStatement
            sqlite3_bind_int64(raw, 1, pk)
            sqlite3_bind_int64(raw, 2, 1)
            var parameter: Int32 = 3
            let object = insert.object
            for i in entity.storedAttributeIndexes {
                // Derived counts start at zero; the children's deltas below fill them in.
                if entity.counters.isEmpty || !entity.attributes[i].isDerivedCounter {
                    RawSQLite.bind(raw, parameter, object.values[i])
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
            do {
                try RawSQLite.step(raw, sql: statement.sql, in: db)
            } catch let error as DatabaseError {
                throw mapConstraintError(error, entity: entity, values: insert.values)
            }
        }

        // Derived counts: each changed child's contribution before (as stored) and after.
        // A model has a handful of counts: a linear search finds a count's deltas.
        var counterDelta: [(counter: CounterInfo, deltas: [ObjectID: Int64])] = []
        func account(_ entity: Entity, before: Snapshot?, afterValues: [Value]?, afterToOne: [ObjectID?]?) {
            for counter in entity.counterDependencies {
                let old = before.flatMap { counter.contribution(of: entity, values: $0.values, toOne: $0.toOne) }
                var new: ObjectID?
                if let afterValues, let afterToOne {
                    new = saved(counter.contribution(of: entity, values: afterValues, toOne: afterToOne))
                }
                if old == new { continue }
                let slot: Int
                if let found = counterDelta.firstIndex(where: {
                    $0.counter.parentEntityIndex == counter.parentEntityIndex && $0.counter.attributeIndex == counter.attributeIndex
                }) {
                    slot = found
                } else {
                    counterDelta.append((counter, [:]))
                    slot = counterDelta.count - 1
                }
                if let old { counterDelta[slot].deltas[old, default: 0] -= 1 }
                if let new { counterDelta[slot].deltas[new, default: 0] += 1 }
            }
        }
        for insert in plan.inserts where !insert.entity.counterDependencies.isEmpty {
            account(insert.entity, before: nil, afterValues: insert.values, afterToOne: insert.toOne)
        }

        // 3. Updates, with optimistic locking.
        var conflicts: [MergeConflict] = []
        for update in plan.updates {
            let entity = update.entity
            let written = try writeUpdate(
                db, entity: entity, pk: update.pk, expectedVersion: update.expectedVersion,
                attributes: update.changedAttributes, relationships: update.changedRelationships,
                values: update.values, toOne: update.toOne, fk: fk)
            if written {
                var snapshot = Snapshot(values: update.values, toOne: update.toOne, version: update.expectedVersion + 1)
                snapshot.toOne = snapshot.toOne.map { id in id.flatMap { outcome.permanentIDs[$0] ?? $0 } }
                outcome.resolved[update.object.objectID] = snapshot
                outcome.updatedKeys[update.object.objectID] = update.changedKeys
                if !entity.counterDependencies.isEmpty {
                    account(entity, before: update.snapshot, afterValues: update.values, afterToOne: update.toOne)
                }
                continue
            }
            // Conflict: the row changed (or vanished) since the object read it.
            let layout = RowLayout(entity: entity, alias: "t0")
            let row = try Row.fetchOne(
                db, sql: "SELECT \(layout.columnsSQL) FROM \(SchemaGenerator.quote(entity.tableName)) t0 WHERE t0.\"Z_PK\" = ?",
                arguments: [update.pk])
            guard let row else {
                if policy == .error {
                    conflicts.append(
                        MergeConflict(
                            objectID: update.object.objectID, storeChangedKeys: [],
                            objectChangedKeys: update.changedKeys.sorted(), deletedInStore: true))
                } else {
                    outcome.deletedInStore.insert(update.object.objectID)
                }
                continue
            }
            let store = layout.decode(row, model: model).snapshot
            let storeChanged = changedKeys(entity: entity, from: update.snapshot, to: store)
            if policy == .error {
                conflicts.append(
                    MergeConflict(
                        objectID: update.object.objectID, storeChangedKeys: storeChanged.sorted(),
                        objectChangedKeys: update.changedKeys.sorted(), deletedInStore: false))
                continue
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
                    db, entity: entity, pk: update.pk, expectedVersion: store.version, attributes: attributes,
                    relationships: relationships, values: values, toOne: toOne, fk: fk)
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

        // 4. Deletes (a row already gone is fine; one changed elsewhere is a conflict only
        //    under the error policy).
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
                try db.execute(sql: "DELETE FROM \(table) WHERE \"Z_PK\" = ? AND \"Z_OPT\" = ?", arguments: [delete.pk, expected])
                if db.changesCount == 0,
                    try Bool.fetchOne(db, sql: "SELECT 1 FROM \(table) WHERE \"Z_PK\" = ?", arguments: [delete.pk]) == true
                {
                    conflicts.append(
                        MergeConflict(objectID: delete.object.objectID, storeChangedKeys: [], objectChangedKeys: [], deletedInStore: false))
                }
            } else {
                try db.execute(sql: "DELETE FROM \(table) WHERE \"Z_PK\" = ?", arguments: [delete.pk])
            }
        }
        if !conflicts.isEmpty { throw ObjectGraphError.mergeConflict(conflicts) }

        // 5. Apply the derived-count deltas as increments (exact whatever else was saved
        //    meanwhile), then read back the final counts of every parent involved.
        var parentsToRead: [ObjectIdentifier: (Entity, Set<Int64>)] = [:]
        for (counter, deltas) in counterDelta {
            let parent = model.entities[counter.parentEntityIndex]
            let column = SchemaGenerator.quote(parent.attributes[counter.attributeIndex].name)
            for (id, delta) in deltas where delta != 0 {
                guard let pk = id.primaryKey else { continue }
                try db.execute(
                    sql: "UPDATE \(SchemaGenerator.quote(parent.tableName)) SET \(column) = \(column) + ? WHERE \"Z_PK\" = ?",
                    arguments: [delta, pk])
                parentsToRead[ObjectIdentifier(parent), default: (parent, [])].1.insert(pk)
            }
        }
        for object in plan.counterOnly + plan.updates.map(\.object) where !object.entity.counters.isEmpty {
            if let pk = object.objectID.primaryKey { parentsToRead[ObjectIdentifier(object.entity), default: (object.entity, [])].1.insert(pk) }
        }
        for (n, insert) in plan.inserts.enumerated() where !insert.entity.counters.isEmpty {
            if let pk = outcome.insertedIDs[n].primaryKey {
                parentsToRead[ObjectIdentifier(insert.entity), default: (insert.entity, [])].1.insert(pk)
            }
        }
        for (_, (parent, pks)) in parentsToRead {
            let columns = parent.counters.map { SchemaGenerator.quote(parent.attributes[$0.attributeIndex].name) }
            let rows = try Row.fetchAll(
                db,
                sql: "SELECT \"Z_PK\", \(columns.joined(separator: ", ")) FROM \(SchemaGenerator.quote(parent.tableName)) WHERE \"Z_PK\" IN (SELECT value FROM json_each(?))",
                arguments: ["[" + pks.map(String.init).joined(separator: ",") + "]"])
            for row in rows {
                let id = ObjectID(entity: parent, rawValue: row[0])
                var values: [Int: Int64] = [:]
                for (n, counter) in parent.counters.enumerated() { values[counter.attributeIndex] = row[n + 1] }
                outcome.counterValues[id] = values
            }
        }
        return outcome
    }

    private static func writeUpdate(
        _ db: Database, entity: Entity, pk: Int64, expectedVersion: Int64, attributes: [Int], relationships: [Int],
        values: [Value], toOne: [ObjectID?], fk: (ObjectID?) -> DatabaseValue
    ) throws -> Bool {
        var assignments: [String] = []
        var arguments: [DatabaseValue] = []
        for i in attributes {
            assignments.append("\(SchemaGenerator.quote(entity.attributes[i].name)) = ?")
            arguments.append(values[i].databaseValue)
        }
        for r in relationships {
            assignments.append("\(SchemaGenerator.quote(entity.relationships[r].name)) = ?")
            arguments.append(fk(toOne[r]))
        }
        assignments.append("\"Z_OPT\" = \"Z_OPT\" + 1")
        arguments.append(pk.databaseValue)
        arguments.append(expectedVersion.databaseValue)
        let sql = "UPDATE \(SchemaGenerator.quote(entity.tableName)) SET \(assignments.joined(separator: ", ")) WHERE \"Z_PK\" = ? AND \"Z_OPT\" = ?"
        try run(db, sql: sql, arguments: arguments, entity: entity, values: values)
        return db.changesCount > 0
    }

    /// Runs one statement, turning constraint failures into typed errors.
    private static func run(_ db: Database, sql: String, arguments: [DatabaseValue], entity: Entity, values: [Value]) throws {
        try run(db, statement: try db.cachedStatement(sql: sql), arguments: arguments, entity: entity, values: values)
    }

    private static func run(_ db: Database, statement: Statement, arguments: [DatabaseValue], entity: Entity, values: [Value]) throws {
        do {
            try statement.execute(arguments: StatementArguments(arguments))
        } catch let error as DatabaseError {
            throw mapConstraintError(error, entity: entity, values: values)
        }
    }

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

    // MARK: After the commit

    func apply(_ outcome: SaveOutcome, plan: SavePlan) -> DidSaveNotification {
        var inserted = Set<ObjectID>()
        var updated: [ObjectID: Set<String>] = [:]
        var deleted = Set<ObjectID>()
        let remap: (ObjectID?) -> ObjectID? = { id in id.flatMap { outcome.permanentIDs[$0] ?? $0 } }
        // Only arrays that point at a just-inserted object need rewriting.
        func remapped(_ toOne: [ObjectID?]) -> [ObjectID?] {
            toOne.contains(where: { $0?.isTemporary == true }) ? toOne.map(remap) : toOne
        }

        inserted.reserveCapacity(plan.inserts.count)
        registered.reserveCapacity(registered.count + plan.inserts.count)
        for (n, insert) in plan.inserts.enumerated() {
            let object = insert.object
            let permanent = outcome.insertedIDs[n]
            object.objectID = permanent
            register(object)
            object.isInsertedFlag = false
            // Temporary IDs stay usable for undo; without an undo manager they lapse, as in Core Data.
            if undoManager != nil { permanentIDForTemporary[insert.temporaryID] = permanent }
            inserted.insert(permanent)
        }
        // Relationship columns that pointed at temporary IDs now point at permanent ones
        // (rewritten in place: the object's array is its own).
        var lastTemporary: ObjectID?
        var lastPermanent: ObjectID?
        for insert in plan.inserts {
            let object = insert.object
            for r in object.toOne.indices {
                guard let id = object.toOne[r], id.isTemporary else { continue }
                if id != lastTemporary {
                    lastTemporary = id
                    lastPermanent = outcome.permanentIDs[id] ?? id
                }
                object.toOne[r] = lastPermanent
            }
            object.snapshot = Snapshot(values: object.values, toOne: object.toOne, version: 1)
            if !object.changedKeys.isEmpty { object.changedKeys = [] }
        }
        for update in plan.updates {
            let object = update.object
            let id = object.objectID
            if outcome.deletedInStore.contains(id) {
                registered.removeValue(forKey: id)
                object.managedObjectContext = nil
                deleted.insert(id)
                continue
            }
            if let (values, toOne) = outcome.resolvedValues[id] {
                object.values = values
                object.toOne = toOne
            } else {
                object.toOne = remapped(object.toOne)
            }
            if let snapshot = outcome.resolved[id] { object.snapshot = snapshot }
            object.changedKeys = []
            updated[id] = outcome.updatedKeys[id] ?? update.changedKeys
        }
        // Objects in updatedByID with only transient changes.
        for (_, object) in updatedByID where !object.changedKeys.isEmpty {
            object.changedKeys = []
        }
        // Stored derived counts, as the transaction left them.
        for (id, counts) in outcome.counterValues {
            // Every parent whose count the transaction touched is announced, registered
            // here or not, so other contexts refresh their copies.
            if !inserted.contains(id) {
                updated[id, default: []].formUnion(counts.keys.map { id.entity.attributes[$0].name })
            }
            guard let object = registered[id]?.object, !object.isFault else { continue }
            var changed = Set<String>()
            for (i, count) in counts {
                if object.values[i] != .integer(count) || object.snapshot?.values[i] != .integer(count) {
                    changed.insert(object.entity.attributes[i].name)
                }
                object.values[i] = .integer(count)
                object.snapshot?.values[i] = .integer(count)
                object.changedKeys.remove(object.entity.attributes[i].name)
            }
            if !inserted.contains(id) { updated[id, default: []].formUnion(changed) }
            if !changed.isEmpty && !inserted.contains(id) {
                pending.updated[id, default: []].formUnion(changed)
                pending.objects[id] = object
            }
        }
        for object in plan.counterOnly { object.changedKeys = [] }
        touchedCounterParents = [:]
        for delete in plan.deletes {
            registered.removeValue(forKey: delete.object.objectID)
            delete.object.managedObjectContext = nil
            deleted.insert(delete.object.objectID)
        }
        newObjects.removeAll()
        updatedByID = [:]
        deletedByID = [:]
        return DidSaveNotification(
            contextID: ObjectIdentifier(self), contextName: name, inserted: inserted, updated: updated, deleted: deleted)
    }
}
