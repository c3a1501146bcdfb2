import Foundation
import GRDB

/// One value of a dictionary result (see ``FetchRequest/propertiesToFetch``): an attribute
/// or a key path through to-one relationships, a to-one relationship (its destination's
/// ID), or an aggregate over the objects of a group.
///
/// ```swift
/// var request = FetchRequest<Note>()
/// request.propertiesToGroupBy = ["folder"]
/// request.propertiesToFetch = [.key("folder"), .count(as: "notes"), .aggregate(.avg, of: "rating", as: "meanRating")]
/// ```
public struct FetchedProperty: Sendable, Hashable {
    enum Kind: Sendable, Hashable {
        case key(String)
        case aggregate(AggregateFunction, String)
        case countOfObjects
    }
    let kind: Kind
    /// The key of this value in each result.
    public let name: String

    /// Attribute, to-one relationship or key path `keyPath`, under its own name.
    public static func key(_ keyPath: String) -> FetchedProperty { FetchedProperty(kind: .key(keyPath), name: keyPath) }
    /// Attribute, to-one relationship or key path `keyPath`, under `name`.
    public static func key(_ keyPath: String, as name: String) -> FetchedProperty {
        FetchedProperty(kind: .key(keyPath), name: name)
    }
    /// `function` over the non-nil values of attribute (or to-one key path) `keyPath` in
    /// each group: `.count` counts them, `.sum` is nil for no values, `.avg` is a double.
    public static func aggregate(_ function: AggregateFunction, of keyPath: String, as name: String) -> FetchedProperty {
        FetchedProperty(kind: .aggregate(function, keyPath), name: name)
    }
    /// The number of objects in each group.
    public static func count(as name: String) -> FetchedProperty { FetchedProperty(kind: .countOfObjects, name: name) }
}

/// One result of ``ManagedObjectContext/fetchDictionaries(_:)``.
///
/// ```swift
/// var request = FetchRequest<FeedItem>()
/// request.propertiesToGroupBy = ["read"]
/// request.propertiesToFetch = [.key("read"), .count(as: "items")]
/// for row in try context.fetchDictionaries(request) { print(row["read"], row["items"]) }
/// ```
public struct FetchedDictionary: Sendable, Hashable, CustomStringConvertible {
    /// Attribute and aggregate values by property name (`.null` for no value).
    public var values: [String: Value]
    /// Destinations of to-one relationships fetched, by property name (absent: nil).
    public var objectIDs: [String: ObjectID]

    /// The value named `name`; `.null` when absent.
    public subscript(name: String) -> Value { values[name] ?? .null }

    public var description: String {
        let parts =
            values.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }
            + objectIDs.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }
        return "{" + parts.joined(separator: ", ") + "}"
    }
}

/// A resolved property to fetch.
private struct DictionaryColumn {
    enum Terminal {
        case attribute(AttributeType)
        case relationship(Entity)
    }
    let property: FetchedProperty
    let keyPath: String?
    let terminal: Terminal?
    var function: AggregateFunction? {
        switch property.kind {
        case .aggregate(let f, _): return f
        case .countOfObjects: return .count
        case .key: return nil
        }
    }
    var isAggregate: Bool { function != nil }
}

/// The running value of one aggregate within one group (or over a whole fetch, starting
/// from what the store summed): `add` each unsaved value, then read `result`.
struct AggregatePartial {
    var count: Int64 = 0
    var total: Double = 0
    var integerSum: Int64? = 0
    var minimum: Value = .null
    var maximum: Value = .null

    mutating func add(_ v: Value) {
        if v.isNull { return }
        count += 1
        total += v.numericValue ?? 0
        if let s = integerSum {
            if case .integer(let n) = v {
                integerSum = s &+ n
            } else if case .bool(let b) = v {
                integerSum = s &+ (b ? 1 : 0)
            } else {
                integerSum = nil
            }
        }
        if minimum.isNull || Value.sortOrder(v, minimum) < 0 { minimum = v }
        if maximum.isNull || Value.sortOrder(v, maximum) > 0 { maximum = v }
    }

