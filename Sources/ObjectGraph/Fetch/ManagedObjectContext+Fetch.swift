import Foundation
import GRDB

extension ManagedObjectContext {
    /// The objects matching `request`, with this context's unsaved changes applied.
    ///
    /// ```swift
    /// let unread = try context.fetch(FetchRequest<FeedItem>(where: \.read == false))
    /// ```
    public func fetch<T: ManagedObject>(_ request: FetchRequest<T>) throws(ObjectGraphError) -> [T] {
        assertOnQueue()
        let plan = try FetchPlan(request: request, context: self)
        if request.returnsObjectsAsFaults || request.fetchBatchSize > 0 || !request.relationshipKeyPathsForPrefetching.isEmpty {
            return try fetchFaultingOrPrefetching(request, plan: plan)
        }
        return try executeObjects(plan).map { object in
            guard let typed = object as? T else {
                preconditionFailure("\(object.entity.name) objects are \(type(of: object)), not \(T.self)")
            }
            return typed
        }
    }

    /// The IDs of the objects matching `request`, in order.
    ///
    /// ```swift
    /// let ids = try context.fetchObjectIDs(FetchRequest<FeedItem>())
    /// ```
    public func fetchObjectIDs<T: ManagedObject>(_ request: FetchRequest<T>) throws(ObjectGraphError) -> [ObjectID] {
        assertOnQueue()
        let plan = try FetchPlan(request: request, context: self)
        if let parentContext { return try executeThroughParent(plan, parent: parentContext).map(\.objectID) }
        if !plan.hasPendingChanges {
            return try plan.matchingIDs()
        }
        return try executeObjects(plan).map(\.objectID)
    }

    /// How many objects match `request` (limit and offset apply).
    ///
    /// ```swift
    /// let unreadCount = try context.count(for: FetchRequest<FeedItem>(where: \.read == false))
    /// ```
    public func count<T: ManagedObject>(for request: FetchRequest<T>) throws(ObjectGraphError) -> Int {
        assertOnQueue()
        let plan = try FetchPlan(request: request, context: self)
        if let parentContext { return try executeThroughParent(plan, parent: parentContext).count }
        var total: Int
        if !plan.hasPendingChanges {
            let (sql, arguments) = plan.selectSQL(columns: "COUNT(*)", excluding: [], applyLimit: false)
            total = try plan.read { db in try Int.fetchOne(db, sql: sql, arguments: StatementArguments(arguments)) ?? 0 }
        } else {
            let (sql, arguments) = plan.selectSQL(columns: "COUNT(*)", excluding: plan.excludedPKs, applyLimit: false)
            total = try plan.read { db in try Int.fetchOne(db, sql: sql, arguments: StatementArguments(arguments)) ?? 0 }
            total += try plan.pendingCandidates().count
        }
        total = max(0, total - request.fetchOffset)
        if request.fetchLimit > 0 { total = min(total, request.fetchLimit) }
        return total
    }

