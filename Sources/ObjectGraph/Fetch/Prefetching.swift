import Foundation
import GRDB

/// Relationship key paths to prefetch, as a tree of relationship indexes
/// (`["feedItems", "feedItems.enclosures", "folder"]`).
struct PrefetchTree {
    struct Node {
        let relationshipIndex: Int
        var children: [Node]
    }
    var roots: [Node] = []

    /// Resolves `keyPaths` from `entity`; throws ``ObjectGraphError/unknownKey(entity:key:)``
    /// naming the first part that is not a relationship.
    init(_ keyPaths: [String], root entity: Entity, model: ManagedObjectModel) throws(ObjectGraphError) {
        for keyPath in keyPaths {
            let parts = keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            try Self.insert(parts[...], into: &roots, entity: entity, model: model)
        }
    }

    private static func insert(
        _ parts: ArraySlice<String>, into nodes: inout [Node], entity: Entity, model: ManagedObjectModel
    ) throws(ObjectGraphError) {
        guard let name = parts.first else { return }
        guard let r = entity.relationshipIndexByName[name] else { throw .unknownKey(entity: entity.name, key: name) }
        let destination = model.destination(of: entity, relationshipIndex: r)
        if let existing = nodes.firstIndex(where: { $0.relationshipIndex == r }) {
            try insert(parts.dropFirst(), into: &nodes[existing].children, entity: destination, model: model)
        } else {
            var node = Node(relationshipIndex: r, children: [])
            try insert(parts.dropFirst(), into: &node.children, entity: destination, model: model)
            nodes.append(node)
        }
    }
}

extension ManagedObjectContext {
    /// Loads relationships of `objects` (all of one entity, or several) for all of them at
    /// once: one query per relationship and level instead of one per object. To-many
    /// contents are cached on each object until a save changes them (this context's
    /// unsaved changes still apply when they are read); to-one destinations are loaded and
    /// kept in memory by the context until its next prefetch or ``reset()``. Dotted key
    /// paths go further (`"feedItems.enclosures"`).
    ///
    /// ```swift
    /// let servers = try context.fetch(FetchRequest<Server>())
    /// try context.prefetch(["feedItems"], for: servers)   // one query for every server's items
    /// ```
    public func prefetch(_ keyPaths: [String], for objects: [ManagedObject]) throws(ObjectGraphError) {
        assertOnQueue()
        var byEntity: [ObjectIdentifier: (Entity, [ManagedObject])] = [:]
        var order: [ObjectIdentifier] = []
        for object in objects where object.managedObjectContext === self {
            let key = ObjectIdentifier(object.entity)
            if byEntity[key] == nil { order.append(key) }
            byEntity[key, default: (object.entity, [])].1.append(object)
        }
        prefetchedDestinations = []
        for key in order {
            guard let (entity, group) = byEntity[key] else { continue }
            let tree = try PrefetchTree(keyPaths, root: entity, model: model)
            for node in tree.roots { try prefetch(node, of: group, entity: entity) }
        }
    }

    /// ``fetch(_:)`` for a request that returns faults or prefetches relationships.
    func fetchFaultingOrPrefetching<T: ManagedObject>(_ request: FetchRequest<T>, plan: FetchPlan) throws(ObjectGraphError)
        -> [T]
    {
        // Checked before fetching, so that a misspelt key path fails even with no results.
        let tree = try PrefetchTree(request.relationshipKeyPathsForPrefetching, root: plan.entity, model: model)
        var objects: [ManagedObject]
        // A batch size alone asks for faults too, as Core Data's does: rows are read a batch
        // at a time, when one object of the batch is first used.
        let faults = request.returnsObjectsAsFaults || request.fetchBatchSize > 0
        if faults && parentContext == nil && !plan.hasPendingChanges {
            objects = try plan.matchingIDs().map { object(with: $0) }
            if request.fetchBatchSize > 0 {
                var start = 0
                while start < objects.count {
                    let chunk = objects[start..<min(start + request.fetchBatchSize, objects.count)]
                    let batch = FaultBatch(ids: chunk.filter(\.isFault).map(\.objectID))
                    for object in chunk where object.isFault { object.faultBatch = batch }
                    start += request.fetchBatchSize
                }
            }
        } else {
            // A child context's objects, and results mixing unsaved changes, are loaded.
            objects = try executeObjects(plan)
        }
        if !tree.roots.isEmpty { prefetchedDestinations = [] }
        for node in tree.roots { try prefetch(node, of: objects, entity: plan.entity) }
        return objects.map { object in
            guard let typed = object as? T else {
                preconditionFailure("\(object.entity.name) objects are \(type(of: object)), not \(T.self)")
            }
            return typed
        }
    }