    func result(_ function: AggregateFunction) -> Value {
        switch function {
        case .count: return .integer(count)
        case .min: return minimum
        case .max: return maximum
        case .sum:
            if count == 0 { return .null }
            if let integerSum { return .integer(integerSum) }
            return .double(total)
        case .avg: return count == 0 ? .null : .double(total / Double(count))
        }
    }
}

/// A grouped or projected value: an attribute value or a destination's ID.
private enum Cell: Hashable {
    case value(Value)
    case object(ObjectID?)

    static func order(_ a: Cell, _ b: Cell) -> Int {
        switch (a, b) {
        case (.value(let x), .value(let y)): return Value.sortOrder(x, y)
        case (.object(let x), .object(let y)):
            let p = x?.rawValue ?? 0
            let q = y?.rawValue ?? 0
            return p == q ? 0 : (p < q ? -1 : 1)
        case (.value, .object): return -1
        case (.object, .value): return 1
        }
    }
}

extension ManagedObjectContext {
    /// The objects matching `request` as dictionaries of the values named by
    /// ``FetchRequest/propertiesToFetch`` — one per object, or one per group of
    /// ``FetchRequest/propertiesToGroupBy`` with aggregates (count, sum, min, max, avg) over
    /// each group. Rows are not turned into objects. This context's unsaved changes are
    /// reflected (unless ``FetchRequest/includesPendingChanges`` is false).
    ///
    /// Without grouping, results follow the request's sort descriptors; grouped results are
    /// sorted by the descriptors, whose keys must then be result names (by default: by the
    /// grouped keys, ascending). Aggregates without grouping give one result. Limit and
    /// offset apply to the results. A property that is neither grouped nor an aggregate,
    /// or a to-many key path, is refused with ``ObjectGraphError/invalidFetchRequest(entity:message:)``.
    ///
    /// ```swift
    /// var request = FetchRequest<Note>()
    /// request.propertiesToGroupBy = ["folder"]
    /// request.propertiesToFetch = [.key("folder"), .count(as: "notes"), .aggregate(.max, of: "rating", as: "best")]
    /// for row in try context.fetchDictionaries(request) { print(row.objectIDs["folder"] as Any, row["notes"], row["best"]) }
    /// ```
    public func fetchDictionaries<T: ManagedObject>(_ request: FetchRequest<T>) throws(ObjectGraphError) -> [FetchedDictionary] {
        assertOnQueue()
        let grouped =
            !request.propertiesToGroupBy.isEmpty
            || request.propertiesToFetch.contains { if case .key = $0.kind { false } else { true } }
        if !grouped {
            let plan = try FetchPlan(request: request, context: self)
            let columns = try dictionaryColumns(request, entity: plan.entity)
            return try projectedDictionaries(request, plan: plan, columns: columns)
        }
        // Grouped results are sorted by result names, after grouping: not by the query.
        var unsorted = request
        unsorted.sortDescriptors = []
        let plan = try FetchPlan(request: unsorted, context: self)
        let entity = plan.entity
        let columns = try dictionaryColumns(request, entity: entity)
        let groupPaths = request.propertiesToGroupBy
        var groupTerminals: [DictionaryColumn.Terminal] = []
        for path in groupPaths { groupTerminals.append(try terminal(of: path, entity: entity)) }
        let resultNames = Set(columns.map(\.property.name))
        for d in request.sortDescriptors where !resultNames.contains(d.key) {
            throw .invalidFetchRequest(
                entity: entity.name, message: "grouped results can only be sorted by result names, not '\(d.key)'")
        }

        // Store rows first (grouped by SQL), then the context's changed objects folded in.
        var groups: [[Cell]: [AggregatePartial]] = [:]
        var groupOrder: [[Cell]] = []
        let aggregateColumns = columns.filter(\.isAggregate)
        func partials(for key: [Cell]) -> [AggregatePartial] {
            if let p = groups[key] { return p }
            groupOrder.append(key)
            return Array(repeating: AggregatePartial(), count: aggregateColumns.count)
        }
        if parentContext == nil {
            var select: [String] = []
            for path in groupPaths {
                select.append(try ObjectPredicate.sqlKeyPathExpression(path, for: entity, in: model, alias: "t0"))
            }
            for column in aggregateColumns {
                guard let keyPath = column.keyPath else {
                    select.append("COUNT(*), 0, NULL, NULL, NULL")
                    continue
                }
                let x = try ObjectPredicate.sqlKeyPathExpression(keyPath, for: entity, in: model, alias: "t0")
                let sum: String
                if case .attribute(let type) = column.terminal, type == .integer || type == .bool {
                    sum = "SUM(\(x))"
                } else {
                    sum = "NULL"
                }
                select.append("COUNT(\(x)), TOTAL(\(x)), \(sum), MIN(\(x)), MAX(\(x))")
            }
            var (sql, arguments) = plan.selectSQL(
                columns: select.joined(separator: ", "), excluding: plan.hasPendingChanges ? plan.excludedPKs : [],
                applyLimit: false, ordered: false)
            if !groupPaths.isEmpty { sql += " GROUP BY " + (1...groupPaths.count).map(String.init).joined(separator: ", ") }
            let rows = try plan.read { db in try Row.fetchAll(db, sql: sql, arguments: StatementArguments(arguments)) }
            for row in rows {
                var key: [Cell] = []
                for (i, terminal) in groupTerminals.enumerated() { key.append(cell(row[i] as DatabaseValue, terminal)) }
                var p = partials(for: key)
                var c = groupPaths.count
                for (n, column) in aggregateColumns.enumerated() {
                    let count: Int64 = row[c] ?? 0
                    if count > 0 {
                        let total: Double = row[c + 1] ?? 0
                        let sum: Int64? = row[c + 2]
                        p[n].count += count
                        p[n].total += total
                        if let s = p[n].integerSum, let sum { p[n].integerSum = s &+ sum } else { p[n].integerSum = nil }
                        let type: AttributeType = {
                            if case .attribute(let t) = column.terminal { return t }
                            return .integer
                        }()
                        let extremes = [
                            Value(databaseValue: row[c + 3] as DatabaseValue, type: type),
                            Value(databaseValue: row[c + 4] as DatabaseValue, type: type),
                        ]
                        for extreme in extremes {
                            if extreme.isNull { continue }
                            if p[n].minimum.isNull || Value.sortOrder(extreme, p[n].minimum) < 0 { p[n].minimum = extreme }
                            if p[n].maximum.isNull || Value.sortOrder(extreme, p[n].maximum) > 0 { p[n].maximum = extreme }
                        }
                    }
                    c += 5
                }
                groups[key] = p
            }
        }
        let pendingObjects: [ManagedObject]
        if let parentContext {
            // A child's objects are as its parent has them: group them all in memory.
            var unlimited = unsorted
            unlimited.fetchLimit = 0
            unlimited.fetchOffset = 0
            pendingObjects = try executeThroughParent(try FetchPlan(request: unlimited, context: self), parent: parentContext)
        } else {
            pendingObjects = plan.hasPendingChanges ? try plan.pendingCandidates() : []
        }
        for object in pendingObjects {
            var key: [Cell] = []
            for (i, path) in groupPaths.enumerated() { key.append(try cell(of: object, path, groupTerminals[i])) }
            var p = partials(for: key)
            for (n, column) in aggregateColumns.enumerated() {
                if let keyPath = column.keyPath, case .relationship = column.terminal {
                    if case .object(_?) = try cell(of: object, keyPath, column.terminal!) { p[n].count += 1 }
                } else if let keyPath = column.keyPath {
                    p[n].add(try object.value(forKeyPath: keyPath))
                } else {
                    p[n].count += 1
                }
            }
            groups[key] = p
        }
        // Aggregates over no groups: one result, as SQL gives.
        if groupPaths.isEmpty && groups.isEmpty { groups[[]] = partials(for: []) }

        var results: [(cells: [String: Cell], dictionary: FetchedDictionary)] = []
        for key in groupOrder {
            guard let p = groups[key] else { continue }
            var named: [String: Cell] = [:]
            var dictionary = FetchedDictionary(values: [:], objectIDs: [:])
            var n = 0
            for column in columns {
                let cell: Cell
                if let function = column.function {
                    cell = .value(p[n].result(function))
                    n += 1
                } else {
                    guard let keyPath = column.keyPath, let g = groupPaths.firstIndex(of: keyPath) else {
                        continue  // refused in dictionaryColumns
                    }
                    cell = key[g]
                }
                named[column.property.name] = cell
                put(cell, named: column.property.name, into: &dictionary)
            }
            // The grouped keys, for the default order.
            for (g, path) in groupPaths.enumerated() { named["\u{0}" + path] = key[g] }
            results.append((named, dictionary))
        }
        // The descriptors, then the grouped keys ascending (ties keep a stable order).
        let order: [(String, Bool)] =
            request.sortDescriptors.map { ($0.key, $0.ascending) }
            + groupPaths.map { path in ("\u{0}" + path, true) }
        results.sort { a, b in
            for (name, ascending) in order {
                let c = Cell.order(a.cells[name] ?? .value(.null), b.cells[name] ?? .value(.null))
                if c != 0 { return ascending ? c < 0 : c > 0 }
            }
            return false
        }
        return limited(results.map(\.dictionary), request)
    }

