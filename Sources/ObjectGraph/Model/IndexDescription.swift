/// A partial index: an index over the rows of an entity that satisfy a condition
/// (SQLite's `CREATE INDEX … WHERE`), declared in ``EntityDescription/partialIndexes``.
///
/// An index that only a few rows belong to — the flagged items, the ones with a change not
/// yet pushed, the ones with a sync id — costs the other rows nothing: inserting, updating
/// or deleting a row outside the condition never touches it, and it takes no bytes for them.
/// SQLite uses it for a fetch whose predicate contains the condition as one of its
/// AND-connected parts, written the same way (`flagged == YES` for the condition
/// `flagged == YES`; for a condition `key != nil`, any comparison of `key` with a constant
/// other than `==`, or `key IN {…}`). A fetch that does not say the condition cannot use it.
///
/// The condition is a ``ObjectPredicate`` over the entity's own stored attributes compared with
/// constants (`==`, `!=`, `<`, `<=`, `>`, `>=`, no `[c]`/`[d]` options), joined with AND, OR
/// and NOT; anything else makes the model invalid. The index's name holds a hash of the
/// condition, so a model version that changes the condition rebuilds the index.
///
/// ```swift
/// var item = EntityDescription("Item", attributes: [.bool("flagged", defaultValue: false), .date("sortDate")])
/// item.partialIndexes = [try IndexDescription(["sortDate"], where: ObjectPredicate(format: "flagged == YES"))]
/// ```
public struct IndexDescription: Sendable, Equatable, CustomStringConvertible {
    /// The indexed keys, in order: stored attributes or to-one relationships.
    public var keys: [String]
    /// The rows the index holds.
    public var condition: ObjectPredicate

    /// An index on `keys` over the rows satisfying `condition`.
    public init(_ keys: [String], where condition: ObjectPredicate) {
        self.keys = keys
        self.condition = condition
    }

    public var description: String { "\(keys.joined(separator: ",")) WHERE \(condition)" }

    /// The condition as SQL over `entity`'s columns, with its constants as literals (what
    /// `CREATE INDEX … WHERE` takes). Each comparison is written as ObjectGraph's fetches write
    /// it (`("flagged" IS 1)`), so SQLite can match a fetch's predicate against it.
    /// Throws a ``ModelError`` naming what is not allowed in an index's condition.
    func conditionSQL(for entity: EntityDescription) throws(ModelError) -> String {
        try Self.sql(condition, in: Scope(name: entity.name, attributes: entity.attributes, relationships: entity.relationships))
    }

    /// The entity a condition is written over: its name and what it stores.
    struct Scope {
        let name: String
        let attributes: [AttributeDescription]
        let relationships: [RelationshipDescription]
    }

    /// `Z_<entity>_<keys>_where_<hash>`: the hash (FNV-1a of the condition's SQL) tells
    /// conditions apart, so a changed condition is a different index.
    func name(entity: String, conditionSQL: String) -> String {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in conditionSQL.utf8 {
            h ^= UInt64(b)
            h = h &* 0x100_0000_01b3
        }
        let hex = String(h, radix: 16)
        return "Z_\(entity)_\(keys.joined(separator: "_"))_where_\(String(repeating: "0", count: 16 - hex.count) + hex)"
    }

    static func sql(_ predicate: ObjectPredicate, in entity: Scope) throws(ModelError) -> String {
        switch predicate.node {
        case .constant(let b): return b ? "1" : "0"
        case .and(let parts):
            return try "(" + parts.map { p throws(ModelError) in try sql(p, in: entity) }.joined(separator: " AND ") + ")"
        case .or(let parts):
            return try "(" + parts.map { p throws(ModelError) in try sql(p, in: entity) }.joined(separator: " OR ") + ")"
        case .not(let inner): return try "(NOT " + sql(inner, in: entity) + ")"
        case .comparison(let c): return try sql(c, in: entity)
        }
    }

    private static func sql(_ c: PredicateComparison, in entity: Scope) throws(ModelError) -> String {
        func refuse(_ why: String) -> ModelError {
            ModelError(message: "\(entity.name): the partial index condition '\(ObjectPredicate(.comparison(c)))' \(why)")
        }
        guard c.modifier == .direct, c.options.isEmpty else { throw refuse("may not use ANY/ALL/NONE or [c]/[d]") }
        guard case .keyPath(let key) = c.left, case .constant(let value) = c.right else {
            throw refuse("must compare a key with a constant")
        }
        let isStored =
            entity.attributes.contains { $0.name == key && !$0.isTransient }
            || entity.relationships.contains { $0.name == key && !$0.isToMany }
        guard isStored else { throw refuse("names '\(key)', which is not a stored attribute or to-one relationship") }
        let column = SchemaGenerator.quote(key)
        if value == .null {
            switch c.op {
            case .equalTo: return "(\(column) IS NULL)"
            case .notEqualTo: return "(\(column) IS NOT NULL)"
            default: throw refuse("compares with nil by an operator other than == or !=")
            }
        }
        if case .data = value { throw refuse("compares with data") }
        guard let op = c.op.sqlComparison else { throw refuse("uses an operator other than ==, !=, <, <=, >, >=") }
        return "(" + column + op + SchemaGenerator.sqlLiteral(value) + ")"
    }
}
