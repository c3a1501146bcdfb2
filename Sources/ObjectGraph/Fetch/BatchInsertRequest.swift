import Foundation

/// Inserts rows into the store without creating objects (Core Data's `NSBatchInsertRequest`):
/// from dictionaries, or from a closure that fills one row per call. Rows go in multi-row
/// INSERT statements, all in one transaction. Run it with
/// ``ManagedObjectContext/execute(_:)-(BatchInsertRequest)``: the new rows are announced on
/// the bus by object ID (live results and derived counts follow), and the context that ran
/// it posts ObjectsDidChange.
///
/// A row sets attributes only (not relationships); a key it leaves out takes the attribute's
/// default, and a required attribute without a default must be given. Validation rules and
/// `willSave` do not run, and undo does not record the insert. A row whose constrained keys
/// are taken is resolved by the context's ``MergePolicy``: ``MergePolicy/error`` fails the
/// request (nothing is written); ``MergePolicy/objectTrumps`` and ``MergePolicy/overwrite``
/// set the stored row's attributes to the row's (only those the row gives, under
/// `objectTrumps`); ``MergePolicy/storeTrumps`` and ``MergePolicy/rollback`` keep the stored row.
///
/// ```swift
/// let request = BatchInsertRequest(entityName: "Note", objects: [["title": "one"], ["title": "two", "read": true]])
/// let inserted = try context.execute(request).changedObjectIDs   // two new notes
/// ```
public struct BatchInsertRequest {
    /// The entity whose rows are inserted.
    public var entityName: String
    /// What the result lists: the inserted (or upserted) objects' IDs (the default), or only how many.
    ///
    /// ```swift
    /// var request = BatchInsertRequest(entityName: "Note", objects: [["title": "one"]])
    /// request.resultType = .count
    /// ```
    public var resultType: BatchResultType = .objectIDs
    let source: Source

    enum Source {
        case dictionaries([[String: Value]])
        case filling((inout BatchInsertRow) -> Bool)
    }

    /// A request inserting one `entityName` row per dictionary (attribute name to value;
    /// integers and doubles, 0/1 and bools are converted as the attribute needs).
    ///
    /// ```swift
    /// let request = BatchInsertRequest(entityName: "Note", objects: [["title": "one", "rating": 4]])
    /// try context.execute(request)
    /// ```
    public init(entityName: String, objects: [[String: Value]]) {
        self.entityName = entityName
        source = .dictionaries(objects)
    }

    /// A request inserting the rows `fill` makes: called with an empty row (every attribute
    /// at its default) until it returns false; each call that returns true adds its row.
    ///
    /// ```swift
    /// var n = 0
    /// let request = BatchInsertRequest(entityName: "Note") { row in
    ///     n += 1
    ///     row["title"] = .string("note \(n)")
    ///     return n <= 1000
    /// }
    /// try context.execute(request)   // notes 1…1000
    /// ```
    public init(entityName: String, fill: @escaping (inout BatchInsertRow) -> Bool) {
        self.entityName = entityName
        source = .filling(fill)
    }
}

/// One row of a ``BatchInsertRequest`` being filled: set attributes by name.
///
/// ```swift
/// let request = BatchInsertRequest(entityName: "Note") { row in row["title"] = "only"; return false }
/// ```
public struct BatchInsertRow {
    let entity: Entity
    /// One value per attribute of the entity.
    var values: [Value]
    /// Which attributes the row was given.
    var given: [Bool]
    /// The first key that could not be set, and why.
    var problem: ObjectGraphError?

    init(entity: Entity) {
        self.entity = entity
        values = entity.defaultValues
        given = Array(repeating: false, count: entity.attributes.count)
    }

    /// The row's value for attribute `key` (its default until set). Setting an unknown key,
    /// a key that is not a stored attribute, or a value of the wrong type makes the request
    /// fail with an error naming the key.
    ///
    /// ```swift
    /// let request = BatchInsertRequest(entityName: "Note") { row in
    ///     row["read"] = true
    ///     return false   // no rows: a row is added only when the closure returns true
    /// }
    /// ```
    public subscript(key: String) -> Value {
        get { entity.attributeIndexByName[key].map { values[$0] } ?? .null }
        set {
            do throws(ObjectGraphError) {
                let i = try BatchInsertRow.index(of: key, in: entity)
                values[i] = try BatchInsertRow.checked(newValue, for: i, in: entity)
                given[i] = true
            } catch {
                if problem == nil { problem = error }
            }
        }
    }

    /// The index of stored attribute `key`, or the error naming why it cannot be inserted.
    static func index(of key: String, in entity: Entity) throws(ObjectGraphError) -> Int {
        guard let i = entity.attributeIndexByName[key] else { throw .unknownKey(entity: entity.name, key: key) }
        let attribute = entity.attributes[i]
        if attribute.isTransient || attribute.isDerivedCounter {
            throw .notBatchInsertable(
                entity: entity.name, key: key, reason: attribute.isTransient ? "it is transient" : "it is a derived count")
        }
        return i
    }

    /// `value` converted to attribute `i`'s type; nil only for an optional attribute.
    static func checked(_ value: Value, for i: Int, in entity: Entity) throws(ObjectGraphError) -> Value {
        let attribute = entity.attributes[i]
        if value.isNull {
            guard attribute.isOptional else { throw .missingValue(entity: entity.name, key: attribute.name) }
            return .null
        }
        guard let coerced = value.coerced(to: attribute.type) else {
            throw .typeMismatch(entity: entity.name, key: attribute.name, expected: attribute.type.rawValue, got: value.typeName)
        }
        return coerced
    }
}
