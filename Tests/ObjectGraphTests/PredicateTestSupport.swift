import Foundation
import GRDB
import Testing

@testable import ObjectGraph

/// The model the predicate tests run against: Server ⟷> FeedItem (to-many), Server ⟷ Profile
/// (one-to-one, stored on Profile's side).
enum PredicateTestModel {
    static let model: ManagedObjectModel = {
        let server = EntityDescription(
            "Server",
            attributes: [
                .string("title"), .string("url"), .integer("rank", optional: true),
                .double("score", optional: true), .bool("active", optional: true), .date("created"),
                .data("icon"), .string("scratch", transient: true),
            ],
            relationships: [
                .toMany("feedItems", destination: "FeedItem", inverse: "server", deleteRule: .cascade),
                .toOne("profile", destination: "Profile", inverse: "server"),
            ])
        let item = EntityDescription(
            "FeedItem",
            attributes: [
                .string("title", indexed: true), .string("author"), .integer("count", optional: true),
                .double("rating", optional: true), .bool("read", optional: true), .date("published"),
            ],
            relationships: [.toOne("server", destination: "Server", inverse: "feedItems")])
        let profile = EntityDescription(
            "Profile",
            attributes: [.string("name"), .integer("level", optional: true)],
            relationships: [.toOne("server", destination: "Server", inverse: "profile")])
        do {
            return try ManagedObjectModel(name: "PredicateTest", version: 1, entities: [server, item, profile])
        } catch {
            fatalError("test model: \(error)")
        }
    }()

    static func entity(_ name: String) -> Entity {
        model.entityIfPresent(named: name)!
    }

    /// An in-memory database with the model's schema and the predicate functions.
    static func makeDatabase() throws -> DatabaseQueue {
        var configuration = Configuration()
        configuration.prepareDatabase { db in PredicateSQLFunctions.register(in: db) }
        let queue = try DatabaseQueue(configuration: configuration)
        try queue.write { db in
            for sql in SchemaGenerator.createStatements(for: model) { try db.execute(sql: sql) }
        }
        return queue
    }
}

/// A dictionary-backed object for in-memory evaluation, mirroring one row.
final class TestObject: PredicateEvaluable, CustomStringConvertible {
    let entity: Entity
    let primaryKey: Int64
    var values: [String: Value] = [:]
    var toOne: [String: TestObject] = [:]
    var toMany: [String: [TestObject]] = [:]

    init(_ entity: Entity, primaryKey: Int64 = 0, _ values: [String: Value] = [:]) {
        self.entity = entity
        self.primaryKey = primaryKey
        self.values = values
    }

    func predicateValue(forKey key: String) throws -> PredicateKeyValue {
        if entity.attribute(named: key) != nil { return .value(values[key] ?? .null) }
        guard let r = entity.relationship(named: key) else {
            throw ObjectGraphError.unknownKey(entity: entity.name, key: key)
        }
        return r.isToMany ? .objects(toMany[key] ?? []) : .object(toOne[key])
    }

    /// Saved objects' IDs carry their primary key, as the store's do.
    var predicateObjectID: ObjectID? { ObjectID(entity: entity, rawValue: primaryKey) }

    var description: String { "\(entity.name)/\(primaryKey) \(values)" }
}

/// Fetches the primary keys `predicate` selects through SQL.
func sqlMatches(_ predicate: ObjectPredicate, entity: Entity, in db: Database) throws -> Set<Int64> {
    let fragment = try predicate.sqlExpression(for: entity, in: PredicateTestModel.model, alias: "t0")
    let sql = "SELECT t0.\"Z_PK\" FROM \"\(entity.tableName)\" AS t0 WHERE \(fragment.sql)"
    return Set(try Int64.fetchAll(db, sql: sql, arguments: StatementArguments(fragment.arguments)))
}

/// The ID of the `entity` object stored with primary key `primaryKey` (negative: temporary).
func objectID(_ entity: String, _ primaryKey: Int64) -> ObjectID {
    ObjectID(entity: PredicateTestModel.entity(entity), rawValue: primaryKey)
}

/// A small deterministic generator (SplitMix64) so a seed reproduces a run (shared by the
/// randomized tests of this target).
struct PredicateRandomGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
