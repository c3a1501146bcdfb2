import Foundation
import GRDB
import ObjectGraph
import Testing

@Suite("ObjectPredicate SQL compilation")
struct PredicateSQLTests {
    let model = PredicateTestModel.model
    let item = PredicateTestModel.entity("FeedItem")
    let server = PredicateTestModel.entity("Server")

    @Test("plain comparisons compile to native SQL with bound arguments")
    func nativeSQL() throws {
        let p = try ObjectPredicate(format: "read == NO AND count > %@ AND title IN {'a', 'b'}", 3)
        let fragment = try p.sqlExpression(for: item, in: model, alias: "t0")
        #expect(
            fragment.sql
                == "((t0.\"read\" IS ?) AND (t0.\"count\" > ?) AND ((t0.\"title\" IN (SELECT value FROM json_each(?)))))")
        #expect(fragment.arguments == [0.databaseValue, 3.databaseValue, "[\"a\",\"b\"]".databaseValue])
        let dated = try ObjectPredicate(format: "published < %@", Date(timeIntervalSince1970: 12.5))
        #expect(try dated.sqlExpression(for: item, in: model, alias: "t0").arguments == [(12.5).databaseValue])
    }

    @Test("NOT, != and nil comparisons never let SQL's NULL through")
    func twoValued() throws {
        #expect(
            try ObjectPredicate(format: "NOT title < 'x'").sqlExpression(for: item, in: model, alias: "t0").sql
                == "((t0.\"title\" < ?) IS NOT 1)")
        #expect(
            try ObjectPredicate(format: "title != 'x'").sqlExpression(for: item, in: model, alias: "t0").sql
                == "(t0.\"title\" IS NOT ?)")
        #expect(
            try ObjectPredicate(format: "title == nil").sqlExpression(for: item, in: model, alias: "t0").sql
                == "(t0.\"title\" IS NULL)")
    }

    @Test("to-one key paths become correlated subqueries, to-many ones EXISTS")
    func relationships() throws {
        #expect(
            try ObjectPredicate(format: "server.title == 'A'").sqlExpression(for: item, in: model, alias: "t0").sql
                == "((SELECT t0_1.\"title\" FROM \"Server\" AS t0_1 WHERE t0_1.\"Z_PK\" = t0.\"server\" LIMIT 1) IS ?)")
        #expect(
            try ObjectPredicate(format: "ANY feedItems.read == NO").sqlExpression(for: server, in: model, alias: "s").sql
                == "EXISTS (SELECT 1 FROM \"FeedItem\" AS s_1 WHERE s_1.\"server\" = s.\"Z_PK\" AND (s_1.\"read\" IS ?))")
        #expect(
            try ObjectPredicate(format: "ALL feedItems.read == NO").sqlExpression(for: server, in: model, alias: "s").sql
                == "NOT EXISTS (SELECT 1 FROM \"FeedItem\" AS s_1 WHERE s_1.\"server\" = s.\"Z_PK\" AND ((s_1.\"read\" IS ?) IS NOT 1))"
        )
        #expect(
            try ObjectPredicate(format: "feedItems.@count > 2").sqlExpression(for: server, in: model, alias: "t0").sql
                == "((SELECT COUNT(*) FROM \"FeedItem\" AS t0_1 WHERE t0_1.\"server\" = t0.\"Z_PK\") > ?)")
        // One-to-one stored on the other side.
        #expect(
            try ObjectPredicate(format: "profile == nil").sqlExpression(for: server, in: model, alias: "t0").sql
                == "((SELECT t0_1.\"Z_PK\" FROM \"Profile\" AS t0_1 WHERE t0_1.\"server\" = t0.\"Z_PK\" LIMIT 1) IS NULL)")
    }

    @Test("==, <, IN and BETWEEN on an indexed attribute use the index")
    func indexes() throws {
        let queue = try PredicateTestModel.makeDatabase()
        for format in [
            "title == 'x'", "title < 'x'", "title IN {'x', 'y'}", "title BETWEEN {'a', 'b'}", "title == 'x' AND read == YES",
        ] {
            let fragment = try ObjectPredicate(format: format).sqlExpression(for: item, in: model, alias: "t0")
            let plan = try queue.read { db in
                try Row.fetchAll(
                    db, sql: "EXPLAIN QUERY PLAN SELECT t0.\"Z_PK\" FROM \"FeedItem\" AS t0 WHERE \(fragment.sql)",
                    arguments: StatementArguments(fragment.arguments)
                ).map { $0["detail"] as String }.joined(separator: "; ")
            }
            #expect(plan.contains("INDEX Z_FeedItem_title"), "\(format): \(plan)")
        }
    }

    @Test("key path expressions for ORDER BY")
    func keyPathExpressions() throws {
        #expect(try ObjectPredicate.sqlKeyPathExpression("title", for: item, in: model, alias: "t0") == "t0.\"title\"")
        #expect(
            try ObjectPredicate.sqlKeyPathExpression("server.title", for: item, in: model, alias: "t0")
                == "(SELECT t0_1.\"title\" FROM \"Server\" AS t0_1 WHERE t0_1.\"Z_PK\" = t0.\"server\" LIMIT 1)")
        #expect(
            try ObjectPredicate.sqlKeyPathExpression("feedItems.@count", for: server, in: model, alias: "t0")
                == "(SELECT COUNT(*) FROM \"FeedItem\" AS t0_1 WHERE t0_1.\"server\" = t0.\"Z_PK\")")
        #expect(throws: ObjectGraphError.unknownKey(entity: "Server", key: "nope")) {
            try ObjectPredicate.sqlKeyPathExpression("server.nope", for: item, in: model, alias: "t0")
        }
        #expect(throws: ObjectGraphError.self) {
            try ObjectPredicate.sqlKeyPathExpression("feedItems.title", for: server, in: model, alias: "t0")
        }

        let queue = try PredicateTestModel.makeDatabase()
        let order = try ObjectPredicate.sqlKeyPathExpression("server.title", for: item, in: model, alias: "t0")
        let pks = try queue.write { db in
            try db.execute(sql: "INSERT INTO \"Server\" (Z_PK, title) VALUES (1, 'b'), (2, 'a')")
            try db.execute(sql: "INSERT INTO \"FeedItem\" (Z_PK, server) VALUES (1, 1), (2, 2), (3, 1)")
            return try Int64.fetchAll(db, sql: "SELECT t0.Z_PK FROM \"FeedItem\" AS t0 ORDER BY \(order), t0.Z_PK")
        }
        #expect(pks == [2, 1, 3])
    }

    @Test("the SQL functions run the in-memory semantics")
    func functions() throws {
        let queue = try PredicateTestModel.makeDatabase()
        func value(_ sql: String) throws -> DatabaseValue {
            try queue.read { db in try DatabaseValue.fetchOne(db, sql: sql) ?? .null }
        }
        #expect(try value("SELECT OG_FOLD('CAFÉ Straße', 3)") == "cafe strasse".databaseValue)
        #expect(try value("SELECT OG_FOLD(42, 3)") == 42.databaseValue)
        #expect(try value("SELECT OG_STRING_OP('LIKE', 1, 'Swift', 's*T')") == 1.databaseValue)
        #expect(try value("SELECT OG_STRING_OP('CONTAINS', 3, 'Cafe\u{301}', 'fé')") == 1.databaseValue)
        #expect(try value("SELECT OG_STRING_OP('MATCHES', 0, 'abc', 'a.c')") == 1.databaseValue)
        #expect(try value("SELECT OG_STRING_OP('CONTAINS', 0, NULL, 'a')") == 0.databaseValue)
        #expect(throws: DatabaseError.self) { try value("SELECT OG_STRING_OP('MATCHES', 0, 'a', '(')") }
    }
}
