import Foundation
import GRDB
import GRDBSQLite

// MARK: - Where an ordered one-to-many keeps its order

/// An ordered one-to-many relationship (`ordered: true` on a to-many whose inverse is
/// to-one) keeps each member's position in the member's own row, next to the to-one column
/// pointing at its owner: column `Z_FOK_<to-one name>` (as Core Data's `Z_FOK_` columns),
/// positions 0, 1, 2… within one owner, ties read in primary-key order.
///
/// ```swift
/// final class TodoList: ManagedObject { @Managed("name") var name: String? }
/// final class TodoTask: ManagedObject { @Managed("title") var title: String? }
/// let list = EntityDescription("TodoList", managedClass: TodoList.self, attributes: [.string("name")],
///     relationships: [.toMany("tasks", destination: "TodoTask", inverse: "list", deleteRule: .cascade, ordered: true)])
/// let task = EntityDescription("TodoTask", managedClass: TodoTask.self, attributes: [.string("title")],
///     relationships: [.toOne("list", destination: "TodoList", inverse: "tasks")])
/// ```
///
/// A member added through its to-one (`task.list = list`) or with
/// ``ManagedObject/add(_:toRelationship:)`` goes last; ``ManagedObject/insert(_:at:inRelationship:)``,
/// ``ManagedObject/moveObject(at:to:inRelationship:)`` and
/// ``ManagedObject/removeObject(at:fromRelationship:)`` place it. Making an existing
/// relationship ordered is an inferred migration step: the column is added with every
/// position 0, so the existing members keep primary-key order until reordered. A step that
/// copies the members through an ``EntityMigrationPolicy`` keeps each member's place while it
/// keeps its owner; members the policy gives another owner go last, in primary-key order.
enum OrderedOneToMany {
    /// The position column of to-one `name`.
    static func orderColumn(forToOne name: String) -> String { "Z_FOK_\(name)" }

    /// For each relationship of `d`: the position column when it is a to-one stored here
    /// whose inverse is ordered, else nil.
    static func orderColumns(_ d: EntityDescription, storesForeignKey: [Bool], inverseIsOrdered: [Bool]) -> [String?] {
        d.relationships.indices.map { r in
            r < inverseIsOrdered.count && inverseIsOrdered[r] && storesForeignKey[r] && !d.relationships[r].isToMany
                ? orderColumn(forToOne: d.relationships[r].name) : nil
        }
    }
}

extension Entity {
    /// Whether to-many relationship `r` is an ordered one-to-many (its order in the members' rows).
    func isOrderedOneToMany(_ r: Int) -> Bool {
        relationships[r].isOrdered && relationships[r].isToMany && joinTables[r] == nil
    }
}

// MARK: - Reading

extension ManagedObjectContext {
    /// The relationship clock's stamp for an ordered one-to-many from `owner` to
    /// `destination`. A member joining, leaving or moving between owners advances the
    /// destination's table; a reorder changes no relationship column, but every save that
    /// writes positions names the owner with the relationship's key (see
    /// ``announcingJoinWrites(_:outcome:in:)``), which advances the owner's table. The stamp
    /// is the sum of both (each only grows, so the sum moves when either does).
    func orderedOneToManyStamp(_ clock: RelationshipClock, owner: Entity, destination: Entity) -> UInt64 {
        clock.stamp(of: owner.tableName) &+ clock.stamp(of: destination.tableName)
    }

    /// The stored members of ordered one-to-many `r` of `object` (whose key is `pk`), in their
    /// stored order: from the object's cache while its stamp is current (see
    /// ``orderedOneToManyStamp(_:owner:destination:)``), else read and cached. Unsaved changes
    /// are not applied here.
    func storedOrderedMembers(
        of object: ManagedObject, relationshipIndex r: Int, destination: Entity, inverse: Int, pk: Int64
    ) throws(ObjectGraphError) -> [ManagedObject] {
        // Read before the rows, as for any relationship (a save in between leaves an old stamp).
        let stamp = relationshipClock.map { orderedOneToManyStamp($0, owner: object.entity, destination: destination) }
        if let stamp, let cached = object.relationshipCache?.members[r], cached.stamp == stamp {
            return cached.objects
        }
        let members = try readOrderedMembers(destination: destination, inverse: inverse, owners: [pk])[pk] ?? []
        if let stamp { object.relationshipCacheForWriting.members[r] = .init(objects: members, stamp: stamp) }
        return members
    }

