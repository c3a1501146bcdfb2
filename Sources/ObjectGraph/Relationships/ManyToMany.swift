import Foundation
import GRDB

// MARK: - The join table of a many-to-many relationship

/// Where a many-to-many relationship is stored: a join table the framework creates and
/// keeps, one row per related pair.
///
/// A pair of inverse to-many relationships (`Post.tags` and `Tag.posts`) shares one table,
/// named after the side whose entity and relationship names sort first: `Z_JOIN_Post_tags`.
/// Its column `Z_SOURCE` holds that side's `Z_PK`, `Z_TARGET` the other side's; the pair is
/// the primary key, and an index on `(Z_TARGET, Z_SOURCE)` serves the inverse.
///
/// ```swift
/// let post = EntityDescription("Post", managedClass: Post.self, attributes: [.string("title")],
///     relationships: [.toMany("tags", destination: "Tag", inverse: "posts")])
/// let tag = EntityDescription("Tag", managedClass: Tag.self, attributes: [.string("name")],
///     relationships: [.toMany("posts", destination: "Post", inverse: "tags")])
/// ```
struct JoinTable: Sendable, Hashable {
    /// `Z_JOIN_<Entity>_<relationship>` of the owning side.
    let tableName: String
    /// Whether this side owns the table (its keys are in `Z_SOURCE`).
    let isOwner: Bool
    /// The column holding this side's primary key, and the one holding its members'.
    let ownColumn: String
    let memberColumn: String
    /// The owning side's entity and relationship names and its destination.
    let ownerEntity: String
    let ownerRelationship: String
    let ownerDestination: String

    static let sourceColumn = "Z_SOURCE"
    static let targetColumn = "Z_TARGET"

    init(_ entityName: String, _ relationship: RelationshipDescription) {
        isOwner =
            (entityName, relationship.name) < (relationship.destinationEntityName, relationship.inverseName)
        if isOwner {
            ownerEntity = entityName
            ownerRelationship = relationship.name
            ownerDestination = relationship.destinationEntityName
        } else {
            ownerEntity = relationship.destinationEntityName
            ownerRelationship = relationship.inverseName
            ownerDestination = entityName
        }
        tableName = "Z_JOIN_\(ownerEntity)_\(ownerRelationship)"
        ownColumn = isOwner ? Self.sourceColumn : Self.targetColumn
        memberColumn = isOwner ? Self.targetColumn : Self.sourceColumn
    }

    /// The model's check of a many-to-many relationship (its inverse is known to be to-many).
    static func validate(_ entityName: String, _ relationship: RelationshipDescription) throws(ModelError) {
        if relationship.destinationEntityName == entityName && relationship.inverseName == relationship.name {
            throw ModelError(
                message:
                    "\(entityName).\(relationship.name): a many-to-many relationship cannot be its own inverse; declare two (e.g. 'following' and 'followers')"
            )
        }
    }

    /// The table's line in ``ManagedObjectModel/schemaDescription``.
    var schemaLine: String { "join \(tableName) \(ownerEntity).\(ownerRelationship) -> \(ownerDestination)" }

    /// The statements creating the table and its inverse index.
    var createStatements: [String] {
        let q = SchemaGenerator.quote
        return [
            "CREATE TABLE \(q(tableName)) (\(q(Self.sourceColumn)) INTEGER NOT NULL, \(q(Self.targetColumn)) INTEGER NOT NULL, "
                + "PRIMARY KEY (\(q(Self.sourceColumn)), \(q(Self.targetColumn)))) WITHOUT ROWID",
            "CREATE INDEX \(q(tableName + "_target")) ON \(q(tableName)) (\(q(Self.targetColumn)), \(q(Self.sourceColumn)))",
        ]
    }
}

extension ManagedObjectModel {
    /// Every join table of the model, once each (from its owning side), in entity order.
    var joinTables: [JoinTable] {
        entities.flatMap { $0.joinTables.compactMap { $0?.isOwner == true ? $0 : nil } }
    }
}

extension SchemaGenerator {
    /// The `CREATE` statements of the join tables that hold `model`'s many-to-many relationships.
    ///
    /// ```swift
    /// for sql in SchemaGenerator.joinTableStatements(for: model) { try db.execute(sql: sql) }
    /// ```
    public static func joinTableStatements(for model: ManagedObjectModel) -> [String] {
        model.joinTables.flatMap(\.createStatements)
    }
}