    /// SQLite's plan for the query of `request` as ``fetch(_:)`` runs it on a context with
    /// no unsaved changes (or, with `idsOnly`, as ``fetchObjectIDs(_:)`` does): the detail of
    /// each step of `EXPLAIN QUERY PLAN`, such as `SEARCH t0 USING INDEX … (read=?)` or
    /// `USE TEMP B-TREE FOR ORDER BY`. For tests that a list is read through an index.
    ///
    /// ```swift
    /// let unread = try ObjectPredicate(format: "read == NO")
    /// let plan = try context.queryPlan(for: FetchRequest<FeedItem>(predicate: unread, fetchLimit: 50))
    /// if plan.contains(where: { $0.contains("TEMP B-TREE") }) { print("sorts without an index") }
    /// ```
    public func queryPlan<T: ManagedObject>(for request: FetchRequest<T>, idsOnly: Bool = false) throws(ObjectGraphError)
        -> [String]
    {
        assertOnQueue()
        let plan = try FetchPlan(request: request, context: self)
        let columns = idsOnly ? "t0.\"Z_PK\"" : RowLayout(entity: plan.entity, alias: "t0").columnsSQL
        let (sql, arguments) = plan.selectSQL(columns: columns, excluding: [], applyLimit: true)
        return try plan.read { db in
            try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql, arguments: StatementArguments(arguments)).map { row in
                row["detail"] as String? ?? ""
            }
        }
    }

    /// Sum, minimum, maximum, average or count of attribute `key` over the objects matching
    /// `request` (limit, offset and sort are ignored). Empty sets give `.null` (count: 0).
    ///
    /// ```swift
    /// let total = try context.aggregate(.sum, of: "unreadCount", for: FetchRequest<Server>())
    /// ```
    public func aggregate<T: ManagedObject>(_ function: AggregateFunction, of key: String, for request: FetchRequest<T>)
        throws(ObjectGraphError) -> Value
    {
        assertOnQueue()
        let plan = try FetchPlan(request: request, context: self)
        guard let index = plan.entity.attributeIndexByName[key], !plan.entity.attributes[index].isTransient else {
            throw .unknownKey(entity: plan.entity.name, key: key)
        }
        let attribute = plan.entity.attributes[index]
        let column = "t0.\(SchemaGenerator.quote(key))"
        let (sql, arguments) = plan.selectSQL(
            columns: "TOTAL(\(column)), COUNT(\(column)), MIN(\(column)), MAX(\(column)), SUM(\(column))",
            excluding: plan.hasPendingChanges ? plan.excludedPKs : [], applyLimit: false, ordered: false)
        let row = try plan.read { db in try Row.fetchOne(db, sql: sql, arguments: StatementArguments(arguments)) }
        var partial = AggregatePartial(
            count: row?[1] ?? 0, total: row?[0] ?? 0,
            integerSum: attribute.type == .integer || attribute.type == .bool ? ((row?[4] as Int64?) ?? 0) : nil,
            minimum: Value(databaseValue: row?[2] ?? .null, type: attribute.type),
            maximum: Value(databaseValue: row?[3] ?? .null, type: attribute.type))
        if plan.hasPendingChanges {
            for object in try plan.pendingCandidates() { partial.add(object.attributeValue(at: index)) }
        }
        return partial.result(function)
    }

    /// A lazily loaded result list: only the matching IDs are read at once, objects are
    /// loaded `fetchBatchSize` at a time as they are accessed, and a batch no longer in use
    /// is released, so iterating 100,000 results keeps memory bounded.
    ///
    /// ```swift
    /// for item in try context.fetchBatched(FetchRequest<FeedItem>(fetchBatchSize: 500)) { print(item.title ?? "") }
    /// ```
    public func fetchBatched<T: ManagedObject>(_ request: FetchRequest<T>) throws(ObjectGraphError) -> FetchedResults<T> {
        let ids = try fetchObjectIDs(request)
        return FetchedResults(ids: ids, context: self, batchSize: request.fetchBatchSize > 0 ? request.fetchBatchSize : 200)
    }

    func executeObjects(_ plan: FetchPlan) throws(ObjectGraphError) -> [ManagedObject] {
        if let parentContext { return try executeThroughParent(plan, parent: parentContext) }
        let layout = RowLayout(entity: plan.entity, alias: "t0")
        if !plan.hasPendingChanges {
            let (sql, arguments) = plan.selectSQL(columns: layout.columnsSQL, excluding: [], applyLimit: true)
            return try readObjects(plan, sql: sql, arguments: arguments, layout: layout)
        }
        // Store rows for objects without unsaved changes, then the changed objects that
        // match in memory, merged in sort order.
        let (sql, arguments) = plan.selectSQL(
            columns: layout.columnsSQL, excluding: plan.excludedPKs, applyLimit: false, limitForMerge: true)
        var objects = try readObjects(plan, sql: sql, arguments: arguments, layout: layout)
        if plan.sortsByRelevance {
            // Only stored rows have a rank: they come in the index's order, objects with
            // unsaved changes after them, ordered by the other descriptors.
            var pending = try plan.pendingCandidates()
            try sortInMemory(&pending, by: plan.request.sortDescriptors.filter { $0.key != ObjectSortDescriptor.relevanceKey })
            objects += pending
        } else {
            objects.append(contentsOf: try plan.pendingCandidates())
            try sortInMemory(&objects, by: plan.request.sortDescriptors)
        }
        let start = min(plan.request.fetchOffset, objects.count)
        let end = plan.request.fetchLimit > 0 ? min(objects.count, start + plan.request.fetchLimit) : objects.count
        return Array(objects[start..<end])
    }

    private func readObjects(_ plan: FetchPlan, sql: String, arguments: [DatabaseValue], layout: RowLayout)
        throws(ObjectGraphError) -> [ManagedObject]
    {
        let entity = layout.entity
        let model = self.model
        let cached = store.fetchStatements.admits(sql, for: plan.request)
        if registered.isEmpty {
            // Nothing registered (a fresh or reset context): no row can have an object yet,
            // so objects are made as the rows are read, with no look-up and no list of rows
            // in between; they join the context (and hear awakeFromFetch) back on its queue.
            let objects = try plan.read { db in
                var objects: [ManagedObject] = []
                try layout.forEachRow(db, sql: sql, arguments: arguments, model: model, cached: cached) { pk, snapshot in
                    let entity = snapshot.entityIndex < 0 ? entity : model.entities[snapshot.entityIndex]
                    let object = entity.managedClass.init(
                        ManagedObject.Construction(entity: entity, objectID: ObjectID(entity: entity, rawValue: pk)))
                    object.values = snapshot.values
                    object.toOne = snapshot.toOne
                    object.snapshot = snapshot
                    objects.append(object)
                }
                return objects
            }
            registered.reserveCapacity(objects.count)
            for object in objects {
                object.link = link
                register(object)
                object.awakeFromFetch()
            }
            return objects
        }
        var decoded = try plan.read { db in
            try layout.fetchAll(db, sql: sql, arguments: arguments, model: model, cached: cached)
        }
        registered.reserveCapacity(registered.count + decoded.count)
        // Each row's arrays are swapped out of `decoded` so they move into the object
        // instead of being retained by both.
        var objects: [ManagedObject] = []
        objects.reserveCapacity(decoded.count)
        for i in decoded.indices {
            var snapshot = Snapshot(values: [], toOne: [], version: 0)
            swap(&snapshot, &decoded[i].1)
            objects.append(materialize(entity: entity, pk: decoded[i].0, snapshot: snapshot))
        }
        return objects
    }

    func sortInMemory(_ objects: inout [ManagedObject], by descriptors: [ObjectSortDescriptor]) throws(ObjectGraphError) {
        var keyed: [([Value], Int64, ManagedObject)] = []
        keyed.reserveCapacity(objects.count)
        for object in objects {
            let raw = object.objectID.rawValue
            // Unsaved objects (negative keys) after the saved ones, in insertion order.
            let storeOrder = raw < 0 ? Int64.max + raw : raw
            var keys: [Value] = []
            for d in descriptors {
                keys.append(
                    d.key == ObjectSortDescriptor.storeOrderKey ? .integer(storeOrder) : try object.value(forKeyPath: d.key))
            }
            keyed.append((keys, storeOrder, object))
        }
        keyed.sort { a, b in
            for (i, d) in descriptors.enumerated() {
                let c = Value.sortOrder(a.0[i], b.0[i])
                if c != 0 { return d.ascending ? c < 0 : c > 0 }
            }
            return a.1 < b.1
        }
        objects = keyed.map(\.2)
    }
}

