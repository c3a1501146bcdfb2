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
    /// Whether this side keeps its members in order (`Z_ORDER`, positions within this side's object).
    let isOrdered: Bool

    static let sourceColumn = "Z_SOURCE"
    static let targetColumn = "Z_TARGET"
    static let orderColumn = "Z_ORDER"

    init(_ entityName: String, _ relationship: RelationshipDescription) {
        isOrdered = relationship.isOrdered
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

    /// The model's check of an ordered relationship.
    static func validateOrdered(_ entityName: String, _ relationship: RelationshipDescription, inverse: RelationshipDescription)
        throws(ModelError)
    {
        guard relationship.isToMany else {
            throw ModelError(message: "\(entityName).\(relationship.name): only a to-many relationship can be ordered")
        }
        // An ordered one-to-many keeps positions in its destination's table (``OrderedOneToMany``).
        guard inverse.isToMany else { return }
        guard !inverse.isOrdered else {
            throw ModelError(
                message: "\(entityName).\(relationship.name): only one side of a many-to-many relationship can be ordered")
        }
    }

    /// The table's line in ``ManagedObjectModel/schemaDescription``.
    var schemaLine: String { "join \(tableName) \(ownerEntity).\(ownerRelationship) -> \(ownerDestination)" }

    /// The statements creating the table and its inverse index.
    var createStatements: [String] {
        let q = SchemaGenerator.quote
        return [
            "CREATE TABLE \(q(tableName)) (\(q(Self.sourceColumn)) INTEGER NOT NULL, \(q(Self.targetColumn)) INTEGER NOT NULL, "
                + "\(q(Self.orderColumn)) INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (\(q(Self.sourceColumn)), \(q(Self.targetColumn)))) WITHOUT ROWID",
            "CREATE INDEX \(q(tableName + "_target")) ON \(q(tableName)) (\(q(Self.targetColumn)), \(q(Self.sourceColumn)))",
        ]
    }
}

extension ManagedObjectModel {
    /// Every join table of the model, once each (from its owning side), in entity order.
    var joinTables: [JoinTable] {
        var seen = Set<String>()  // sub-entities inherit their parent's
        return entities.flatMap { $0.joinTables.compactMap { $0?.isOwner == true ? $0 : nil } }.filter {
            seen.insert($0.tableName).inserted
        }
    }
}

extension SchemaGenerator {
    /// The `CREATE` statements of the join tables that hold `model`'s many-to-many relationships.
    ///
    /// ```swift
    /// try dbQueue.write { db in
    ///     for sql in SchemaGenerator.joinTableStatements(for: model) { try db.execute(sql: sql) }
    /// }
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

    /// The unsaved order of ordered relationships, by object and relationship index.
    var orders: [OrderKey: [ObjectID]] = [:]

    struct OrderKey: Hashable {
        let id: ObjectID
        let relationship: Int
    }

    var isEmpty: Bool { pairs.isEmpty && orders.isEmpty }

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
        orders = [:]
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
            for member in try storedManyToManyMembers(
                of: object, relationshipIndex: r, join: join, destination: destination, pk: pk)
            {
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
        // The unsaved order; members it does not name (added from the other side) last.
        return join.isOrdered ? applyingUnsavedOrder(result, of: id, relationshipIndex: r) : result
    }