// MARK: - Unsaved membership changes

/// One related pair of a many-to-many relationship, named from the owning side.
struct JoinPair: Hashable {
    /// The owning side's entity (in the model) and relationship.
    let entity: Int
    let relationship: Int
    let source: ObjectID
    let target: ObjectID
}

/// A context's unsaved many-to-many changes: each pair whose membership differs from the
/// store, with its new state, indexed by both objects.
struct JoinChanges {
    private(set) var pairs: [JoinPair: Bool] = [:]
    private var byObject: [ObjectID: Set<JoinPair>] = [:]

    var isEmpty: Bool { pairs.isEmpty }

    /// Records `pair`'s unsaved state (nil: as stored).
    mutating func set(_ pair: JoinPair, _ isMember: Bool?) {
        if let isMember {
            pairs[pair] = isMember
            byObject[pair.source, default: []].insert(pair)
            byObject[pair.target, default: []].insert(pair)
        } else {
            pairs.removeValue(forKey: pair)
            byObject[pair.source]?.remove(pair)
            byObject[pair.target]?.remove(pair)
        }
    }

    /// The unsaved pairs `id` takes part in.
    func pairs(involving id: ObjectID) -> Set<JoinPair> { byObject[id] ?? [] }

    mutating func removeAll() {
        pairs = [:]
        byObject = [:]
    }
}

// MARK: - Reading and changing membership

extension ManagedObjectContext {
    /// The pair relating `object` (through relationship `r`, a many-to-many one) and `member`.
    func joinPair(_ object: ObjectID, relationshipIndex r: Int, member: ObjectID) -> JoinPair {
        let entity = object.entity
        if entity.joinTables[r]!.isOwner {
            return JoinPair(entity: entity.index, relationship: r, source: object, target: member)
        }
        return JoinPair(entity: member.entity.index, relationship: entity.inverseIndex[r], source: member, target: object)
    }

    /// Whether the store holds `pair` (false while either object is unsaved).
    func storeHolds(_ pair: JoinPair) throws(ObjectGraphError) -> Bool {
        guard let source = pair.source.primaryKey, let target = pair.target.primaryKey else { return false }
        let join = model.entities[pair.entity].joinTables[pair.relationship]!
        let q = SchemaGenerator.quote
        return try readStore { db in
            try Bool.fetchOne(
                db,
                sql:
                    "SELECT 1 FROM \(q(join.tableName)) WHERE \(q(JoinTable.sourceColumn)) = ? AND \(q(JoinTable.targetColumn)) = ?",
                arguments: [source, target]) ?? false
        }
    }

    /// The members of many-to-many relationship `r` of `object`: the stored pairs (in the
    /// members' primary-key order) with this context's unsaved changes applied (members
    /// added since the last save last).
    func membersOfManyToMany(_ object: ManagedObject, relationshipIndex r: Int, join: JoinTable) throws(ObjectGraphError)
        -> [ManagedObject]
    {
        let id = object.objectID
        let destination = model.destination(of: object.entity, relationshipIndex: r)
        var removed = Set<ObjectID>()
        var added: [ObjectID] = []
        for pair in joinChanges.pairs(involving: id) {
            let probe = joinPair(id, relationshipIndex: r, member: join.isOwner ? pair.target : pair.source)
            guard probe == pair, let isMember = joinChanges.pairs[pair] else { continue }
            let member = join.isOwner ? pair.target : pair.source
            if isMember { added.append(member) } else { removed.insert(member) }
        }
        var result: [ManagedObject] = []
        var seen = Set<ObjectID>()
        if let pk = id.primaryKey {
            let layout = RowLayout(entity: destination, alias: "t0")
            let q = SchemaGenerator.quote
            let rows = try readStore { db in
                try Row.fetchAll(
                    db,
                    sql:
                        "SELECT \(layout.columnsSQL) FROM \(q(destination.tableName)) t0 WHERE t0.\"Z_PK\" IN (SELECT \(q(join.memberColumn)) FROM \(q(join.tableName)) WHERE \(q(join.ownColumn)) = ?) ORDER BY t0.\"Z_PK\"",
                    arguments: [pk])
            }
            for row in rows {
                let decoded = layout.decode(row, model: model)
                let member = materialize(entity: destination, pk: decoded.pk, snapshot: decoded.snapshot)
                if deletedByID[member.objectID] != nil || removed.contains(member.objectID) { continue }
                if seen.insert(member.objectID).inserted { result.append(member) }
            }
        }
        // Saved members first by key, then unsaved ones in creation order.
        added.sort { ($0.isTemporary ? 1 : 0, abs($0.rawValue)) < ($1.isTemporary ? 1 : 0, abs($1.rawValue)) }
        for memberID in added where !seen.contains(memberID) {
            let member = self.object(with: memberID)
            guard member.managedObjectContext === self, deletedByID[member.objectID] == nil else { continue }
            // A member whose row is gone (deleted elsewhere) is no member.
            if member.isFault, (try? loadRow(into: member)) != true { continue }
            seen.insert(member.objectID)
            result.append(member)
        }
        return result
    }