/// A resolved fetch request: entity, compiled predicate, and the context's pending changes.
struct FetchPlan {
    let request: AnyFetchRequest
    let entity: Entity
    let context: ManagedObjectContext
    let whereSQL: SQLFragment?
    let orderSQL: String
    let hasPendingChanges: Bool
    /// Restricts an entity of an inheritance hierarchy to its kinds' rows (see ``Inheritance``).
    let kindCondition: String?
    let includesSubentities: Bool
    let excludedPKs: [Int64]
    /// For a full-text search: the FTS5 table and the query (nil: the text has no words).
    var search: (table: String, expression: String?)?
    let sortsByRelevance: Bool
    /// Whether the first sort descriptor is an attribute that leads an index of the entity
    /// (an indexed attribute, or the first key of an index).
    let ordersByIndexedKey: Bool
    /// The request's time budget, counted from the plan's making, for its reads and its
    /// in-memory evaluation of pending changes alike.
    let deadline: QueryDeadline
    /// Where a search's matches come from in the query (SearchWindow.swift).
    var matchSource = SearchMatchSource.filter
    /// The keys of the page, in order, when ``chooseMatchSource()`` read them to prove the
    /// window (the same query, same snapshot): ``matchingIDs()`` gives them without reading
    /// the window's rows again (at a million items, 200 rows spread over the store).
    var provenPage: [Int64]?