    /// Prefetches relationship `node` of `sources` (objects of `entity`), then its children.
    private func prefetch(_ node: PrefetchTree.Node, of sources: [ManagedObject], entity: Entity) throws(ObjectGraphError) {
        if sources.isEmpty { return }
        let r = node.relationshipIndex
        let relationship = entity.relationships[r]
        let destination = model.destination(of: entity, relationshipIndex: r)
        var related: [ManagedObject] = []
        if entity.storesForeignKey[r] {
            // To-one held here: its destinations, in one query, kept alive by their sources.
            try loadRows(of: sources.filter(\.isFault))
            var seen = Set<ObjectID>()
            for source in sources {
                guard let id = source.toOne[r], seen.insert(id).inserted else { continue }
                related.append(object(with: id))
            }
            try loadRows(of: related.filter(\.isFault))
            // The context holds objects weakly: the destinations stay in memory until the
            // next prefetch or reset (not on their sources, whose members may be cached
            // on the destinations: a cycle).
            prefetchedDestinations.append(contentsOf: related)
        } else if let inverse = destination.relationshipIndexByName[relationship.inverseName],
            destination.storesForeignKey[inverse]
        {
            // To-many (or one-to-one held by the destination): every source's stored members
            // in one query, cached on each source.
            let inverseKey = destination.relationships[inverse].name
            let isOrdered = entity.isOrderedOneToMany(r)
            let stamp = relationshipClock.map {
                isOrdered
                    ? orderedOneToManyStamp($0, owner: entity, destination: destination) : $0.stamp(of: destination.tableName)
            }
            var pks: [Int64] = []
            var seenPKs = Set<Int64>()
            for source in sources {
                if let pk = source.objectID.primaryKey, seenPKs.insert(pk).inserted { pks.append(pk) }
            }
            var members: [Int64: [ManagedObject]] = [:]
            if isOrdered, !pks.isEmpty {
                // In stored order, as the relationship reads them.
                members = try readOrderedMembers(destination: destination, inverse: inverse, owners: pks)
            } else if !pks.isEmpty {
                let layout = RowLayout(entity: destination, alias: "t0")
                let model = self.model
                let rows = try readStore { db in
                    try layout.fetchAll(
                        db,
                        sql:
                            "SELECT \(layout.columnsSQL) FROM \(SchemaGenerator.quote(destination.tableName)) t0 WHERE t0.\(SchemaGenerator.quote(inverseKey)) IN (SELECT value FROM json_each(?)) ORDER BY t0.\"Z_PK\"",
                        arguments: [jsonArray(pks).databaseValue], model: model)
                }
                for (pk, snapshot) in rows {
                    guard let parent = snapshot.toOne[inverse]?.rawValue else { continue }
                    members[parent, default: []].append(materialize(entity: destination, pk: pk, snapshot: snapshot))
                }
            }
            for source in sources {
                guard let pk = source.objectID.primaryKey else { continue }
                let stored = members[pk] ?? []
                if let stamp {
                    source.relationshipCacheForWriting.members[r] = .init(objects: stored, stamp: stamp)
                }
            }
            if !node.children.isEmpty {
                // What each source holds now: the stored members with unsaved changes applied.
                for source in sources { related += try relatedObjects(of: source, relationshipIndex: r) }
            }
        } else {
            // Many-to-many: every source's stored members in one query, cached on each source.
            if let join = entity.joinTables[r] {
                try prefetchManyToMany(sources, entity: entity, relationshipIndex: r, join: join)
            }
            for source in sources { related += try relatedObjects(of: source, relationshipIndex: r) }
        }
        guard !node.children.isEmpty else { return }
        var seen = Set<ObjectIdentifier>()
        let distinct = related.filter { seen.insert(ObjectIdentifier($0)).inserted }
        for child in node.children { try prefetch(child, of: distinct, entity: destination) }
    }
}
