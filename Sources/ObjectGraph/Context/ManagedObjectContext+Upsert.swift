import Foundation
import GRDB
import GRDBSQLite

// Uniqueness conflicts resolved by merge policy (Core Data's constraint-conflict
// resolution): an inserted object whose constrained keys match a stored row, or an object
// inserted earlier in the same save, is merged into that object instead of failing the save.

extension ManagedObjectContext {
    // MARK: - Saving with upserts

    /// Makes the save plan and writes it; under a merge policy other than
    /// ``MergePolicy/error``, uniqueness conflicts are merged first, and again when another
    /// context or process committed a conflicting row between the look-up and the write.
    func writeResolvingUniqueness() throws(ObjectGraphError) -> (SavePlan, SaveOutcome) {
        var attempts = 0
        while true {
            if mergePolicy != .error { try resolveUniquenessConflicts() }
            let plan = makeSavePlan()
            do {
                return (plan, try store.save(plan, policy: mergePolicy))
            } catch .uniquenessViolation where mergePolicy != .error && attempts < Self.upsertAttempts {
                // The store rolled the transaction back and the context kept its changes.
                attempts += 1
            }
        }
    }

    /// How many times a save looks for conflicting rows again after the write found one.
    private static let upsertAttempts = 3

    // MARK: - Finding conflicts

    /// Merges every inserted object whose constrained keys are taken, by an object inserted
    /// before it or by a stored row, into that object (see ``MergePolicy``). A merge can make
    /// another conflict visible (items unique by feed and guid find their stored twins once
    /// their new feed is merged into the stored one): passes repeat while they merge.
    func resolveUniquenessConflicts() throws(ObjectGraphError) {
        var passes = 0
        while try resolveUniquenessConflictsOnce(), passes < Self.maximumUpsertPasses { passes += 1 }
    }

    /// How many merging passes one save runs at most: one per level of to-one keys.
    private static let maximumUpsertPasses = 16

    /// One pass of ``resolveUniquenessConflicts()``; true when it merged something.
    private func resolveUniquenessConflictsOnce() throws(ObjectGraphError) -> Bool {
        var candidates: [ManagedObject] = []
        for object in newObjects where !object.entity.uniquenessConstraints.isEmpty { candidates.append(object) }
        guard !candidates.isEmpty else { return false }
        var claimed: [UniqueKey: ManagedObject] = [:]
        var survivors: [(object: ManagedObject, survivor: ManagedObject)] = []
        var unmatched: [ManagedObject] = []
        for object in candidates {
            let keys = uniqueKeys(of: object)
            if let earlier = keys.lazy.compactMap({ claimed[$0] }).first {
                survivors.append((object, earlier))
                continue
            }
            for key in keys { claimed[key] = object }
            unmatched.append(object)
        }
        for (object, stored) in try storedObjects(conflictingWith: unmatched) {
            survivors.append((object, stored))
        }
        guard !survivors.isEmpty else { return false }
        for (object, survivor) in survivors {
            try merge(object, into: survivor)
        }
        processPendingChanges()
        return true
    }

    /// The values an object holds for each of its entity's uniqueness constraints; a
    /// constraint with a nil key is left out (SQLite lets any number of rows hold NULL).
    private func uniqueKeys(of object: ManagedObject) -> [UniqueKey] {
        let entity = object.entity
        var result: [UniqueKey] = []
        constraints: for keys in entity.uniquenessConstraints {
            var values: [UniqueKey.Part] = []
            for key in keys {
                if let i = entity.attributeIndexByName[key] {
                    if object.values[i].isNull { continue constraints }
                    values.append(.value(object.values[i]))
                } else if let r = entity.relationshipIndexByName[key], let id = object.toOne[r] {
                    values.append(.object(currentID(of: id)))
                } else {
                    continue constraints
                }
            }
            result.append(UniqueKey(table: entity.tableName, keys: keys, values: values))
        }
        return result
    }