    init<T: ManagedObject>(request: FetchRequest<T>, context: ManagedObjectContext) throws(ObjectGraphError) {
        let model = context.model
        let entity: Entity
        if let name = request.entityName {
            entity = try model.entity(named: name)
        } else {
            entity = try model.entity(for: T.self)
        }
        self.entity = entity
        self.context = context
        self.kindCondition = Inheritance.condition(
            for: entity, alias: "t0", includingSubentities: request.includesSubentities)
        self.includesSubentities = request.includesSubentities
        self.deadline = QueryDeadline(limit: request.timeLimit)
        self.request = AnyFetchRequest(
            predicate: request.predicate, sortDescriptors: request.sortDescriptors, fetchLimit: request.fetchLimit,
            fetchOffset: request.fetchOffset, searchText: request.searchText, searchWindow: request.searchWindow)
        if let text = request.searchText {
            guard let table = FullTextIndexSchema.tableName(of: entity) else { throw .noFullTextIndex(entity: entity.name) }
            search = (table, FullTextSearch.matchExpression(for: text))
        } else {
            search = nil
        }
        if let predicate = request.predicate {
            whereSQL = try predicate.sqlExpression(for: entity, in: model, alias: "t0")  // validates it first
        } else {
            whereSQL = nil
        }
        var order: [String] = []
        var sortsByRelevance = false
        var sortsByStoreOrder = false
        for d in request.sortDescriptors {
            if d.key == ObjectSortDescriptor.storeOrderKey {
                sortsByStoreOrder = true
                order.append("t0.\"Z_PK\" \(d.ascending ? "ASC" : "DESC")")
                continue
            }
            if d.key == ObjectSortDescriptor.relevanceKey {
                guard let search else { throw .unknownKey(entity: entity.name, key: d.key) }
                sortsByRelevance = true
                order.append("\(SchemaGenerator.quote(search.table)).rank \(d.ascending ? "ASC" : "DESC")")
                continue
            }
            let expression = try ObjectPredicate.sqlKeyPathExpression(d.key, for: entity, in: model, alias: "t0")
            order.append("\(expression) \(d.ascending ? "ASC" : "DESC")")
        }
        if !sortsByStoreOrder { order.append("t0.\"Z_PK\" ASC") }
        orderSQL = order.joined(separator: ", ")
        self.sortsByRelevance = sortsByRelevance
        if let first = request.sortDescriptors.first?.key, let i = entity.attributeIndexByName[first] {
            ordersByIndexedKey = entity.attributes[i].isIndexed || entity.indexes.contains { $0.first == first }
        } else {
            ordersByIndexedKey = false
        }
        if request.includesPendingChanges {
            var excluded: [Int64] = []
            var any = false
            for (id, _) in context.updatedByID where id.entity.isKind(of: entity) {
                any = true
                if let pk = id.primaryKey { excluded.append(pk) }
            }
            for (id, _) in context.deletedByID where id.entity.isKind(of: entity) {
                any = true
                if let pk = id.primaryKey { excluded.append(pk) }
            }
            if !any { any = context.newObjects.contains { $0.entity.isKind(of: entity) } }
            hasPendingChanges = any
            excludedPKs = excluded
        } else {
            hasPendingChanges = false
            excludedPKs = []
        }
        if !sortsByRelevance, let current = search, current.expression != nil, let text = request.searchText {
            // Prefixes of few words as those words (PrefixExpansion.swift); a rank would differ.
            let vocabulary = FullTextIndexSchema.vocabularyName(table: current.table)
            search = (
                current.table,
                try read { db in
                    try db.tableExists(vocabulary)
                        ? FullTextSearch.expandedMatchExpression(for: text, vocabulary: vocabulary, in: db)
                        : current.expression
                }
            )
        }
        (matchSource, provenPage) = try chooseMatchSource()
    }

    /// Runs `block` on the store with the request's deadline: past it the statement is
    /// interrupted and the fetch throws ``ObjectGraphError/timeLimitExceeded(entity:seconds:)``.
    func read<T>(_ block: (Database) throws -> T) throws(ObjectGraphError) -> T {
        do {
            return try context.readStore { db in try deadline.run(in: db) { try block(db) } }
        } catch {
            throw explained(error)
        }
    }

    /// `error`, or what it stands for: the time-out when the deadline has passed (SQLite
    /// reports an interrupted statement as SQLITE_INTERRUPT), a predicate too deep for SQLite
    /// when its parser gives up (the ``ObjectPredicate/Limits`` keep predicates short of that).
    func explained(_ error: ObjectGraphError) -> ObjectGraphError {
        if deadline.isExceeded { return .timeLimitExceeded(entity: entity.name, seconds: deadline.seconds) }
        if case .sqlite(_, let message, _) = error,
            message.contains("parser stack overflow") || message.hasPrefix("Expression tree is too large")
        {
            return .invalidPredicate(
                entity: entity.name, message: "the predicate or sort key paths nest too deeply for SQLite (\(message))")
        }
        return error
    }