    /// Adds `member` to (or removes it from) many-to-many relationship `r` of `object`, and
    /// `object` to the inverse of `member`; both objects are marked changed, and one undo
    /// record reverses the pair.
    ///
    /// A pair of an ordered relationship is placed (added last, or removed) through
    /// ``setOrderedMembers(_:relationshipIndex:join:to:)``, so that its undo puts it back
    /// where it was; `maintainingOrder: false` is that function's own call (and undo's).
    func setMembership(
        _ object: ManagedObject, relationshipIndex r: Int, member: ManagedObject, isMember: Bool, maintainingOrder: Bool = true
    ) throws(ObjectGraphError) {
        assertOnQueue()
        let entity = object.entity
        guard member.entity.isKind(ofEntityAt: entity.destinationIndex[r]) else {
            let relationship = entity.relationships[r]
            throw .typeMismatch(
                entity: entity.name, key: relationship.name, expected: relationship.destinationEntityName, got: member.entity.name
            )
        }
        guard member.managedObjectContext === self, object.managedObjectContext === self else {
            throw .objectInaccessible(object.otherContextMessage(member))
        }
        let pair = joinPair(object.objectID, relationshipIndex: r, member: member.objectID)
        let stored = try storeHolds(pair)
        let current = joinChanges.pairs[pair] ?? stored
        if current == isMember { return }
        if maintainingOrder {
            let inverse = entity.inverseIndex[r]
            let ordered: (ManagedObject, Int, ManagedObject)? =
                entity.joinTables[r]!.isOrdered
                ? (object, r, member) : member.entity.joinTables[inverse]!.isOrdered ? (member, inverse, object) : nil
            if let (side, sideR, other) = ordered {
                let join = side.entity.joinTables[sideR]!
                var members = try membersOfManyToMany(side, relationshipIndex: sideR, join: join)
                members.removeAll { $0 === other }
                if isMember { members.append(other) }
                try setOrderedMembers(side, relationshipIndex: sideR, join: join, to: members)
                return
            }
        }
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
    func noteMembershipChange(_ object: ManagedObject, key: String) {
        object.fireFaultIfNeeded()
        object.changedKeys.insert(key)
        object.observationDidChange(forKey: key)
        let id = object.objectID
        if !newObjects.contains(object) && deletedByID[id] == nil { updatedByID[id] = object }
        if !isPendingInsert(object) { pending.updated[id, default: []].insert(key) }
        pending.objects[id] = object
    }

    /// `refresh(_:mergeChanges: false)`: the object's unsaved pairs and orders are dropped too
    /// (the objects on the other side of them read the store again for those pairs).
    func discardJoinChanges(of id: ObjectID) {
        for pair in joinChanges.pairs(involving: id) { joinChanges.set(pair, nil) }
        for key in joinChanges.orders.keys where key.id == id { joinChanges.orders.removeValue(forKey: key) }
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
        try? setMembership(object, relationshipIndex: r, member: member, isMember: wasMember, maintainingOrder: false)
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
            let owner = model.entities[pair.entity]
            let join = owner.joinTables[pair.relationship]!
            let inverse = model.destination(of: owner, relationshipIndex: pair.relationship).relationships[
                owner.inverseIndex[pair.relationship]]
            let group = join.isOrdered ? JoinTable.sourceColumn : inverse.isOrdered ? JoinTable.targetColumn : nil
            return SavePlan.JoinWrite(
                join: join, source: pair.source, target: pair.target, isMember: isMember, orderGroupColumn: group)
        }
    }

