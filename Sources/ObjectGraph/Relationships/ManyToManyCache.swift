import Foundation
import GRDB

// Cached and prefetched many-to-many members.
//
// A many-to-many relationship's stored members are cached on the object like a one-to-many's
// (see `RelationshipCache`), under a stamp that moves whenever a save may have changed its
// pairs: every save that writes a pair or an order names both objects with the
// relationship's key, which advances the relationship clock of both entities' tables, and a
// deleted object (whose pairs go with it) advances its own table. The stamp is the sum of
// the two tables' stamps (each only grows, so the sum changes when either does).

extension ManagedObjectContext {
    /// The clock's stamp for many-to-many relationship `join` of `entity`.
    private func manyToManyStamp(_ clock: RelationshipClock, entity: Entity, destination: Entity) -> UInt64 {
        clock.stamp(of: entity.tableName) &+ clock.stamp(of: destination.tableName)
    }

    /// The stored members of many-to-many relationship `r` of `object` (whose key is `pk`), in
    /// stored order (positions for an ordered side, else primary keys): from the object's
    /// cache while its stamp is current, else read and cached. Unsaved changes are not applied.
    func storedManyToManyMembers(
        of object: ManagedObject, relationshipIndex r: Int, join: JoinTable, destination: Entity, pk: Int64
    ) throws(ObjectGraphError) -> [ManagedObject] {
        let clock = relationshipClock
        // Read before the rows, as for one-to-many (a save in between leaves an old stamp).
        let stamp = clock.map { manyToManyStamp($0, entity: object.entity, destination: destination) }
        if let stamp, let cached = object.relationshipCache?.members[r], cached.stamp == stamp {
            return cached.objects
        }
        let members = try readManyToManyMembers(join: join, destination: destination, owners: [pk])[pk] ?? []
        if let stamp { object.relationshipCacheForWriting.members[r] = .init(objects: members, stamp: stamp) }
        return members
    }

    /// The stored members of `join` for every owner key in `owners`, in one query.
    private func readManyToManyMembers(join: JoinTable, destination: Entity, owners: [Int64]) throws(ObjectGraphError)
        -> [Int64: [ManagedObject]]
    {
        let layout = RowLayout(entity: destination, alias: "t0")
        let q = SchemaGenerator.quote
        let order = join.isOrdered ? "j.\(q(JoinTable.orderColumn)), t0.\"Z_PK\"" : "t0.\"Z_PK\""
        // The owner's key comes last: the layout decodes its columns by position.
        let sql =
            "SELECT \(layout.columnsSQL), j.\(q(join.ownColumn)) AS \"Z_OWNER\" FROM \(q(destination.tableName)) t0 JOIN \(q(join.tableName)) j ON j.\(q(join.memberColumn)) = t0.\"Z_PK\" WHERE j.\(q(join.ownColumn)) IN (SELECT value FROM json_each(?)) ORDER BY j.\(q(join.ownColumn)), \(order)"
        let rows = try readStore { db in try Row.fetchAll(db, sql: sql, arguments: [jsonArray(owners)]) }
        var result: [Int64: [ManagedObject]] = [:]
        for row in rows {
            let owner: Int64 = row["Z_OWNER"]
            let decoded = layout.decode(row, model: model)
            result[owner, default: []].append(materialize(entity: destination, pk: decoded.pk, snapshot: decoded.snapshot))
        }
        return result
    }

    /// Prefetch of many-to-many relationship `r` of `sources` (objects of `entity`): every
    /// source's stored members in one query, cached on each source.
    func prefetchManyToMany(_ sources: [ManagedObject], entity: Entity, relationshipIndex r: Int, join: JoinTable)
        throws(ObjectGraphError)
    {
        let destination = model.destination(of: entity, relationshipIndex: r)
        guard let clock = relationshipClock else { return }
        let stamp = manyToManyStamp(clock, entity: entity, destination: destination)
        var pks: [Int64] = []
        var seen = Set<Int64>()
        for source in sources {
            if let pk = source.objectID.primaryKey, seen.insert(pk).inserted { pks.append(pk) }
        }
        guard !pks.isEmpty else { return }
        let members = try readManyToManyMembers(join: join, destination: destination, owners: pks)
        for source in sources {
            guard let pk = source.objectID.primaryKey else { continue }
            source.relationshipCacheForWriting.members[r] = .init(objects: members[pk] ?? [], stamp: stamp)
        }
    }
}