    /// `SELECT columns FROM table t0 WHERE … ORDER BY … LIMIT …`.
    func selectSQL(
        columns: String, excluding: [Int64], applyLimit: Bool, ordered: Bool = true, limitForMerge: Bool = false
    ) -> (String, [DatabaseValue]) {
        var sql = "SELECT \(columns) FROM \(SchemaGenerator.quote(entity.tableName)) t0"
        var arguments: [DatabaseValue] = []
        var conditions: [String] = []
        let source =
            request.searchWindow.map { .recentMatches(max(0, $0)) }
            ?? (ordered && applyLimit && request.fetchLimit > 0 ? matchSource : .filter)
        if let search {
            let table = SchemaGenerator.quote(search.table)
            if let expression = search.expression, let from = source.fromClause(table: table, entity: entity) {
                // The matches lead the join (see SearchMatchSource).
                sql = "SELECT \(columns) FROM \(from)"
                arguments.append(expression.databaseValue)
            } else if let expression = search.expression {
                if sortsByRelevance {
                    // The rank lives in the FTS5 table: join it, sort the matches.
                    sql += " JOIN \(table) ON \(table).rowid = t0.\"Z_PK\""
                    conditions.append("\(table) MATCH ?")
                } else if ordered && (applyLimit || limitForMerge) && ordersByIndexedKey {
                    // FTS5 gives the set of matching keys once; the rows are then read in
                    // the order of an index (the unary + keeps SQLite from looking the
                    // matches up one by one and sorting them all), so a page of the newest
                    // matches costs a page, however many items match.
                    conditions.append("+t0.\"Z_PK\" IN (SELECT rowid FROM \(table) WHERE \(table) MATCH ?)")
                } else {
                    conditions.append("t0.\"Z_PK\" IN (SELECT rowid FROM \(table) WHERE \(table) MATCH ?)")
                }
                arguments.append(expression.databaseValue)
            } else {
                conditions.append("0")
            }
        }
        if let kindCondition { conditions.append(kindCondition) }
        if let whereSQL {
            conditions.append("(\(whereSQL.sql))")
            arguments += whereSQL.arguments
        }
        if !excluding.isEmpty {
            conditions.append("t0.\"Z_PK\" NOT IN (SELECT value FROM json_each(?))")
            arguments.append(jsonArray(excluding).databaseValue)
        }
        if !conditions.isEmpty { sql += " WHERE " + conditions.joined(separator: " AND ") }
        if ordered && (applyLimit || limitForMerge) { sql += " ORDER BY \(orderSQL)" }
        if applyLimit {
            if request.fetchLimit > 0 {
                sql += " LIMIT \(request.fetchLimit) OFFSET \(request.fetchOffset)"
            } else if request.fetchOffset > 0 {
                sql += " LIMIT -1 OFFSET \(request.fetchOffset)"
            }
        } else if limitForMerge && request.fetchLimit > 0 {
            // Changed objects can only push store rows down: the first offset+limit suffice.
            sql += " LIMIT \(request.fetchOffset + request.fetchLimit)"
        }
        return (sql, arguments)
    }

    /// The context's inserted and updated objects of the entity that match the predicate.
    func pendingCandidates() throws(ObjectGraphError) -> [ManagedObject] {
        var result: [ManagedObject] = []
        let searchKeys = entity.fullTextIndex?.attributes ?? []
        let extractLengths = searchKeys.map { entity.fullTextIndex?.extractLengths[$0] }
        for object in context.changedObjects(of: entity) {
            if !includesSubentities && object.entity !== entity { continue }
            if let text = request.searchText {
                let fields = zip(searchKeys, extractLengths).map { key, length -> String? in
                    // A related object's attribute (`body.text`) as this context sees it.
                    let value =
                        entity.attributeIndexByName[key].map { object.attributeValue(at: $0) }
                        ?? (try? object.value(forKeyPath: key)) ?? .null
                    guard case .string(let s) = value else { return nil }
                    // As the index takes it: SQLite's substr counts code points.
                    guard let length else { return s }
                    return String(String.UnicodeScalarView(s.unicodeScalars.prefix(length)))
                }
                guard FullTextSearch.matches(text, in: fields) else { continue }
            }
            if let predicate = request.predicate {
                do {
                    guard try deadline.run({ try predicate.evaluate(with: object) }) else { continue }
                } catch {
                    throw explained(ObjectGraphError.wrapping(error))
                }
            }
            result.append(object)
        }
        return result
    }
}