    /// The stored members of ordered one-to-many relationships whose inverse is to-one
    /// `inverse` of `destination`, for every owner key in `owners`, each in stored order, in one query.
    func readOrderedMembers(destination: Entity, inverse: Int, owners: [Int64]) throws(ObjectGraphError)
        -> [Int64: [ManagedObject]]
    {
        let q = SchemaGenerator.quote
        let inverseKey = destination.relationships[inverse].name
        let column = destination.orderColumns[inverse] ?? OrderedOneToMany.orderColumn(forToOne: inverseKey)
        let layout = RowLayout(entity: destination, alias: "t0")
        let model = self.model
        let (condition, argument) =
            owners.count == 1
            ? ("= ?", owners[0].databaseValue) : ("IN (SELECT value FROM json_each(?))", jsonArray(owners).databaseValue)
        let rows = try readStore { db in
            try layout.fetchAll(
                db,
                sql:
                    "SELECT \(layout.columnsSQL) FROM \(q(destination.tableName)) t0 WHERE t0.\(q(inverseKey)) \(condition) ORDER BY t0.\(q(column)), t0.\"Z_PK\"",
                arguments: [argument], model: model)
        }
        var result: [Int64: [ManagedObject]] = [:]
        for (pk, snapshot) in rows {
            guard let owner = snapshot.toOne[inverse]?.rawValue else { continue }
            result[owner, default: []].append(materialize(entity: destination, pk: pk, snapshot: snapshot))
        }
        return result
    }

    /// `members` ranked by the unsaved order of relationship `r` of `id`, if there is one;
    /// members the order does not name (added meanwhile from elsewhere) go last, as they were.
    func applyingUnsavedOrder(_ members: [ManagedObject], of id: ObjectID, relationshipIndex r: Int) -> [ManagedObject] {
        guard let order = joinChanges.orders[.init(id: id, relationship: r)] else { return members }
        var position: [ObjectID: Int] = [:]
        for (i, member) in order.enumerated() { position[currentID(of: member)] = i }
        let ranked = members.enumerated().map { (position[$0.element.objectID] ?? order.count + $0.offset, $0.element) }
        return ranked.sorted { $0.0 < $1.0 }.map(\.1)
    }

    /// The ID `id` goes by now: an unsaved object that an undo brought back after its
    /// deletion is a new object (possibly several times over).
    func currentID(of id: ObjectID) -> ObjectID {
        var id = id
        var steps = 0
        while let next = permanentIDForTemporary[id], next != id, steps < 64 {
            id = next
            steps += 1
        }
        return id
    }

    // MARK: Changing

    /// Before `member`'s to-one `r` changes: when its inverse is an ordered one-to-many, its
    /// current owner and that owner's members in order (to record where it was).
    func orderedOwnerBeforeChange(of member: ManagedObject, relationshipIndex r: Int) throws(ObjectGraphError)
        -> (owner: ManagedObject, members: [ObjectID])?
    {
        guard member.entity.orderColumns[r] != nil, let ownerID = member.toOne[r] else { return nil }
        let owner = object(with: ownerID)
        guard owner.managedObjectContext === self, deletedByID[ownerID] == nil else { return nil }
        let members = try membersOfToMany(owner, relationshipIndex: member.entity.inverseIndex[r]).map(\.objectID)
        return (owner, members)
    }