    /// One dictionary per matching object (no grouping, no aggregates).
    private func projectedDictionaries<T: ManagedObject>(
        _ request: FetchRequest<T>, plan: FetchPlan, columns: [DictionaryColumn]
    ) throws(ObjectGraphError) -> [FetchedDictionary] {
        var results: [FetchedDictionary] = []
        if parentContext == nil && !plan.hasPendingChanges {
            // Distinct results are limited after duplicates are dropped: read them all, in order.
            var unlimited = request
            unlimited.fetchLimit = 0
            unlimited.fetchOffset = 0
            let plan = request.returnsDistinctResults ? try FetchPlan(request: unlimited, context: self) : plan
            var select: [String] = []
            for column in columns {
                select.append(
                    try ObjectPredicate.sqlKeyPathExpression(column.keyPath ?? "", for: plan.entity, in: model, alias: "t0"))
            }
            let (sql, arguments) = plan.selectSQL(
                columns: select.joined(separator: ", "), excluding: [], applyLimit: true)
            let rows = try plan.read { db in try Row.fetchAll(db, sql: sql, arguments: StatementArguments(arguments)) }
            for row in rows {
                var dictionary = FetchedDictionary(values: [:], objectIDs: [:])
                for (i, column) in columns.enumerated() {
                    if let terminal = column.terminal {
                        put(cell(row[i] as DatabaseValue, terminal), named: column.property.name, into: &dictionary)
                    }
                }
                results.append(dictionary)
            }
            if !request.returnsDistinctResults { return results }
        } else {
            var unlimited = request
            if request.returnsDistinctResults {
                unlimited.fetchLimit = 0
                unlimited.fetchOffset = 0
            }
            for object in try executeObjects(try FetchPlan(request: unlimited, context: self)) {
                var dictionary = FetchedDictionary(values: [:], objectIDs: [:])
                for column in columns {
                    guard let keyPath = column.keyPath, let terminal = column.terminal else { continue }
                    put(try cell(of: object, keyPath, terminal), named: column.property.name, into: &dictionary)
                }
                results.append(dictionary)
            }
            if !request.returnsDistinctResults { return results }
        }
        var seen = Set<FetchedDictionary>()
        return limited(results.filter { seen.insert($0).inserted }, request)
    }