/// The untyped parts of a fetch request a plan needs.
struct AnyFetchRequest {
    var predicate: ObjectPredicate?
    var sortDescriptors: [ObjectSortDescriptor]
    var fetchLimit: Int
    var fetchOffset: Int
    var searchText: String?
    var searchWindow: Int?
}

extension ManagedObject: PredicateEvaluable {
    public func predicateValue(forKey key: String) throws -> PredicateKeyValue {
        if let i = entity.attributeIndexByName[key] {
            return .value(attributeValue(at: i))
        }
        if let r = entity.relationshipIndexByName[key] {
            if entity.relationships[r].isToMany {
                return .objects(try objects(forKey: key))
            }
            return .object(try object(forKey: key))
        }
        throw ObjectGraphError.unknownKey(entity: entity.name, key: key)
    }
}

extension Value {
    /// Orders values as SQLite does: NULL, then numbers (bools, dates), then text (by
    /// Unicode scalar, i.e. UTF-8 bytes), then blobs. Returns -1, 0 or 1.
    public static func sortOrder(_ a: Value, _ b: Value) -> Int {
        func rank(_ v: Value) -> Int {
            switch v {
            case .null: return 0
            case .integer, .double, .bool, .date: return 1
            case .string: return 2
            case .data: return 3
            }
        }
        let ra = rank(a)
        let rb = rank(b)
        if ra != rb { return ra < rb ? -1 : 1 }
        switch (a, b) {
        case (.string(let x), .string(let y)):
            var i = x.utf8.makeIterator()
            var j = y.utf8.makeIterator()
            while true {
                switch (i.next(), j.next()) {
                case (nil, nil): return 0
                case (nil, _): return -1
                case (_, nil): return 1
                case (let p?, let q?): if p != q { return p < q ? -1 : 1 }
                }
            }
        case (.data(let x), .data(let y)):
            for (p, q) in zip(x, y) where p != q { return p < q ? -1 : 1 }
            return x.count == y.count ? 0 : (x.count < y.count ? -1 : 1)
        case (.integer(let x), .integer(let y)):
            return x == y ? 0 : (x < y ? -1 : 1)
        default:
            let x = a.numericValue ?? 0
            let y = b.numericValue ?? 0
            return x == y ? 0 : (x < y ? -1 : 1)
        }
    }
}

/// A lazily loaded, batch-faulted list of fetch results (see
/// ``ManagedObjectContext/fetchBatched(_:)``). Use it on the context's queue only.
///
/// ```swift
/// let results = try context.fetchBatched(FetchRequest<FeedItem>(fetchBatchSize: 500))
/// print(results.count, results[0])
/// ```
public final class FetchedResults<Element: ManagedObject>: RandomAccessCollection {
    public let objectIDs: [ObjectID]
    let context: ManagedObjectContext
    let batchSize: Int
    private var batchStart = -1
    private var batch: [Element] = []

    init(ids: [ObjectID], context: ManagedObjectContext, batchSize: Int) {
        objectIDs = ids
        self.context = context
        self.batchSize = batchSize
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { objectIDs.count }

    public subscript(position: Int) -> Element {
        let start = position - position % batchSize
        if start != batchStart { loadBatch(at: start) }
        return batch[position - start]
    }

    private func loadBatch(at start: Int) {
        batch = []  // release the previous batch before loading the next
        let ids = objectIDs[start..<Swift.min(start + batchSize, objectIDs.count)]
        let faults = ids.compactMap { id -> Int64? in
            guard let pk = id.primaryKey else { return nil }
            return context.registeredObject(for: id).map { $0.isFault ? pk : nil } ?? pk
        }
        if !faults.isEmpty, let entity = ids.first?.entity {
            // Held strongly here: the context registers objects weakly.
            let loaded = context.storedRows(of: entity, primaryKeys: faults).map {
                context.materialize(entity: entity, pk: $0.pk, snapshot: $0.snapshot)
            }
            batch = ids.map { context.object(with: $0) as! Element }
            withExtendedLifetime(loaded) {}
        } else {
            batch = ids.map { context.object(with: $0) as! Element }
        }
        batchStart = start
    }
}
