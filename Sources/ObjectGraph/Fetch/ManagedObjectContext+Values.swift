import Foundation
import GRDB

/// One result of ``ManagedObjectContext/fetchValues(_:keys:)``: an object's ID and the values
/// of the keys asked for, in their order.
///
/// ```swift
/// for row in try context.fetchValues(FetchRequest<FeedItem>(), keys: ["guid"]) { print(row.objectID, row.values[0]) }
/// ```
public struct FetchedValues: Sendable, Equatable {
    /// The object the values belong to.
    public let objectID: ObjectID
    /// The values of the keys asked for, in the same order.
    public let values: [Value]

    /// An object's ID and values (results are made by ``ManagedObjectContext/fetchValues(_:keys:)``).
    ///
    /// ```swift
    /// let row = FetchedValues(objectID: id, values: [.string("guid-1")])
    /// ```
    public init(objectID: ObjectID, values: [Value]) {
        self.objectID = objectID
        self.values = values
    }
}

extension ManagedObjectContext {
    /// The IDs of the objects matching `request`, in order, each with the values of the
    /// attributes `keys` — reading only those columns, and making no objects (Core Data's
    /// dictionary result type with `propertiesToFetch`). For work over many objects that
    /// needs a few small attributes of each, such as the guids of the items a cleanup
    /// removes, without reading their large ones. The context's unsaved changes are applied
    /// as in ``fetch(_:)`` (then the matching objects are read whole).
    ///
    /// Keys are stored attributes of the request's entity (transient ones are refused with
    /// ``ObjectGraphError/unknownKey(entity:key:)``).
    ///
    /// ```swift
    /// let old = try context.fetchValues(FetchRequest<FeedItem>(where: \.read == true), keys: ["guid"])
    /// let guids = old.map { $0.values[0] }
    /// ```
    public func fetchValues<T: ManagedObject>(_ request: FetchRequest<T>, keys: [String]) throws(ObjectGraphError)
        -> [FetchedValues]
    {
        assertOnQueue()
        let plan = try FetchPlan(request: request, context: self)
        let entity = plan.entity
        var indexes: [Int] = []
        for key in keys {
            guard let index = entity.attributeIndexByName[key], !entity.attributes[index].isTransient else {
                throw .unknownKey(entity: entity.name, key: key)
            }
            indexes.append(index)
        }
        if parentContext != nil || plan.hasPendingChanges {
            return try executeObjects(plan).map { object in
                FetchedValues(objectID: object.objectID, values: indexes.map { object.attributeValue(at: $0) })
            }
        }
        let types = indexes.map { entity.attributes[$0].type }
        let columns = (["t0.\"Z_PK\""] + indexes.map { "t0.\(SchemaGenerator.quote(entity.attributes[$0].name))" })
            .joined(separator: ", ")
        let (sql, arguments) = plan.selectSQL(columns: columns, excluding: [], applyLimit: true)
        return try plan.read { db in
            var results: [FetchedValues] = []
            let cursor = try Row.fetchCursor(db, sql: sql, arguments: StatementArguments(arguments))
            while let row = try cursor.next() {
                let pk: Int64 = row[0]
                var values: [Value] = []
                values.reserveCapacity(types.count)
                for (n, type) in types.enumerated() {
                    values.append(Value(databaseValue: row[n + 1] as DatabaseValue, type: type))
                }
                results.append(FetchedValues(objectID: ObjectID(entity: entity, rawValue: pk), values: values))
            }
            return results
        }
    }
}