    /// For each of `objects` that a stored row conflicts with, that row's object (registered
    /// here, read in one pass over the store). Rows deleted in this context, or whose keys
    /// this context changes, do not conflict.
    private func storedObjects(conflictingWith objects: [ManagedObject]) throws(ObjectGraphError)
        -> [(ManagedObject, ManagedObject)]
    {
        guard !objects.isEmpty else { return [] }
        let model = self.model
        // Read from the store's latest state, pinned generation or not: the write checks that.
        let found: [(object: Int, entity: Entity, pk: Int64, snapshot: Snapshot)] = try store.read { db in
            var found: [(Int, Entity, Int64, Snapshot)] = []
            var probes = ConflictProbes(model: model)
            for (n, object) in objects.enumerated() {
                guard let probe = try probes.probe(for: object.entity, in: db) else { continue }
                for constraint in probe.constraints {
                    guard try Self.storedRowExists(for: object, constraint, in: db) else { continue }
                    // A conflict: rare, so its row is read in full the unhurried way.
                    guard let arguments = Self.storedArguments(of: object, keys: constraint.keys) else { continue }
                    let layout = RowLayout(entity: probe.table, alias: "t0")
                    let sql = Self.conflictSQL(table: probe.table, keys: constraint.keys, columns: layout.columnsSQL)
                    if let row = try Row.fetchOne(db.cachedStatement(sql: sql), arguments: arguments) {
                        let decoded = layout.decode(row, model: model)
                        found.append((n, probe.table, decoded.pk, decoded.snapshot))
                        break
                    }
                }
            }
            return found
        }
        var result: [(ManagedObject, ManagedObject)] = []
        for (n, table, pk, snapshot) in found {
            let object = objects[n]
            let stored = materialize(entity: table, pk: pk, snapshot: snapshot)
            guard deletedByID[stored.objectID] == nil else { continue }
            // The context moves this row off the key: the save frees it first.
            if uniqueKeys(of: stored).allSatisfy({ !uniqueKeys(of: object).contains($0) }) { continue }
            result.append((object, stored))
        }
        return result
    }

    /// Whether a stored row holds `object`'s values of `constraint`'s keys (false when one is
    /// nil or points at an unsaved object, as ``storedArguments(of:keys:)``). Binds through
    /// SQLite's C API: every inserted object is probed, and nearly all miss.
    private static func storedRowExists(
        for object: ManagedObject, _ constraint: ConflictProbes.Constraint, in db: Database
    ) throws -> Bool {
        let raw = constraint.statement.sqliteStatement
        defer {
            sqlite3_reset(raw)
            sqlite3_clear_bindings(raw)
        }
        let entity = object.entity
        var parameter: Int32 = 1
        for key in constraint.keys {
            if let i = entity.attributeIndexByName[key] {
                if object.values[i].isNull { return false }
                RawSQLite.bind(raw, parameter, object.values[i])
            } else if let r = entity.relationshipIndexByName[key], let pk = object.toOne[r]?.primaryKey {
                sqlite3_bind_int64(raw, parameter, pk)
            } else {
                return false
            }
            parameter += 1
        }
        return try RawSQLite.nextRow(raw, sql: constraint.statement.sql, in: db)
    }

    /// The constrained keys' stored values, or nil when one is nil or points at an unsaved object.
    private static func storedArguments(of object: ManagedObject, keys: [String]) -> StatementArguments? {
        let entity = object.entity
        var arguments: [DatabaseValue] = []
        for key in keys {
            if let i = entity.attributeIndexByName[key] {
                if object.values[i].isNull { return nil }
                arguments.append(object.values[i].databaseValue)
            } else if let r = entity.relationshipIndexByName[key], let pk = object.toOne[r]?.primaryKey {
                arguments.append(pk.databaseValue)
            } else {
                return nil
            }
        }
        return StatementArguments(arguments)
    }

    /// `SELECT <row> FROM <table> t0 WHERE k1 = ? AND … LIMIT 1`, limited to the entities a
    /// sub-entity's constraint holds among.
    fileprivate static func conflictSQL(table: Entity, keys: [String], columns: String) -> String {
        var conditions = keys.map { "t0.\(SchemaGenerator.quote($0)) = ?" }
        if let kinds = table.inheritance?.constraintKinds[keys] {
            conditions.append(
                "t0.\(SchemaGenerator.quote(Inheritance.discriminatorColumn)) IN (\(kinds.map { SchemaGenerator.sqlLiteral(.string($0)) }.joined(separator: ", ")))"
            )
        }
        return
            "SELECT \(columns) FROM \(SchemaGenerator.quote(table.tableName)) t0 WHERE \(conditions.joined(separator: " AND ")) LIMIT 1"
    }

    // MARK: - Merging