    /// After a save: the DidSave notice names both objects of each pair written, with the
    /// relationship that changed; the unsaved pairs are cleared.
    func announcingJoinWrites(_ plan: SavePlan, outcome: SaveOutcome, in note: DidSaveNotification) -> DidSaveNotification {
        defer { joinChanges.removeAll() }
        guard !plan.joinWrites.isEmpty || !plan.orderWrites.isEmpty else { return note }
        var updated = note.updated
        for write in plan.orderWrites {
            let id = outcome.permanentIDs[write.object] ?? write.object
            guard !id.isTemporary, !note.inserted.contains(id), !note.deleted.contains(id) else { continue }
            updated[id, default: []].insert(id.entity.relationships[write.relationship].name)
        }
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
            let changed = keys.filter { key in
                entity.relationshipIndexByName[key].map { entity.joinTables[$0] != nil || entity.isOrderedOneToMany($0) } ?? false
            }
            guard !changed.isEmpty else { continue }
            object.observationDidChange(keys: changed)
            pending.updated[id, default: []].formUnion(changed)
            pending.objects[id] = object
        }
    }

    /// A child's save: its unsaved pairs become the parent's (called on the parent's queue).
    func adoptJoinChanges(
        _ writes: [(JoinPair, Bool)], orders: [(JoinChanges.OrderKey, [ObjectID])], idMap: [ObjectID: ObjectID]
    ) {
        defer {
            for (key, order) in orders {
                let object = self.object(with: idMap[key.id] ?? key.id)
                guard object.managedObjectContext === self, !object.isDeleted else { continue }
                if object.entity.isOrderedOneToMany(key.relationship) {
                    // The members came with the pushed to-ones: only the order is adopted.
                    let current = (try? membersOfToMany(object, relationshipIndex: key.relationship).map(\.objectID)) ?? []
                    setOrder(
                        object, relationshipIndex: key.relationship, order: order.map { idMap[$0] ?? $0 }, undoOrder: current)
                    continue
                }
                guard let join = object.entity.joinTables[key.relationship] else { continue }
                let members = order.map { self.object(with: idMap[$0] ?? $0) }.filter {
                    $0.managedObjectContext === self && !$0.isDeleted
                }
                try? setOrderedMembers(object, relationshipIndex: key.relationship, join: join, to: members)
            }
        }
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
        /// For an ordered relationship, the column of the side that keeps the order.
        var orderGroupColumn: String? = nil
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
                // A new pair of an ordered relationship goes last (an order written below may move it).
                // Unordered pairs all have position 0: made ordered later, they read in key order.
                let position =
                    write.orderGroupColumn.map {
                        "(SELECT COALESCE(MAX(\(q(JoinTable.orderColumn))) + 1, 0) FROM \(table) WHERE \(q($0)) = ?)"
                    } ?? "0"
                let groupKey: [Int64] = write.orderGroupColumn.map { $0 == JoinTable.targetColumn ? [t] : [s] } ?? []
                try db.execute(
                    sql:
                        "INSERT OR IGNORE INTO \(table) (\(columns), \(q(JoinTable.orderColumn))) SELECT ?, ?, \(position) WHERE EXISTS (SELECT 1 FROM \(q(source.entity.tableName)) WHERE \"Z_PK\" = ?) AND EXISTS (SELECT 1 FROM \(q(target.entity.tableName)) WHERE \"Z_PK\" = ?)",
                    arguments: StatementArguments([s, t] + groupKey + [s, t]))
            } else {
                try db.execute(
                    sql: "DELETE FROM \(table) WHERE \(q(JoinTable.sourceColumn)) = ? AND \(q(JoinTable.targetColumn)) = ?",
                    arguments: [s, t])
            }
        }
        for write in plan.orderWrites {
            let object = outcome.permanentIDs[write.object] ?? write.object
            guard let own = object.primaryKey, !plan.deletedIDs.contains(object) else { continue }
            guard let join = write.join else {
                if let positions = write.positions { try writeOrderedOneToMany(write, positions: positions, owner: own) }
                continue
            }
            let sql =
                "UPDATE \(q(join.tableName)) SET \(q(JoinTable.orderColumn)) = ? WHERE \(q(join.ownColumn)) = ? AND \(q(join.memberColumn)) = ?"
            for (position, member) in write.order.enumerated() {
                guard let m = (outcome.permanentIDs[member] ?? member).primaryKey else { continue }
                try db.execute(sql: sql, arguments: [position, own, m])
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
                    "INSERT INTO \(q(join.tableName)) (\(q(JoinTable.sourceColumn)), \(q(JoinTable.targetColumn)), \(q(JoinTable.orderColumn))) SELECT \(q(oldJoin.ownColumn)), \(q(oldJoin.memberColumn)), \(q(JoinTable.orderColumn)) FROM \(q(oldJoin.tableName))"
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
        _ entity: Entity, relationshipIndex r: Int, join: JoinTable, keysJSON: String,
        into removed: inout [(table: String, rows: [[DatabaseValue]])], in db: Database
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
        // Kept for undo, which puts the pairs back.
        let rows = try Row.fetchAll(
            db,
            sql:
                "SELECT \(q(JoinTable.sourceColumn)), \(q(JoinTable.targetColumn)), \(q(JoinTable.orderColumn)) FROM \(q(join.tableName)) WHERE \(q(join.ownColumn)) IN (SELECT value FROM json_each(?))",
            arguments: [keysJSON])
        if !rows.isEmpty { removed.append((join.tableName, rows.map { Array($0.databaseValues) })) }
        try db.execute(
            sql: "DELETE FROM \(q(join.tableName)) WHERE \(q(join.ownColumn)) IN (SELECT value FROM json_each(?))",
            arguments: [keysJSON])
        return relationship.deleteRule == .cascade ? members : []
    }

    /// Undo of a batch delete: the pairs come back (after the rows they relate).
    static func restore(_ pairs: [(table: String, rows: [[DatabaseValue]])], in db: Database) throws {
        let q = SchemaGenerator.quote
        for (table, rows) in pairs {
            let statement = try db.cachedStatement(
                sql:
                    "INSERT OR IGNORE INTO \(q(table)) (\(q(JoinTable.sourceColumn)), \(q(JoinTable.targetColumn)), \(q(JoinTable.orderColumn))) VALUES (?, ?, ?)"
            )
            for row in rows { try statement.execute(arguments: StatementArguments(row)) }
        }
    }
}

