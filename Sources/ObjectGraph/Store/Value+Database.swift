import Foundation
import GRDB

extension Value {
    /// The value as SQLite stores it: bools as 0/1, dates as seconds since 1970 (REAL).
    public var databaseValue: DatabaseValue {
        switch self {
        case .null: return .null
        case .integer(let v): return v.databaseValue
        case .double(let v): return v.databaseValue
        case .string(let v): return v.databaseValue
        case .bool(let v): return (v ? Int64(1) : Int64(0)).databaseValue
        case .date(let v): return v.timeIntervalSince1970.databaseValue
        case .data(let v): return v.databaseValue
        }
    }

    /// Decodes a stored value of an attribute of `type`.
    public init(databaseValue dbValue: DatabaseValue, type: AttributeType) {
        switch dbValue.storage {
        case .null: self = .null
        case .int64(let v):
            switch type {
            case .bool: self = .bool(v != 0)
            case .double: self = .double(Double(v))
            case .date: self = .date(Date(timeIntervalSince1970: Double(v)))
            case .string: self = .string(String(v))
            default: self = .integer(v)
            }
        case .double(let v):
            switch type {
            case .date: self = .date(Date(timeIntervalSince1970: v))
            case .integer: self = .integer(Int64(v))
            case .bool: self = .bool(v != 0)
            default: self = .double(v)
            }
        case .string(let s):
            self = type == .data ? .data(Data(s.utf8)) : .string(s)
        case .blob(let d):
            self = type == .string ? .string(String(decoding: d, as: UTF8.self)) : .data(d)
        }
    }
}

/// The SQL layout of a model: one table per entity with `Z_PK` (primary key), `Z_OPT`
/// (row version for optimistic locking), one column per stored attribute (named as the
/// attribute) and one per stored to-one relationship (named as the relationship, holding
/// the destination's `Z_PK`).
///
/// ```swift
/// try dbQueue.write { db in
///     for sql in SchemaGenerator.createStatements(for: model) { try db.execute(sql: sql) }
/// }
/// ```
public enum SchemaGenerator {
    /// The `CREATE TABLE` and `CREATE INDEX` statements for every entity of `model`.
    public static func createStatements(for model: ManagedObjectModel) -> [String] {
        model.tableEntities.flatMap { createStatements(for: $0) }
    }

    /// The statements creating one entity's table and its indexes.
    ///
    /// Fixed-size columns (numbers, bools, dates, to-one keys) come first and strings and
    /// data, which may be long, last, each group in the model's order: SQLite keeps the
    /// start of a row in its B-tree page and the rest of a long row in a chain of overflow
    /// pages, so a flag or a date stored after a long text would be read (and rewritten)
    /// through that chain — a look-up by date, or marking an item read, would cost the
    /// item's whole content. Every statement names its columns, so the order is the
    /// table's own business (tables made before keep theirs).
    public static func createStatements(for entity: Entity) -> [String] {
        var columns = ["\"Z_PK\" INTEGER PRIMARY KEY", "\"Z_OPT\" INTEGER NOT NULL DEFAULT 1"]
        var variableSize: [String] = []
        for i in entity.storedAttributeIndexes {
            let a = entity.attributes[i]
            var col = "\(quote(a.name)) \(a.type.sqlType)"
            if !a.defaultValue.isNull { col += " DEFAULT \(sqlLiteral(a.defaultValue))" }
            if a.type == .string || a.type == .data {
                variableSize.append(col)
            } else {
                columns.append(col)
            }
        }
        for (i, r) in entity.relationships.enumerated() where entity.storesForeignKey[i] {
            columns.append("\(quote(r.name)) INTEGER")
        }
        for column in entity.orderColumns.compactMap({ $0 }) { columns.append("\(quote(column)) INTEGER NOT NULL DEFAULT 0") }
        columns += variableSize
        if entity.inheritance?.isTable == true { columns.append(Inheritance.discriminatorColumnSQL(for: entity)) }
        var statements = ["CREATE TABLE \(quote(entity.tableName)) (\(columns.joined(separator: ", ")))"]
        // A to-one's own index is left out when a declared index or constraint starts with its
        // column: that index serves the same look-ups (by the key, and the delete rules').
        let leadingKeys = Set((entity.indexes + entity.uniquenessConstraints).compactMap(\.first))
        for (i, r) in entity.relationships.enumerated() where entity.storesForeignKey[i] && !leadingKeys.contains(r.name) {
            statements.append(
                "CREATE INDEX \(quote("Z_\(entity.name)_\(r.name)")) ON \(quote(entity.tableName)) (\(quote(r.name)))")
        }
        for a in entity.attributes where a.isIndexed && !a.isTransient {
            statements.append(
                "CREATE INDEX \(quote("Z_\(entity.name)_\(a.name)")) ON \(quote(entity.tableName)) (\(quote(a.name)))")
        }
        for keys in entity.indexes {
            statements.append(
                "CREATE INDEX \(quote("Z_\(entity.name)_\(keys.joined(separator: "_"))")) ON \(quote(entity.tableName)) (\(keys.map(quote).joined(separator: ", ")))"
            )
        }
        for (index, condition) in zip(entity.partialIndexes, entity.partialIndexConditions) {
            statements.append(
                "CREATE INDEX \(quote(index.name(entity: entity.name, conditionSQL: condition))) ON \(quote(entity.tableName)) (\(index.keys.map(quote).joined(separator: ", "))) WHERE \(condition)"
            )
        }
        for keys in entity.uniquenessConstraints {
            statements.append(
                "CREATE UNIQUE INDEX \(quote("Z_\(entity.name)_unique_\(keys.joined(separator: "_"))")) ON \(quote(entity.tableName)) (\(keys.map(quote).joined(separator: ", ")))"
                    + Inheritance.partialIndexCondition(for: entity, keys: keys)
            )
        }
        if entity.inheritance?.isTable == true { statements.append(Inheritance.discriminatorIndexSQL(for: entity)) }
        return statements
    }

    /// `"name"` with embedded quotes doubled.
    public static func quote(_ identifier: String) -> String {
        // Saves build their statements' text from quoted names for every batch of rows (the
        // statement cache is looked up by that text): most names hold no quote, and
        // Foundation's replacing costs a bridge to NSString.
        guard identifier.utf8.contains(UInt8(ascii: "\"")) else { return "\"" + identifier + "\"" }
        return "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    static func sqlLiteral(_ value: Value) -> String {
        switch value.databaseValue.storage {
        case .null: return "NULL"
        case .int64(let v): return String(v)
        case .double(let v): return "\(v)"
        case .string(let s): return "'" + s.replacingOccurrences(of: "'", with: "''") + "'"
        case .blob(let d): return "X'" + d.map { String(format: "%02X", $0) }.joined() + "'"
        }
    }
}
