import Foundation
import GRDB

/// One object read from a damaged store by ``PersistentStore/salvageObjects(of:chunk:skipped:unreadable:_:)``:
/// its primary key, its stored attributes by name, its to-one relationships by name as
/// the destination's primary key (`.integer`), and for a to-one whose inverse is an ordered
/// one-to-many its position among the destination's members, under the column's name
/// (`Z_FOK_<to-one>`). Many-to-many pairs are read by
/// ``PersistentStore/salvagePairs(of:relationship:chunk:skipped:unreadable:_:)``.
///
/// ```swift
/// var skipped: Int64 = 0
/// try store.salvageObjects(of: "Server", skipped: &skipped, unreadable: { _, _ in }) { object in
///     if case .string(let url) = object.values["url"] { print(object.primaryKey, url) }
/// }
/// ```
public struct SalvagedObject: Sendable {
    /// The entity of the row: the entity salvaged, or one of its sub-entities (from the
    /// row's `Z_ENT`), whose attributes `values` holds.
    public let entityName: String
    public let primaryKey: Int64
    public let values: [String: Value]
}

/// How one entity's rows are read by ``PersistentStore/salvageObjects(of:keys:chunk:skipped:unreadable:_:)``.
private struct SalvageReader {
    let entity: Entity
    let attributes: [AttributeDescription]
    /// Foreign keys, then the position columns of ordered one-to-many memberships.
    let integerColumns: [String]

    init(entity: Entity) {
        self.entity = entity
        attributes = entity.storedAttributeIndexes.map { entity.attributes[$0] }
        integerColumns =
            entity.relationships.indices.filter { entity.storesForeignKey[$0] }.map { entity.relationships[$0].name }
            + entity.orderColumns.compactMap { $0 }
    }

    var columns: [String] { attributes.map(\.name) + integerColumns }

    func object(from row: Row) -> SalvagedObject {
        var values: [String: Value] = [:]
        for attribute in attributes {
            values[attribute.name] = Value(databaseValue: row[attribute.name], type: attribute.type)
        }
        for name in integerColumns {
            values[name] = (row[name] as Int64?).map(Value.integer) ?? .null
        }
        return SalvagedObject(entityName: entity.name, primaryKey: row["Z_PK"], values: values)
    }
}

extension PersistentStore {
    // MARK: - Salvaging a Damaged Store

    /// Every object of `entityName` that can still be read from a store whose pages are
    /// damaged (where a fetch stops at the first malformed page), in primary-key order; in an
    /// inheritance hierarchy, the objects of its sub-entities too, each read as its own
    /// entity (``SalvagedObject/entityName``), and no other rows of the hierarchy's table.
    /// Rows are read straight from the entity's table by ranges of `chunk` keys, never
    /// through an index (an index page may be the damaged one); a range that cannot be
    /// read is halved down to single rows, and each run of adjacent unreadable keys is
    /// reported once to `unreadable` with SQLite's message and counted in `skipped`.
    ///
    /// ```swift
    /// var skipped: Int64 = 0
    /// try store.salvageObjects(of: "Note", skipped: &skipped, unreadable: { keys, why in print(keys, why) }) { print($0.values) }
    /// ```
    ///
    /// With `keys`, only the rows whose keys are in that range are read.
    public func salvageObjects(
        of entityName: String, keys: ClosedRange<Int64>? = nil, chunk: Int64 = 500, skipped: inout Int64,
        unreadable: (ClosedRange<Int64>, String) -> Void, _ body: (SalvagedObject) -> Void
    ) throws(ObjectGraphError) {
        let entity = try model.entity(named: entityName)
        // In a hierarchy's table only the rows of `entity` and its sub-entities are read, each
        // with its own entity's columns.
        let kinds = (entity.inheritance?.kindIndexes ?? [entity.index]).map { model.entities[$0] }
        let readers = Dictionary(uniqueKeysWithValues: kinds.map { ($0.name, SalvageReader(entity: $0)) })
        var names: [String] = ["Z_PK"]
        for kind in kinds {
            for name in readers[kind.name]!.columns where !names.contains(name) { names.append(name) }
        }
        let discriminator = entity.inheritance != nil
        if discriminator { names.append(Inheritance.discriminatorColumn) }
        let columns = names.map { SchemaGenerator.quote($0) }.joined(separator: ", ")
        let table = entity.tableName
        let last = min(highestSalvageableKey(table: table), keys?.upperBound ?? .max)
        guard last > 0 else { return }
        let first = max(1, keys?.lowerBound ?? 1)
        guard first <= last else { return }
        let kindCondition = Inheritance.condition(for: entity, alias: "t0").map { " AND \($0)" } ?? ""
        let sql =
            "SELECT \(columns) FROM \(SchemaGenerator.quote(table)) t0 WHERE Z_PK BETWEEN ? AND ?\(kindCondition) ORDER BY Z_PK"
        let ownReader = readers[entity.name]!
        salvageRows(keys: first...last, chunk: chunk, sql: sql, skipped: &skipped, unreadable: unreadable) { row in
            let kind: String? = discriminator ? row[Inheritance.discriminatorColumn] : nil
            let reader = kind.flatMap { readers[$0] } ?? ownReader
            body(reader.object(from: row))
        }
    }