enum ManyToManyBatchDelete {}

// MARK: - Ordered relationships

extension ManagedObject {
    /// Inserts `object` at `index` of ordered to-many relationship `key` (moving it there if it
    /// is a member already).
    ///
    /// ```swift
    /// try playlist.insert(song, at: 0, inRelationship: "songs")
    /// ```
    public func insert(_ object: ManagedObject, at index: Int, inRelationship key: String) throws(ObjectGraphError) {
        var members = try orderedMembers(forKey: key)
        members.removeAll { $0 === object }
        guard (0...members.count).contains(index) else {
            throw .invalidValue(
                entity: entity.name, key: key, rule: "index", message: "index \(index) is out of 0...\(members.count)")
        }
        members.insert(object, at: index)
        _ = try replaceOrderedMembers(members, forKey: key)
    }

    /// Removes the member at `index` of ordered to-many relationship `key`.
    ///
    /// ```swift
    /// try playlist.removeObject(at: 2, fromRelationship: "songs")
    /// ```
    public func removeObject(at index: Int, fromRelationship key: String) throws(ObjectGraphError) {
        var members = try orderedMembers(forKey: key)
        guard members.indices.contains(index) else {
            throw .invalidValue(
                entity: entity.name, key: key, rule: "index", message: "index \(index) is out of 0..<\(members.count)")
        }
        members.remove(at: index)
        _ = try replaceOrderedMembers(members, forKey: key)
    }

    /// Moves the member at `from` to `to` in ordered to-many relationship `key`.
    ///
    /// ```swift
    /// try playlist.moveObject(at: 0, to: 3, inRelationship: "songs")
    /// ```
    public func moveObject(at from: Int, to: Int, inRelationship key: String) throws(ObjectGraphError) {
        var members = try orderedMembers(forKey: key)
        guard members.indices.contains(from), members.indices.contains(to) else {
            throw .invalidValue(
                entity: entity.name, key: key, rule: "index", message: "index \(from) or \(to) is out of 0..<\(members.count)")
        }
        members.insert(members.remove(at: from), at: to)
        _ = try replaceOrderedMembers(members, forKey: key)
    }

    private func orderedMembers(forKey key: String) throws(ObjectGraphError) -> [ManagedObject] {
        guard let r = entity.relationshipIndexByName[key], entity.relationships[r].isOrdered, entity.isToMany[r] else {
            throw .typeMismatch(entity: entity.name, key: key, expected: "ordered to-many relationship", got: "another kind")
        }
        return try objects(forKey: key)
    }