    /// After `member`'s to-one `r` changed from `previous` (see
    /// ``orderedOwnerBeforeChange(of:relationshipIndex:)``) to `owner`: the previous owner's
    /// order without it, and `member` last among `owner`'s members (an undo record each, so
    /// that undo puts it back where it was).
    func placeInOrderedInverse(
        _ member: ManagedObject, relationshipIndex r: Int, previous: (owner: ManagedObject, members: [ObjectID])?,
        owner: ManagedObject?
    ) throws(ObjectGraphError) {
        guard member.entity.orderColumns[r] != nil else { return }
        let inverse = member.entity.inverseIndex[r]
        if let previous, previous.owner !== owner {
            setOrder(
                previous.owner, relationshipIndex: inverse, order: previous.members.filter { $0 != member.objectID },
                undoOrder: joinChanges.orders[.init(id: previous.owner.objectID, relationship: inverse)] ?? previous.members)
        }
        guard let owner, owner.managedObjectContext === self else { return }
        if appendToUnsavedOrder(member, of: owner, relationshipIndex: inverse, cameFromElsewhere: previous?.owner !== owner) {
            return
        }
        orderRebuilds += 1
        let old = try membersOfToMany(owner, relationshipIndex: inverse).map(\.objectID)
        var new = old.filter { $0 != member.objectID }
        new.append(member.objectID)
        let undoOrder =
            joinChanges.orders[.init(id: owner.objectID, relationship: inverse)] ?? old.filter { $0 != member.objectID }
        setOrder(owner, relationshipIndex: inverse, order: new, undoOrder: undoOrder)
    }

    /// Appends `member` to the unsaved order of ordered one-to-many `r` of `owner` in place,
    /// when that order exists and needs no undo record: the order already names every member
    /// this context placed, so the members need not be read again. Without this an import of
    /// n members into one owner reads and re-ranks the owner's members n times (quadratic).
    /// False when the caller must rebuild the order (the first change since the last save,
    /// undo on, or a member that may already be named).
    private func appendToUnsavedOrder(
        _ member: ManagedObject, of owner: ManagedObject, relationshipIndex r: Int, cameFromElsewhere: Bool
    ) -> Bool {
        let key = JoinChanges.OrderKey(id: owner.objectID, relationship: r)
        guard undoManager == nil, !isMerging, cameFromElsewhere, joinChanges.orders[key] != nil else { return false }
        joinChanges.orders[key]?.append(member.objectID)
        noteMembershipChange(owner, key: owner.entity.relationships[r].name)
        return true
    }

    /// Before `object` is deleted: the owners of its ordered one-to-many memberships record
    /// their order, so that undoing the deletion (even a saved one, which brings the object
    /// back as a new row) puts it back where it was.
    func recordOrdersBeforeDeletion(of object: ManagedObject) {
        for r in object.entity.relationships.indices where object.entity.orderColumns[r] != nil {
            guard let previous = try? orderedOwnerBeforeChange(of: object, relationshipIndex: r) else { continue }
            let inverse = object.entity.inverseIndex[r]
            let order = joinChanges.orders[.init(id: previous.owner.objectID, relationship: inverse)] ?? previous.members
            setOrder(previous.owner, relationshipIndex: inverse, order: order, undoOrder: order)
        }
    }