    /// The rows `sql` (whose two arguments are the first and last key of a range) reads from
    /// `keys`, by ranges of `chunk` keys, handed to `body` in order. A range that cannot be
    /// read is halved down to single keys, and each run of adjacent unreadable keys is
    /// reported once to `unreadable` with SQLite's message and counted in `skipped`: the
    /// reading that ``salvageObjects(of:keys:chunk:skipped:unreadable:_:)`` and
    /// ``salvagePairs(of:relationship:chunk:skipped:unreadable:_:)`` share.
    func salvageRows(
        keys: ClosedRange<Int64>, chunk: Int64, sql: String, skipped: inout Int64,
        unreadable: (ClosedRange<Int64>, String) -> Void, _ body: (Row) -> Void
    ) {
        var run: (range: ClosedRange<Int64>, detail: String)?
        func flushRun() {
            guard let current = run else { return }
            unreadable(current.range, current.detail)
            run = nil
        }
        let chunk = max(1, chunk)
        let last = keys.upperBound
        var start = keys.lowerBound
        while start <= last {
            let end = start > last - (chunk - 1) ? last : start + chunk - 1
            var pending: [ClosedRange<Int64>] = [start...end]
            while let range = pending.popLast() {
                do {
                    let rows = try writer.read { db in
                        try Row.fetchAll(db, sql: sql, arguments: [range.lowerBound, range.upperBound])
                    }
                    if !rows.isEmpty { flushRun() }
                    for row in rows { body(row) }
                } catch {
                    if range.count > 1 {
                        let middle = range.lowerBound + (range.upperBound - range.lowerBound) / 2
                        pending.append((middle + 1)...range.upperBound)
                        pending.append(range.lowerBound...middle)
                        continue
                    }
                    skipped += 1
                    let detail = (error as? DatabaseError)?.message ?? "\(error)"
                    if let current = run, current.range.upperBound + 1 == range.lowerBound {
                        run = (current.range.lowerBound...range.upperBound, current.detail)
                    } else {
                        flushRun()
                        run = (range, detail)
                    }
                }
            }
            if end == last { break }
            start = end + 1
        }
        flushRun()
    }

    /// The highest key in use in `table`, from whichever of the table and the key
    /// allocator can still be read; 0 when neither can.
    private func highestSalvageableKey(table: String) -> Int64 {
        let fromTable = try? writer.read { db in try Int64.fetchOne(db, sql: "SELECT max(Z_PK) FROM \"\(table)\"") }
        let fromAllocator = try? writer.read { db in
            try Int64.fetchOne(db, sql: "SELECT Z_MAX FROM \"Z_PRIMARYKEY\" WHERE Z_ENTITY = ?", arguments: [table])
        }
        return max((fromTable ?? nil) ?? 0, (fromAllocator ?? nil) ?? 0)
    }
}

extension PersistentStore {
    /// SQLite's `integrity_check` of the file at `url`, opened read-only without a model:
    /// for a store too damaged to open as a ``PersistentStore`` (whose
    /// ``integrityCheck()`` is then out of reach). An empty list: the file is sound.
    ///
    /// ```swift
    /// let problems = try PersistentStore.integrityCheck(ofFileAt: url)
    /// ```
    public static func integrityCheck(ofFileAt url: URL) throws(ObjectGraphError) -> [String] {
        var config = Configuration()
        config.readonly = true
        config.busyMode = .timeout(busyTimeout)
        do {
            let queue = try DatabaseQueue(path: url.path, configuration: config)
            defer { try? queue.close() }
            let lines = try queue.read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check") }
            return lines == ["ok"] ? [] : lines
        } catch {
            throw ObjectGraphError.wrapping(error)
        }
    }
}
