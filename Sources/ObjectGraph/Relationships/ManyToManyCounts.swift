import Foundation
import GRDB

// Derived counts over many-to-many relationships.
//
// A count over a one-to-many relationship follows each child's to-one: a changed child moves
// one unit from the parent it pointed at to the one it points at. A child of a many-to-many
// relationship counts towards every parent it is paired with, so its contribution is a set:
// the parents of its pairs, when the count's predicate holds for its values.
//
// ```swift
// let tag = EntityDescription("Tag", managedClass: Tag.self,
//     attributes: [.string("name"), .derivedCount("unreadPosts", of: "posts", where: "read == NO")],
//     relationships: [.toMany("posts", destination: "Post", inverse: "tags")])
// ```
//
// - In a context, each changed child (inserted, updated, deleted, or paired and unpaired from
//   either side) adds one to each parent it is paired with now and takes one from each it is
//   paired with in the store (a query per changed child).
// - In a save, the changed children's contributions are counted in SQL inside the
//   transaction before anything is written and again after, and the difference is added to
//   each parent: exact whatever else was saved meanwhile, like the one-to-many deltas.

extension CounterInfo {
    /// Whether a child with `values` counts (the count's predicate holds for it).
    func counts(_ childEntity: Entity, values: [Value]) -> Bool {
        if let (index, constant) = simpleEquality { return index < values.count && values[index] == constant }
        if let predicate {
            return (try? predicate.evaluate(with: ValuesEvaluable(entity: childEntity, values: values))) == true
        }
        return true
    }

    /// The SQL relating the child table (as `alias`) to its parents: a join clause (empty for
    /// a one-to-many count) and the expression holding the parent's key.
    func parentKeySQL(child: Entity, model: ManagedObjectModel, alias: String) -> (join: String, parentKey: String) {
        let q = SchemaGenerator.quote
        guard let r = manyToManyRelationshipIndex, let join = model.entities[parentEntityIndex].joinTables[r] else {
            return ("", "\(alias).\(q(child.relationships[childToOneIndex].name))")
        }
        return (
            " JOIN \(q(join.tableName)) AS \(alias)_j ON \(alias)_j.\(q(join.memberColumn)) = \(alias).\"Z_PK\"",
            "\(alias)_j.\(q(join.ownColumn))"
        )
    }
}

// MARK: - In a context

extension ManagedObjectContext {
    /// Each parent's count change from this context's unsaved changes to the children of
    /// `counter` (a count over a many-to-many relationship).
    func manyToManyCounterDelta(_ counter: CounterInfo, childEntity: Entity) -> [ObjectID: Int64] {
        let parentEntity = model.entities[counter.parentEntityIndex]
        guard let r = counter.manyToManyRelationshipIndex, let join = parentEntity.joinTables[r] else { return [:] }
        let q = SchemaGenerator.quote
        let sql = "SELECT \(q(join.ownColumn)) FROM \(q(join.tableName)) WHERE \(q(join.memberColumn)) = ?"
        var delta: [ObjectID: Int64] = [:]
        func account(_ child: ManagedObject) {
            if deletedByID[child.objectID] == nil, counter.counts(childEntity, values: child.values) {
                for parent in (try? membersOfToMany(child, relationshipIndex: counter.childToOneIndex)) ?? [] {
                    delta[parent.objectID, default: 0] += 1
                }
            }
            if let snapshot = child.snapshot, let pk = child.objectID.primaryKey,
                counter.counts(childEntity, values: snapshot.values)
            {
                let parents = (try? readStore { db in try Int64.fetchAll(db, sql: sql, arguments: [pk]) }) ?? []
                for parent in parents { delta[ObjectID(entity: parentEntity, rawValue: parent), default: 0] -= 1 }
            }
        }
        for object in newObjects where object.entity === childEntity { account(object) }
        for object in updatedByID.values where object.entity === childEntity && !object.isFault { account(object) }
        for object in deletedByID.values where object.entity === childEntity { account(object) }
        return delta.filter { $0.value != 0 }
    }
}

