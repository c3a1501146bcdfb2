import Foundation
import GRDB

/// One pair of a many-to-many relationship read from a damaged store by
/// ``PersistentStore/salvagePairs(of:relationship:chunk:skipped:unreadable:_:)``: the key of
/// the object whose relationship was asked for, the key of its member, and the member's
/// position when that side is ordered (else 0).
///
/// ```swift
/// var skipped: Int64 = 0
/// try store.salvagePairs(of: "Post", relationship: "tags", skipped: &skipped, unreadable: { _, _ in }) { pair in
///     print(pair.objectKey, "→", pair.memberKey, pair.position)
/// }
/// ```
public struct SalvagedPair: Sendable, Hashable {
    public let objectKey: Int64
    public let memberKey: Int64
    public let position: Int64
}

extension PersistentStore {
    // MARK: - Salvaging Many-to-Many Pairs

    /// Every pair of many-to-many relationship `relationship` of `entityName` that can still be
    /// read from a damaged store, as ``salvageObjects(of:keys:chunk:skipped:unreadable:_:)``
    /// reads rows: straight from the join table (`Z_JOIN_…`, whose primary key is its only
    /// B-tree) by ranges of `chunk` keys of its first column, a range that cannot be read halved
    /// down to single keys, each run of unreadable keys reported once to `unreadable` and
    /// counted in `skipped`. Together with the objects, this is what a salvaging copy needs to
    /// carry the relationship over.
    ///
    /// ```swift
    /// var skipped: Int64 = 0
    /// var pairs: [SalvagedPair] = []
    /// try store.salvagePairs(of: "Post", relationship: "tags", skipped: &skipped, unreadable: { _, _ in }) { pairs.append($0) }
    /// ```
    public func salvagePairs(
        of entityName: String, relationship: String, chunk: Int64 = 500, skipped: inout Int64,
        unreadable: (ClosedRange<Int64>, String) -> Void, _ body: (SalvagedPair) -> Void
    ) throws(ObjectGraphError) {
        let entity = try model.entity(named: entityName)
        guard let r = entity.relationshipIndexByName[relationship], let join = entity.joinTables[r] else {
            throw .typeMismatch(entity: entityName, key: relationship, expected: "many-to-many relationship", got: "another kind")
        }
        let q = SchemaGenerator.quote
        let table = q(join.tableName)
        let source = q(JoinTable.sourceColumn)
        let sql =
            "SELECT \(q(join.ownColumn)), \(q(join.memberColumn)), \(q(JoinTable.orderColumn)) FROM \(table) WHERE \(source) BETWEEN ? AND ? ORDER BY \(source), \(q(JoinTable.targetColumn))"
        let sourceEntity = join.isOwner ? entity : model.destination(of: entity, relationshipIndex: r)
        let fromTable = try? writer.read { db in try Int64.fetchOne(db, sql: "SELECT max(\(source)) FROM \(table)") }
        let fromAllocator = try? writer.read { db in
            try Int64.fetchOne(
                db, sql: "SELECT Z_MAX FROM \"Z_PRIMARYKEY\" WHERE Z_ENTITY = ?", arguments: [sourceEntity.tableName])
        }
        let last = max((fromTable ?? nil) ?? 0, (fromAllocator ?? nil) ?? 0)
        guard last > 0 else { return }
        // Positions belong to the ordered side only.
        let ordered = join.isOrdered
        salvageRows(keys: 1...last, chunk: chunk, sql: sql, skipped: &skipped, unreadable: unreadable) { row in
            body(SalvagedPair(objectKey: row[0], memberKey: row[1], position: ordered ? row[2] : 0))
        }
    }
}