    /// Adds `member` to (or removes it from) many-to-many relationship `r` of `object`, and
    /// `object` to the inverse of `member`; both objects are marked changed, and one undo
    /// record reverses the pair.
    func setMembership(_ object: ManagedObject, relationshipIndex r: Int, member: ManagedObject, isMember: Bool)
        throws(ObjectGraphError)
    {
        assertOnQueue()
        let entity = object.entity
        guard member.entity.index == entity.destinationIndex[r] else {
            let relationship = entity.relationships[r]
            throw .typeMismatch(
                entity: entity.name, key: relationship.name, expected: relationship.destinationEntityName, got: member.entity.name
            )
        }
        guard member.managedObjectContext === self, object.managedObjectContext === self else {
            throw .objectInaccessible("\(member.objectID) belongs to another context than \(object.objectID)")
        }
        let pair = joinPair(object.objectID, relationshipIndex: r, member: member.objectID)
        let stored = try storeHolds(pair)
        let current = joinChanges.pairs[pair] ?? stored
        if current == isMember { return }
        joinChanges.set(pair, stored == isMember ? nil : isMember)
        noteMembershipChange(object, key: entity.relationships[r].name)
        noteMembershipChange(member, key: entity.relationships[r].inverseName)
        if let undoManager, !isMerging {
            undoManager.registerUndo(
                .change(object.objectID, .membership(index: r, member: member.objectID, wasMember: current)), in: self)
        }
    }

    /// Records that `object`'s relationship `key` changed membership (as ``objectDidChange``
    /// does, without an undo record: the pair has one).
    private func noteMembershipChange(_ object: ManagedObject, key: String) {
        object.fireFaultIfNeeded()
        object.changedKeys.insert(key)
        let id = object.objectID
        if !newObjects.contains(object) && deletedByID[id] == nil { updatedByID[id] = object }
        if !isPendingInsert(object) { pending.updated[id, default: []].insert(key) }
        pending.objects[id] = object
    }

    /// Undo and redo of a membership change.
    func revertMembership(_ id: ObjectID, relationshipIndex r: Int, member memberID: ObjectID, wasMember: Bool) {
        let object = self.object(with: id)
        let member = self.object(with: memberID)
        for o in [object, member] {
            guard o.managedObjectContext === self else { return }
            // A row another context or process deleted meanwhile stays deleted.
            if o.isFault, deletedByID[o.objectID] == nil, (try? loadRow(into: o)) != true { return }
        }
        try? setMembership(object, relationshipIndex: r, member: member, isMember: wasMember)
    }

    /// The delete rules of `object`'s many-to-many relationships, before it is marked
    /// deleted (so that undo brings the pairs back after the object): under nullify and
    /// cascade its pairs are removed (the other side is marked changed); under deny they stay
    /// and the save is refused while any remains. Returns the members a cascade deletes.
    func applyManyToManyDeleteRules(_ object: ManagedObject) -> [ManagedObject] {
        var cascade: [ManagedObject] = []
        for (r, join) in object.entity.joinTables.enumerated() {
            guard let join else { continue }
            let rule = object.entity.relationships[r].deleteRule
            if rule == .deny { continue }
            let members = (try? membersOfManyToMany(object, relationshipIndex: r, join: join)) ?? []
            for member in members {
                try? setMembership(object, relationshipIndex: r, member: member, isMember: false)
            }
            if rule == .cascade { cascade += members }
        }
        return cascade
    }