    /// Makes `members` the members of `key`, in that order, when `key` is an ordered
    /// relationship (false, doing nothing, for any other).
    func replaceOrderedMembers(_ members: [ManagedObject], forKey key: String) throws(ObjectGraphError) -> Bool {
        if let r = entity.relationshipIndexByName[key], entity.isOrderedOneToMany(r) {
            try managedObjectContext?.setOrderedOneToManyMembers(self, relationshipIndex: r, to: members)
            return true
        }
        guard let r = entity.relationshipIndexByName[key], let join = entity.joinTables[r], join.isOrdered else { return false }
        guard let context = managedObjectContext else { return true }
        try context.setOrderedMembers(self, relationshipIndex: r, join: join, to: members)
        return true
    }
}

extension ManagedObjectContext {
    /// Sets the members of ordered relationship `r` of `object` and their order: pairs added
    /// and removed as needed (one undo record each), then the order (one more).
    func setOrderedMembers(_ object: ManagedObject, relationshipIndex r: Int, join: JoinTable, to members: [ManagedObject])
        throws(ObjectGraphError)
    {
        assertOnQueue()
        var unique: [ManagedObject] = []
        var ids = Set<ObjectID>()
        for member in members where ids.insert(member.objectID).inserted { unique.append(member) }
        let current = try membersOfManyToMany(object, relationshipIndex: r, join: join)
        let old = current.map(\.objectID)
        let new = unique.map(\.objectID)
        if old == new { return }
        for member in current where !ids.contains(member.objectID) {
            try setMembership(object, relationshipIndex: r, member: member, isMember: false, maintainingOrder: false)
        }
        let oldIDs = Set(old)
        for member in unique where !oldIDs.contains(member.objectID) {
            try setMembership(object, relationshipIndex: r, member: member, isMember: true, maintainingOrder: false)
        }
        setOrder(object, relationshipIndex: r, order: new, undoOrder: old)
    }

    func setOrder(_ object: ManagedObject, relationshipIndex r: Int, order: [ObjectID], undoOrder: [ObjectID]) {
        joinChanges.orders[.init(id: object.objectID, relationship: r)] = order
        noteMembershipChange(object, key: object.entity.relationships[r].name)
        if let undoManager, !isMerging {
            undoManager.registerUndo(.change(object.objectID, .order(index: r, oldOrder: undoOrder)), in: self)
        }
    }

    /// Undo and redo of an order change.
    func revertOrder(_ id: ObjectID, relationshipIndex r: Int, order: [ObjectID]) {
        let object = self.object(with: id)
        guard object.managedObjectContext === self, object.entity.relationships[r].isOrdered else { return }
        // What redo restores: the order as it stands (naming members a later undo brings back), else the members.
        let current =
            joinChanges.orders[.init(id: object.objectID, relationship: r)]
            ?? ((try? membersOfToMany(object, relationshipIndex: r)) ?? []).map(\.objectID)
        setOrder(object, relationshipIndex: r, order: order.map { permanentIDForTemporary[$0] ?? $0 }, undoOrder: current)
    }

    /// The unsaved orders, for the save plan.
    func orderWritesForSave() -> [SavePlan.OrderWrite] {
        joinChanges.orders.compactMap { key, order in
            if key.id.entity.isOrderedOneToMany(key.relationship) {
                return orderedOneToManyWrite(key.id, relationshipIndex: key.relationship, order: order)
            }
            guard let join = key.id.entity.joinTables[key.relationship] else { return nil }
            return SavePlan.OrderWrite(join: join, object: key.id, relationship: key.relationship, order: order)
        }
    }
}

extension SavePlan {
    /// The order of an ordered relationship's members, written as positions 0, 1, 2….
    struct OrderWrite {
        /// The join table of an ordered many-to-many relationship; nil for a one-to-many, whose
        /// positions go to `positions`.
        let join: JoinTable?
        let object: ObjectID
        let relationship: Int
        let order: [ObjectID]
        var positions: OrderColumn? = nil
    }
}