// MARK: - In a save

/// The many-to-many counts a save changes: its changed children's contributions counted
/// before the save writes anything (subtracted) and after (added).
struct ManyToManyCounts {
    private struct Entry {
        let counter: CounterInfo
        let child: Entity
        var children: Set<Int64>
        var byParent: [Int64: Int64] = [:]
    }
    private var entries: [Entry] = []

    /// Subtracts the current contributions of the children `execution`'s plan changes.
    init(before execution: SaveExecution) throws {
        let model = execution.model
        let plan = execution.plan
        for child in model.entities {
            for counter in child.counterDependencies {
                guard let r = counter.manyToManyRelationshipIndex,
                    let join = model.entities[counter.parentEntityIndex].joinTables[r]
                else { continue }
                var children = Set<Int64>()
                for update in plan.updates where update.entity === child { children.insert(update.pk) }
                for delete in plan.deletes where delete.entity === child { children.insert(delete.pk) }
                for (n, insert) in plan.inserts.enumerated() where insert.entity === child {
                    if let pk = execution.outcome.insertedIDs[n].primaryKey { children.insert(pk) }
                }
                for write in plan.joinWrites where write.join.tableName == join.tableName {
                    // The child's side of the pair: the member column of the parent's side.
                    let id = join.memberColumn == JoinTable.targetColumn ? write.target : write.source
                    if let pk = (execution.outcome.permanentIDs[id] ?? id).primaryKey { children.insert(pk) }
                }
                for object in plan.counterOnly where object.entity === child {
                    if let pk = object.objectID.primaryKey { children.insert(pk) }
                }
                guard !children.isEmpty else { continue }
                var entry = Entry(counter: counter, child: child, children: children)
                try Self.account(&entry, sign: -1, model: model, in: execution.db)
                entries.append(entry)
            }
        }
    }

    /// Adds the contributions as they are now, applies the differences and returns the
    /// final counts of every parent touched.
    mutating func finish(_ execution: SaveExecution) throws -> [ObjectID: [Int: Int64]] {
        let model = execution.model
        var touched: [Int: Set<Int64>] = [:]
        for i in entries.indices {
            try Self.account(&entries[i], sign: 1, model: model, in: execution.db)
            let entry = entries[i]
            try DerivedCountWriter.apply(
                entry.byParent.map { ($0.key, $0.value) }, to: entry.counter, model: model, in: execution.db)
            touched[entry.counter.parentEntityIndex, default: []].formUnion(entry.byParent.filter { $0.value != 0 }.keys)
        }
        var result = execution.outcome.counterValues
        for (index, keys) in touched where !keys.isEmpty {
            let parent = model.entities[index]
            for (pk, counts) in try DerivedCountWriter.read(parent, keys: keys, in: execution.db) {
                result[ObjectID(entity: parent, rawValue: pk)] = counts
            }
        }
        return result
    }

    private static func account(_ entry: inout Entry, sign: Int64, model: ManagedObjectModel, in db: Database) throws {
        let q = SchemaGenerator.quote
        let (join, parentKey) = entry.counter.parentKeySQL(child: entry.child, model: model, alias: "t0")
        var sql =
            "SELECT \(parentKey), COUNT(*) FROM \(q(entry.child.tableName)) t0\(join) WHERE t0.\"Z_PK\" IN (SELECT value FROM json_each(?))"
        var arguments: [DatabaseValue] = [jsonArray(entry.children).databaseValue]
        if let predicate = entry.counter.predicate {
            let fragment = try predicate.sqlExpression(for: entry.child, in: model, alias: "t0")
            sql += " AND (\(fragment.sql))"
            arguments += fragment.arguments
        }
        sql += " GROUP BY \(parentKey)"
        for row in try Row.fetchAll(db, sql: sql, arguments: StatementArguments(arguments)) {
            entry.byParent[row[0], default: 0] += sign * (row[1] as Int64)
        }
    }
}
