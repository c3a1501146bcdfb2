import Foundation
import GRDB
import Synchronization

// Cached relationship contents.
//
// A to-many relationship (and a one-to-one stored on the other side) is the set of rows
// whose inverse column points at the object. Rather than query the store on every access,
// the stored members are kept on the object (strongly, as Core Data keeps a fired
// relationship fault) and reused until the store's membership may have changed. The
// context's unsaved changes are applied on top at every access, so only what the store
// holds is cached.
//
// Whether it may have changed is told by the container's ``RelationshipClock``: the bus
// advances it, before any observer runs, for every DidSave whose rows join, leave or move
// between relationships (inserts, deletes, changed relationship columns; a commit by
// another process advances everything). A cached list remembers the clock's stamp of its
// destination table when it was read, and is read again once the stamp moved. (Ordered
// relationships add the owner's table: a reorder is announced on the owner.)

/// Counts, per table, the saves that may have changed which rows point where.
/// Thread-safe: saves on any queue advance it, contexts on any queue read it.
final class RelationshipClock: Sendable {
    private struct State {
        var byTable: [String: UInt64] = [:]
        var everything: UInt64 = 0
    }
    private let state = Mutex(State())

    /// A value that changes whenever a save may have changed the relationship columns of
    /// `table` (both parts only grow, so their sum never repeats a stamp).
    func stamp(of table: String) -> UInt64 {
        state.withLock { $0.everything &+ ($0.byTable[table] ?? 0) }
    }

    /// Advances the tables whose membership `note` may have changed.
    func advance(for note: DidSaveNotification) {
        if note.isFromOtherProcess {
            state.withLock { $0.everything &+= 1 }
            return
        }
        var tables: [String] = []
        func touch(_ entity: Entity) {
            // A save touches a handful of tables: a linear search beats hashing every ID.
            if !tables.contains(entity.tableName) { tables.append(entity.tableName) }
        }
        var last: Entity?
        for id in note.inserted where id.entity !== last {
            last = id.entity
            touch(id.entity)
        }
        for id in note.deleted where id.entity !== last {
            last = id.entity
            touch(id.entity)
        }
        for (id, keys) in note.updated where keys.contains(where: { id.entity.relationshipIndexByName[$0] != nil }) {
            touch(id.entity)
        }
        guard !tables.isEmpty else { return }
        state.withLock { s in
            for table in tables { s.byTable[table, default: 0] &+= 1 }
        }
    }
}

/// What an object keeps of its relationships: the stored members of its to-many
/// relationships (by relationship index). Confined to the queue of the object's context,
/// like the object. Members hold nothing back (a to-one is an ID), so no cycle forms.
final class RelationshipCache {
    struct Members {
        /// The stored rows pointing at the object, in primary-key order (in stored order for
        /// an ordered relationship).
        var objects: [ManagedObject]
        /// The clock's stamp of the destination table when they were read.
        var stamp: UInt64
    }
    var members: [Int: Members] = [:]
}

extension ManagedObject {
    /// The object's relationship cache, made on first use.
    var relationshipCacheForWriting: RelationshipCache {
        if let relationshipCache { return relationshipCache }
        let cache = RelationshipCache()
        relationshipCache = cache
        return cache
    }
}

extension ManagedObjectContext {
    /// The clock that tells whether cached relationship contents are current, or nil when
    /// they must not be used: the container is gone, or reads are pinned to a generation
    /// (whose store state the clock does not describe).
    var relationshipClock: RelationshipClock? {
        pinnedGeneration == nil ? bus?.relationshipClock : nil
    }

    /// The stored rows of `destination` whose column `inverseKey` holds `pk`, materialized,
    /// in primary-key order: from `object`'s cache while its stamp is current, else read
    /// (and cached) now. Unsaved changes of this context are not applied here.
    func storedPointingObjects(
        at object: ManagedObject, relationshipIndex r: Int, destination: Entity, inverseKey: String, pk: Int64
    ) throws(ObjectGraphError) -> [ManagedObject] {
        let clock = relationshipClock
        // The stamp is read before the rows: a save committing in between leaves a stamp
        // that is already out of date, never a current stamp on old rows.
        let stamp = clock?.stamp(of: destination.tableName)
        if let stamp, let cached = object.relationshipCache?.members[r], cached.stamp == stamp {
            return cached.objects
        }
        let layout = RowLayout(entity: destination, alias: "t0")
        let rows = try readStore { db in
            try Row.fetchAll(
                db.cachedStatement(
                    sql:
                        "SELECT \(layout.columnsSQL) FROM \(SchemaGenerator.quote(destination.tableName)) t0 WHERE t0.\(SchemaGenerator.quote(inverseKey)) = ? ORDER BY t0.\"Z_PK\""
                ),
                arguments: [pk])
        }
        var members: [ManagedObject] = []
        members.reserveCapacity(rows.count)
        for row in rows {
            let decoded = layout.decode(row, model: model)
            members.append(materialize(entity: destination, pk: decoded.pk, snapshot: decoded.snapshot))
        }
        if let stamp { object.relationshipCacheForWriting.members[r] = .init(objects: members, stamp: stamp) }
        return members
    }

    /// Drops what `object` caches of its relationships (a refresh to a fault).
    func forgetRelationshipCache(of object: ManagedObject) {
        object.relationshipCache = nil
    }
}