    /// Makes `members` the members of ordered one-to-many `r` of `object`, in that order:
    /// members left out lose their to-one (as ``ManagedObject/remove(_:fromRelationship:)``),
    /// new ones are pointed at `object`, then the order is set (one undo record each).
    func setOrderedOneToManyMembers(_ object: ManagedObject, relationshipIndex r: Int, to members: [ManagedObject])
        throws(ObjectGraphError)
    {
        assertOnQueue()
        let destination = model.destination(of: object.entity, relationshipIndex: r)
        let inverse = object.entity.inverseIndex[r]
        var unique: [ManagedObject] = []
        var ids = Set<ObjectID>()
        for member in members where ids.insert(member.objectID).inserted {
            guard member.entity.index == destination.index else {
                throw .typeMismatch(
                    entity: object.entity.name, key: object.entity.relationships[r].name,
                    expected: destination.name, got: member.entity.name)
            }
            guard member.managedObjectContext === self else { throw .objectInaccessible(object.otherContextMessage(member)) }
            unique.append(member)
        }
        let current = try membersOfToMany(object, relationshipIndex: r)
        let old = current.map(\.objectID)
        let new = unique.map(\.objectID)
        if old == new { return }
        let undoOrder = joinChanges.orders[.init(id: object.objectID, relationship: r)] ?? old
        for member in current where !ids.contains(member.objectID) {
            try setToOne(member, relationshipIndex: inverse, to: nil)
        }
        let oldIDs = Set(old)
        for member in unique where !oldIDs.contains(member.objectID) {
            try setToOne(member, relationshipIndex: inverse, to: object)
        }
        setOrder(object, relationshipIndex: r, order: new, undoOrder: undoOrder)
    }

    // MARK: Saving

    /// The order write of ordered one-to-many `r` of `id`: every current member, in order
    /// (members moved here from elsewhere included), or nil when the object is gone.
    func orderedOneToManyWrite(_ id: ObjectID, relationshipIndex r: Int, order: [ObjectID]) -> SavePlan.OrderWrite? {
        guard let object = registeredObject(for: id), object.managedObjectContext === self, deletedByID[id] == nil else {
            return nil
        }
        let members = (try? membersOfToMany(object, relationshipIndex: r).map(\.objectID)) ?? order
        let destination = model.destination(of: object.entity, relationshipIndex: r)
        let inverse = object.entity.inverseIndex[r]
        guard let column = destination.orderColumns[inverse] else { return nil }
        return SavePlan.OrderWrite(
            join: nil, object: id, relationship: r, order: members,
            positions: .init(
                table: destination.tableName, toOneColumn: destination.relationships[inverse].name, orderColumn: column))
    }
}

extension SavePlan {
    /// Where an ordered one-to-many's positions go: the members' table, their to-one column
    /// (only rows still pointing at the owner are placed) and the position column.
    struct OrderColumn {
        let table: String
        let toOneColumn: String
        let orderColumn: String
    }
}

extension SaveExecution {
    /// Writes the positions of an ordered one-to-many's members (after the rows are written).
    /// Members whose keys follow one another in the order (the rows an import appends, keys
    /// given in insertion order) are placed by one statement per run rather than one each.
    func writeOrderedOneToMany(_ write: SavePlan.OrderWrite, positions: SavePlan.OrderColumn, owner: Int64) throws {
        let keys = write.order.compactMap { (outcome.permanentIDs[$0] ?? $0).primaryKey }
        let q = SchemaGenerator.quote
        let table = q(positions.table)
        let column = q(positions.orderColumn)
        let toOne = q(positions.toOneColumn)
        let oneSQL = "UPDATE \(table) SET \(column) = ? WHERE \"Z_PK\" = ? AND \(toOne) = ?"
        // Position = start + (key - first key) = key - (first key - start).
        let runSQL = "UPDATE \(table) SET \(column) = \"Z_PK\" - ? WHERE \"Z_PK\" BETWEEN ? AND ? AND \(toOne) = ?"
        var start = 0
        while start < keys.count {
            var end = start + 1
            while end < keys.count && keys[end] == keys[end - 1] + 1 { end += 1 }
            // Bound through SQLite's C API, as a save's inserts are.
            let statement: Statement
            if end - start == 1 {
                statement = try db.cachedStatement(sql: oneSQL)
                sqlite3_bind_int64(statement.sqliteStatement, 1, Int64(start))
                sqlite3_bind_int64(statement.sqliteStatement, 2, keys[start])
                sqlite3_bind_int64(statement.sqliteStatement, 3, owner)
            } else {
                statement = try db.cachedStatement(sql: runSQL)
                sqlite3_bind_int64(statement.sqliteStatement, 1, keys[start] - Int64(start))
                sqlite3_bind_int64(statement.sqliteStatement, 2, keys[start])
                sqlite3_bind_int64(statement.sqliteStatement, 3, keys[end - 1])
                sqlite3_bind_int64(statement.sqliteStatement, 4, owner)
            }
            try RawSQLite.step(statement.sqliteStatement, sql: statement.sql, in: db)
            start = end
        }
    }
}