    private func limited(_ results: [FetchedDictionary], _ request: FetchRequest<some ManagedObject>) -> [FetchedDictionary] {
        let start = min(request.fetchOffset, results.count)
        let end = request.fetchLimit > 0 ? min(results.count, start + request.fetchLimit) : results.count
        return Array(results[start..<end])
    }

    private func put(_ cell: Cell, named name: String, into dictionary: inout FetchedDictionary) {
        switch cell {
        case .value(let v): dictionary.values[name] = v
        case .object(let id): if let id { dictionary.objectIDs[name] = id }
        }
    }

    /// A column of a store row as a cell.
    private func cell(_ databaseValue: DatabaseValue, _ terminal: DictionaryColumn.Terminal) -> Cell {
        switch terminal {
        case .attribute(let type): return .value(Value(databaseValue: databaseValue, type: type))
        case .relationship(let destination):
            guard case .int64(let pk) = databaseValue.storage else { return .object(nil) }
            return .object(ObjectID(entity: destination, rawValue: pk))
        }
    }

    /// The value of `keyPath` on an object in memory, as a cell.
    private func cell(of object: ManagedObject, _ keyPath: String, _ terminal: DictionaryColumn.Terminal)
        throws(ObjectGraphError) -> Cell
    {
        switch terminal {
        case .attribute: return .value(try object.value(forKeyPath: keyPath))
        case .relationship:
            var current: ManagedObject? = object
            for part in keyPath.split(separator: ".") { current = try current?.object(forKey: String(part)) }
            return .object(current?.objectID)
        }
    }