    // MARK: Saving and merging

    /// The unsaved pairs, for the save plan.
    func joinWritesForSave() -> [SavePlan.JoinWrite] {
        joinChanges.pairs.map { pair, isMember in
            SavePlan.JoinWrite(
                join: model.entities[pair.entity].joinTables[pair.relationship]!, source: pair.source, target: pair.target,
                isMember: isMember)
        }
    }

    /// After a save: the DidSave notice names both objects of each pair written, with the
    /// relationship that changed; the unsaved pairs are cleared.
    func announcingJoinWrites(_ plan: SavePlan, outcome: SaveOutcome, in note: DidSaveNotification) -> DidSaveNotification {
        defer { joinChanges.removeAll() }
        guard !plan.joinWrites.isEmpty else { return note }
        var updated = note.updated
        for write in plan.joinWrites {
            let source = outcome.permanentIDs[write.source] ?? write.source
            let target = outcome.permanentIDs[write.target] ?? write.target
            guard !source.isTemporary, !target.isTemporary else { continue }
            let owner = source.entity
            guard let r = owner.relationshipIndexByName[write.join.ownerRelationship] else { continue }
            if !note.inserted.contains(source) && !note.deleted.contains(source) {
                updated[source, default: []].insert(owner.relationships[r].name)
            }
            if !note.inserted.contains(target) && !note.deleted.contains(target) {
                updated[target, default: []].insert(owner.relationships[r].inverseName)
            }
        }
        return DidSaveNotification(
            contextID: note.contextID, contextName: note.contextName, inserted: note.inserted, updated: updated,
            deleted: note.deleted, isFromOtherProcess: note.isFromOtherProcess)
    }

    /// A merge announces membership changes of registered objects (their members are read
    /// from the store on the next access).
    func noteMergedMembershipChanges(_ note: DidSaveNotification) {
        for (id, keys) in note.updated {
            guard let object = registered[id]?.object else { continue }
            let entity = object.entity
            let changed = keys.filter { key in entity.relationshipIndexByName[key].map { entity.joinTables[$0] != nil } ?? false }
            guard !changed.isEmpty else { continue }
            pending.updated[id, default: []].formUnion(changed)
            pending.objects[id] = object
        }
    }

    /// A child's save: its unsaved pairs become the parent's (called on the parent's queue).
    func adoptJoinChanges(_ writes: [(JoinPair, Bool)], idMap: [ObjectID: ObjectID]) {
        for (pair, isMember) in writes {
            let source = self.object(with: idMap[pair.source] ?? pair.source)
            let target = self.object(with: idMap[pair.target] ?? pair.target)
            guard source.managedObjectContext === self, target.managedObjectContext === self else { continue }
            guard !source.isDeleted, !target.isDeleted else { continue }
            try? setMembership(source, relationshipIndex: pair.relationship, member: target, isMember: isMember)
        }
    }
}

// MARK: - Writing pairs (inside the save transaction)

extension SavePlan {
    /// One pair to write: inserted (`isMember`) or deleted.
    struct JoinWrite {
        let join: JoinTable
        let source: ObjectID
        let target: ObjectID
        let isMember: Bool
    }
}

extension SaveExecution {
    /// Removes the pairs of deleted rows, then writes the context's pair changes (pairs
    /// naming an object deleted in this save, or never saved, are skipped). Inserting a pair
    /// the store already holds, or deleting one it lacks, is harmless: membership is a set.
    func writeJoinChanges() throws {
        let q = SchemaGenerator.quote
        for delete in plan.deletes {
            for join in delete.entity.joinTables {
                guard let join else { continue }
                try db.execute(sql: "DELETE FROM \(q(join.tableName)) WHERE \(q(join.ownColumn)) = ?", arguments: [delete.pk])
            }
        }
        for write in plan.joinWrites {
            let source = outcome.permanentIDs[write.source] ?? write.source
            let target = outcome.permanentIDs[write.target] ?? write.target
            guard let s = source.primaryKey, let t = target.primaryKey else { continue }
            if plan.deletedIDs.contains(source) || plan.deletedIDs.contains(target) { continue }
            let table = q(write.join.tableName)
            let columns = "\(q(JoinTable.sourceColumn)), \(q(JoinTable.targetColumn))"
            if write.isMember {
                // Only between rows that exist: one deleted meanwhile (by another context) leaves no pair behind.
                try db.execute(
                    sql:
                        "INSERT OR IGNORE INTO \(table) (\(columns)) SELECT ?, ? WHERE EXISTS (SELECT 1 FROM \(q(source.entity.tableName)) WHERE \"Z_PK\" = ?) AND EXISTS (SELECT 1 FROM \(q(target.entity.tableName)) WHERE \"Z_PK\" = ?)",
                    arguments: [s, t, s, t])
            } else {
                try db.execute(
                    sql: "DELETE FROM \(table) WHERE \(q(JoinTable.sourceColumn)) = ? AND \(q(JoinTable.targetColumn)) = ?",
                    arguments: [s, t])
            }
        }
    }
}