// MARK: - Migration

extension MigrationStep {
    /// The position columns to copy into a rebuilt table: those the old table had too.
    func orderColumnSources(_ m: EntityMapping, old: Entity) -> [(column: String, source: String)] {
        var result: [(String, String)] = []
        for (r, relationship) in m.new.relationships.enumerated() {
            guard let column = m.new.orderColumns[r] else { continue }
            for name in [relationship.renamingIdentifier, relationship.name].compactMap({ $0 }) {
                if let j = old.relationshipIndexByName[name], let source = old.orderColumns[j] {
                    result.append((column, source))
                    break
                }
            }
        }
        return result
    }

    /// After a row-by-row copy through an ``EntityMigrationPolicy`` (which writes no
    /// positions): each owner's members numbered 0, 1, 2… in their old order when the
    /// relationship was ordered before and the member kept its owner, then (members the
    /// policy moved to another owner, or every member of a relationship that becomes ordered
    /// in this step) in primary-key order, as the inferred step reads them.
    func placeOrderedMembersAfterPolicy(_ m: EntityMapping, old: Entity, in db: Database) throws {
        let sources = orderColumnSources(m, old: old)
        let table = q(m.new.tableName)
        for (r, relationship) in m.new.relationships.enumerated() {
            guard let column = m.new.orderColumns[r] else { continue }
            let owner = q(relationship.name)
            let oldOwner = m.foreignKeySources.first { $0.new.name == relationship.name }?.old?.name
            let ranking: String
            if let source = sources.first(where: { $0.column == column })?.source, let oldOwner {
                // The old row's position counts only while it has the same owner.
                ranking =
                    "SELECT n.\"Z_PK\" AS pk, ROW_NUMBER() OVER (PARTITION BY n.\(owner) ORDER BY o.\"Z_PK\" IS NULL, o.\(q(source)), n.\"Z_PK\") - 1 AS position FROM \(table) n LEFT JOIN \(q(asideName(old))) o ON o.\"Z_PK\" = n.\"Z_PK\" AND o.\(q(oldOwner)) IS n.\(owner)"
            } else {
                ranking =
                    "SELECT \"Z_PK\" AS pk, ROW_NUMBER() OVER (PARTITION BY \(owner) ORDER BY \"Z_PK\") - 1 AS position FROM \(table)"
            }
            try db.execute(
                sql:
                    "UPDATE \(table) SET \(q(column)) = ranked.position FROM (\(ranking)) AS ranked WHERE ranked.pk = \(table).\"Z_PK\" AND \(table).\(owner) IS NOT NULL"
            )
        }
    }

    /// Tables that stay add the position column of a relationship that became ordered (every
    /// position 0: the members keep primary-key order) and drop those of relationships no
    /// longer ordered.
    func migrateOrderColumns(in db: Database) throws {
        let q = SchemaGenerator.quote
        for entity in to.entities {
            let existing = try Row.fetchAll(db, sql: "PRAGMA table_info(\(q(entity.tableName)))").map { $0["name"] as String }
            let wanted = entity.orderColumns.compactMap { $0 }
            for column in wanted where !existing.contains(column) {
                try db.execute(sql: "ALTER TABLE \(q(entity.tableName)) ADD COLUMN \(q(column)) INTEGER NOT NULL DEFAULT 0")
            }
            for column in existing where column.hasPrefix("Z_FOK_") && !wanted.contains(column) {
                try db.execute(sql: "ALTER TABLE \(q(entity.tableName)) DROP COLUMN \(q(column))")
            }
        }
    }
}