    /// What `keyPath` ends at: a stored attribute or a to-one relationship, through to-one
    /// relationships only.
    private func terminal(of keyPath: String, entity: Entity) throws(ObjectGraphError) -> DictionaryColumn.Terminal {
        let resolved = try ModelKeyPath(keyPath, root: entity, model: model)
        if resolved.quantifiedHop != nil || resolved.hops.contains(where: \.isToMany) {
            throw .invalidFetchRequest(
                entity: entity.name, message: "'\(keyPath)' crosses a to-many relationship and has no single value")
        }
        switch resolved.terminal {
        case .attribute(let a):
            if a.isTransient {
                throw .invalidFetchRequest(entity: entity.name, message: "'\(keyPath)' is a transient attribute, not stored")
            }
            return .attribute(a.type)
        case .relationship: return .relationship(resolved.hops.last!.destination)
        case .count:
            throw .invalidFetchRequest(entity: entity.name, message: "'\(keyPath)': use .count(as:) or an aggregate")
        }
    }

    private func dictionaryColumns<T: ManagedObject>(_ request: FetchRequest<T>, entity: Entity) throws(ObjectGraphError)
        -> [DictionaryColumn]
    {
        var properties = request.propertiesToFetch
        if properties.isEmpty {
            properties =
                request.propertiesToGroupBy.isEmpty
                ? entity.storedAttributeIndexes.map { .key(entity.attributes[$0].name) }
                : request.propertiesToGroupBy.map { .key($0) }
        }
        var columns: [DictionaryColumn] = []
        var names = Set<String>()
        let hasAggregate = properties.contains { if case .key = $0.kind { false } else { true } }
        for property in properties {
            guard names.insert(property.name).inserted else {
                throw .invalidFetchRequest(entity: entity.name, message: "two properties are named '\(property.name)'")
            }
            switch property.kind {
            case .key(let keyPath):
                let terminal = try terminal(of: keyPath, entity: entity)
                if (hasAggregate || !request.propertiesToGroupBy.isEmpty) && !request.propertiesToGroupBy.contains(keyPath) {
                    throw .invalidFetchRequest(
                        entity: entity.name, message: "'\(keyPath)' is neither grouped by nor an aggregate")
                }
                columns.append(DictionaryColumn(property: property, keyPath: keyPath, terminal: terminal))
            case .aggregate(let function, let keyPath):
                let terminal = try terminal(of: keyPath, entity: entity)
                if case .relationship = terminal, function != .count {
                    throw .invalidFetchRequest(
                        entity: entity.name, message: "\(function.rawValue) of '\(keyPath)': a relationship can only be counted")
                }
                columns.append(DictionaryColumn(property: property, keyPath: keyPath, terminal: terminal))
            case .countOfObjects:
                columns.append(DictionaryColumn(property: property, keyPath: nil, terminal: nil))
            }
        }
        return columns
    }
}