// MARK: - Migration

extension MigrationStep {
    /// The join tables of the new version: kept when unchanged, created for a new
    /// many-to-many relationship (an additive, inferred change), copied when the owning
    /// entity or relationship was renamed; the tables of removed relationships are dropped.
    /// A relationship that was stored another way before (a one-to-many) is refused: its
    /// rows cannot be inferred into pairs.
    func migrateJoinTables(in db: Database) throws {
        let q = SchemaGenerator.quote
        var kept = Set<String>()
        for join in to.joinTables {
            let entity = try to.entity(named: join.ownerEntity)
            let r = entity.relationshipIndexByName[join.ownerRelationship]!
            let relationship = entity.relationships[r]
            let oldEntity =
                from.entityIfPresent(named: entity.renamingIdentifier ?? entity.name)
                ?? (entity.renamingIdentifier != nil ? from.entityIfPresent(named: entity.name) : nil)
            var oldIndex: Int?
            if let oldEntity {
                for name in [relationship.renamingIdentifier, relationship.name].compactMap({ $0 }) {
                    if let j = oldEntity.relationshipIndexByName[name] {
                        oldIndex = j
                        break
                    }
                }
            }
            guard let oldEntity, let oldIndex else {
                for sql in join.createStatements { try db.execute(sql: sql) }
                continue
            }
            guard let oldJoin = oldEntity.joinTables[oldIndex] else {
                throw fail(
                    entity.name,
                    "relationship '\(relationship.name)' becomes many-to-many; its pairs cannot be inferred from the old relationship"
                )
            }
            if oldJoin.tableName == join.tableName && oldJoin.isOwner {
                kept.insert(join.tableName)
                continue
            }
            for sql in join.createStatements { try db.execute(sql: sql) }
            try db.execute(
                sql:
                    "INSERT INTO \(q(join.tableName)) (\(q(JoinTable.sourceColumn)), \(q(JoinTable.targetColumn))) SELECT \(q(oldJoin.ownColumn)), \(q(oldJoin.memberColumn)) FROM \(q(oldJoin.tableName))"
            )
        }
        for old in from.joinTables where !kept.contains(old.tableName) {
            try db.execute(sql: "DROP TABLE IF EXISTS \(q(old.tableName))")
        }
    }
}

// MARK: - Batch deletes

extension ManyToManyBatchDelete {
    /// The many-to-many part of a batch delete of `keys` of `entity`'s rows: deny refuses
    /// while pairs remain, cascade returns the members to delete too; the pairs go.
    static func apply(
        _ entity: Entity, relationshipIndex r: Int, join: JoinTable, keysJSON: String, in db: Database
    ) throws -> [Int64] {
        let q = SchemaGenerator.quote
        let relationship = entity.relationships[r]
        let members = try Int64.fetchAll(
            db,
            sql:
                "SELECT DISTINCT \(q(join.memberColumn)) FROM \(q(join.tableName)) WHERE \(q(join.ownColumn)) IN (SELECT value FROM json_each(?))",
            arguments: [keysJSON])
        if relationship.deleteRule == .deny, !members.isEmpty {
            throw ObjectGraphError.deleteDenied(entity: entity.name, relationship: relationship.name, count: members.count)
        }
        try db.execute(
            sql: "DELETE FROM \(q(join.tableName)) WHERE \(q(join.ownColumn)) IN (SELECT value FROM json_each(?))",
            arguments: [keysJSON])
        return relationship.deleteRule == .cascade ? members : []
    }
}

enum ManyToManyBatchDelete {}