    /// Applies `object`'s values to `survivor` as the merge policy says, moves whatever
    /// points at `object` to `survivor`, and takes `object` out of the context.
    private func merge(_ object: ManagedObject, into survivor: ManagedObject) throws(ObjectGraphError) {
        survivor.fireFaultIfNeeded()
        let entity = object.entity
        let target = survivor.entity
        let writesAll = mergePolicy == .overwrite
        if mergePolicy == .objectTrumps || writesAll {
            for i in entity.storedAttributeIndexes where !entity.attributes[i].isDerivedCounter {
                let name = entity.attributes[i].name
                guard writesAll || Self.wasSet(object, attribute: i), let j = target.attributeIndexByName[name] else { continue }
                survivor.setAttributeValue(object.values[i], at: j)
            }
            for r in entity.relationships.indices where entity.storesForeignKey[r] {
                let name = entity.relationships[r].name
                guard writesAll || object.toOne[r] != nil || object.changedKeys.contains(name),
                    let s = target.relationshipIndexByName[name]
                else { continue }
                try setToOne(survivor, relationshipIndex: s, to: object.toOne[r].map { self.object(with: $0) })
            }
        }
        try moveRelated(of: object, to: survivor)
        detachMerged(object, into: survivor)
    }

    /// Whether the inserted `object` was given a value for attribute `i`: one other than the
    /// default, or any value after the batch that inserted it.
    private static func wasSet(_ object: ManagedObject, attribute i: Int) -> Bool {
        object.values[i] != object.entity.defaultValues[i] || object.changedKeys.contains(object.entity.attributes[i].name)
    }

    /// Points the objects related to `object` through its to-many and one-to-one
    /// relationships stored on their side at `survivor` instead.
    private func moveRelated(of object: ManagedObject, to survivor: ManagedObject) throws(ObjectGraphError) {
        let entity = object.entity
        for r in entity.relationships.indices where !entity.storesForeignKey[r] {
            let name = entity.relationships[r].name
            guard let s = survivor.entity.relationshipIndexByName[name] else { continue }
            if let join = entity.joinTables[r] {
                for member in try membersOfManyToMany(object, relationshipIndex: r, join: join) {
                    try setMembership(object, relationshipIndex: r, member: member, isMember: false)
                    try setMembership(survivor, relationshipIndex: s, member: member, isMember: true)
                }
                continue
            }
            let inverse = entity.inverseIndex[r]
            for member in try relatedObjects(of: object, relationshipIndex: r) {
                try setToOne(member, relationshipIndex: inverse, to: survivor)
            }
        }
    }

    /// Takes the merged `object` out of the context, as a deleted insert is; its ID then
    /// names `survivor` in ``registeredObject(for:)`` and ``object(with:)``.
    private func detachMerged(_ object: ManagedObject, into survivor: ManagedObject) {
        let id = object.objectID
        guard newObjects.remove(object) else { return }
        object.isInsertedFlag = false
        pending.inserted.remove(id)
        pending.deletedInserted.insert(id)
        pending.objects[id] = object
        discardJoinChanges(of: id)
        permanentIDForTemporary[id] = survivor.objectID
        object.managedObjectContext = nil
    }
}

/// The values of one uniqueness constraint, as a dictionary key.
private struct UniqueKey: Hashable {
    enum Part: Hashable {
        case value(Value)
        case object(ObjectID)
    }
    let table: String
    let keys: [String]
    let values: [Part]
}

/// The statements that look for a stored row holding an inserted object's constrained keys
/// (`SELECT 1 … LIMIT 1`), made once per entity and constraint for one look-up pass instead
/// of once per object: a refresh's save probes hundreds of new items, and building each
/// one's row layout and SQL cost more than SQLite's index look-up.
private struct ConflictProbes {
    struct Constraint {
        let keys: [String]
        let statement: Statement
    }
    struct Probe {
        /// The entity whose table holds the rows (an inheritance hierarchy's root).
        let table: Entity
        let constraints: [Constraint]
    }

    let model: ManagedObjectModel
    private var byEntity: [ObjectIdentifier: Probe?] = [:]

    init(model: ManagedObjectModel) { self.model = model }

    /// The probe for objects of `entity`, nil when no table of the model is its table.
    mutating func probe(for entity: Entity, in db: Database) throws -> Probe? {
        if let probe = byEntity[ObjectIdentifier(entity)] { return probe }
        var probe: Probe?
        if let table = model.tableEntities.first(where: { $0.tableName == entity.tableName }) {
            let constraints = try entity.uniquenessConstraints.map { keys in
                let sql = ManagedObjectContext.conflictSQL(table: table, keys: keys, columns: "1")
                return Constraint(keys: keys, statement: try db.makeStatement(sql: sql))
            }
            probe = Probe(table: table, constraints: constraints)
        }
        byEntity[ObjectIdentifier(entity)] = probe
        return probe
    }
}
