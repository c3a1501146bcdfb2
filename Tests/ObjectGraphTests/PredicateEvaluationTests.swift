import Foundation
import GRDB
import ObjectGraph
import Testing

/// Core Data's semantics, checked on a small fixed data set both in memory and through SQL.
@Suite("ObjectPredicate evaluation")
struct PredicateEvaluationTests {
    static let titles: [String?] = [
        "Café", "CAFÉ", "cafe\u{301}", "Cafe\u{301}", "cafe", "Caff", nil, "", "straße", "STRASSE", "東京", "😀 smile",
        "naïve", "İstanbul", "a*b",
    ]

    let queue: DatabaseQueue
    let servers: [TestObject]
    let items: [TestObject]

    init() throws {
        let serverEntity = PredicateTestModel.entity("Server")
        let itemEntity = PredicateTestModel.entity("FeedItem")
        // Server 1 has a read and an unread item, 2 only read ones, 3 none.
        let servers = [
            TestObject(serverEntity, primaryKey: 1, ["title": "A", "rank": 1, "score": 1.5, "active": true]),
            TestObject(serverEntity, primaryKey: 2, ["title": "B", "rank": 2, "active": false]),
            TestObject(
                serverEntity, primaryKey: 3, ["title": nil, "score": 2, "created": .date(Date(timeIntervalSince1970: 100))]),
        ]
        var items: [TestObject] = []
        for (i, title) in Self.titles.enumerated() {
            let pk = Int64(i + 1)
            let item = TestObject(
                itemEntity, primaryKey: pk,
                [
                    "title": title.map(Value.string) ?? .null, "count": .integer(pk), "read": .bool(i % 2 == 0),
                    "published": .date(Date(timeIntervalSince1970: Double(i) * 10)),
                ])
            let server: TestObject? = i < 2 ? servers[0] : i < 5 ? servers[1] : nil
            if let server {
                item.toOne["server"] = server
                server.toMany["feedItems", default: []].append(item)
            }
            items.append(item)
        }
        // Server 1: items 1 (read) and 2 (unread); server 2: items 3, 4, 5 → make them all read.
        items[3].values["read"] = .bool(true)
        let queue = try PredicateTestModel.makeDatabase()
        try queue.write { db in
            for s in servers { try PredicateDifferentialTests.insert(s, columns: [:], in: db) }
            for item in items {
                let server = (item.toOne["server"]?.primaryKey).map(Value.integer) ?? .null
                try PredicateDifferentialTests.insert(item, columns: ["server": server], in: db)
            }
        }
        self.queue = queue
        self.servers = servers
        self.items = items
    }

    /// The primary keys `format` selects, checked to be the same in memory and in SQL.
    func select(_ entity: String, _ format: String, _ arguments: (any PredicateArgument)?...) throws -> [Int64] {
        let predicate = try ObjectPredicate(format: format, argumentArray: arguments)
        let objects = entity == "Server" ? servers : items
        let inMemory = Set(try objects.filter { try predicate.evaluate(with: $0) }.map(\.primaryKey))
        let inSQL = try queue.read { db in try sqlMatches(predicate, entity: PredicateTestModel.entity(entity), in: db) }
        #expect(inMemory == inSQL, "\(format): memory \(inMemory.sorted()) SQL \(inSQL.sorted())")
        return inMemory.sorted()
    }

    /// The titles of the items `format` selects.
    func titles(_ format: String, _ arguments: (any PredicateArgument)?...) throws -> [String?] {
        try select("FeedItem", format, argumentArray: arguments).map { Self.titles[Int($0) - 1] }
    }

    func select(_ entity: String, _ format: String, argumentArray: [(any PredicateArgument)?]) throws -> [Int64] {
        let predicate = try ObjectPredicate(format: format, argumentArray: argumentArray)
        let objects = entity == "Server" ? servers : items
        let inMemory = Set(try objects.filter { try predicate.evaluate(with: $0) }.map(\.primaryKey))
        let inSQL = try queue.read { db in try sqlMatches(predicate, entity: PredicateTestModel.entity(entity), in: db) }
        #expect(inMemory == inSQL, "\(format): memory \(inMemory.sorted()) SQL \(inSQL.sorted())")
        return inMemory.sorted()
    }

    @Test("[cd] folds case and diacritics: \"cafe\" CONTAINS[cd] matches Café, CAFÉ and cafe + U+0301")
    func caseAndDiacriticFolding() throws {
        #expect(try titles("title CONTAINS[cd] %@", "cafe") == ["Café", "CAFÉ", "cafe\u{301}", "Cafe\u{301}", "cafe"])
        #expect(try titles("title ==[cd] 'CAFE'") == ["Café", "CAFÉ", "cafe\u{301}", "Cafe\u{301}", "cafe"])
        #expect(try titles("title ==[c] 'café'") == ["Café", "CAFÉ"])
        #expect(try titles("title ==[d] 'Cafe'") == ["Café", "Cafe\u{301}"])
        #expect(try titles("title ==[c] 'strasse'") == ["straße", "STRASSE"])
        #expect(try titles("title BEGINSWITH[cd] 'istan'") == ["İstanbul"])
        #expect(try titles("title ENDSWITH[d] 'ive'") == ["naïve"])
        #expect(try titles("title CONTAINS[c] 'É'") == ["Café", "CAFÉ"])
    }

    @Test("without modifiers strings compare by Unicode scalars, not canonical equivalence")
    func scalarComparison() throws {
        #expect(try titles("title == 'Café'") == ["Café"])
        #expect(try titles("title == %@", "Cafe\u{301}") == ["Cafe\u{301}"])
        #expect(try titles("title CONTAINS 'cafe'") == ["cafe\u{301}", "cafe"])
        #expect(try titles("title BEGINSWITH 'C'") == ["Café", "CAFÉ", "Cafe\u{301}", "Caff"])
        #expect(try titles("title < 'C'") == [""])
        #expect(try titles("title > 'z'") == ["東京", "😀 smile", "İstanbul"])
        #expect(try titles("title CONTAINS ''").isEmpty)
        #expect(try titles("title IN {'cafe', 'Caff'}") == ["cafe", "Caff"])
        #expect(try titles("title IN[c] {'CAFE', 'caff'}") == ["cafe", "Caff"])
    }

    @Test("nil equals only nil; ordering with nil is false; NOT negates two-valued results")
    func nilSemantics() throws {
        #expect(try titles("title == nil") == [nil])
        #expect(try titles("title != nil").count == Self.titles.count - 1)
        #expect(try titles("title != 'Caff'").count == Self.titles.count - 1)
        #expect(try titles("title != 'Caff'").contains(nil))
        #expect(try !titles("title < 'zzzz'").contains(nil))
        #expect(try titles("NOT title < 'zzzz'").contains(nil))
        #expect(try !titles("title CONTAINS 'a'").contains(nil))
        #expect(try titles("NOT title CONTAINS 'a'").contains(nil))
        #expect(try titles("title IN {'cafe', nil}") == ["cafe", nil])
        #expect(try titles("NOT title IN {'cafe'}").contains(nil))
        #expect(try select("Server", "title BETWEEN {'A', 'Z'}") == [1, 2])
        #expect(try select("Server", "NOT title BETWEEN {'A', 'Z'}") == [3])
        #expect(try select("Server", "rank != 1") == [2, 3])
        #expect(try select("Server", "NOT rank > 1") == [1, 3])
        #expect(try select("Server", "rank IN {2, nil}") == [2, 3])
        #expect(try select("Server", "rank > nil OR rank < nil").isEmpty)
        #expect(try select("Server", "NOT (rank > nil)") == [1, 2, 3])
    }

    @Test("LIKE wildcards match whole strings; MATCHES is a whole-string regex")
    func likeAndMatches() throws {
        #expect(try titles("title LIKE 'caf?'") == ["cafe"])
        #expect(try titles("title LIKE[c] 'caf?'") == ["Café", "CAFÉ", "cafe", "Caff"])
        #expect(try titles("title LIKE[cd] 'caf?'") == ["Café", "CAFÉ", "cafe\u{301}", "Cafe\u{301}", "cafe", "Caff"])
        #expect(try titles("title LIKE '*'").count == Self.titles.count - 1)
        #expect(try titles("title LIKE 'a\\\\*b'") == ["a*b"])
        #expect(try titles("title LIKE '*ß*'") == ["straße"])
        #expect(try titles("title LIKE 'C%'").isEmpty)
        #expect(try titles("title LIKE '??'") == ["東京"])
        #expect(try titles("title LIKE '? smile'") == ["😀 smile"])
        #expect(try titles("title LIKE '*?京'") == ["東京"])
        #expect(try titles("title LIKE '*\u{301}'") == ["cafe\u{301}", "Cafe\u{301}"])
        #expect(try titles("title LIKE 'cafe?'") == ["cafe\u{301}"])
        #expect(try titles("title LIKE[d] 'cafe'") == ["cafe\u{301}", "cafe"])
        #expect(try titles("title MATCHES 'caf.'") == ["cafe"])
        #expect(try titles("title MATCHES[c] 'caf.'") == ["Café", "CAFÉ", "cafe", "Caff"])
        #expect(try titles("title MATCHES 'af'").isEmpty)
        #expect(try titles("title MATCHES '\\\\p{Han}+'") == ["東京"])
        #expect(try titles("title MATCHES ''") == [""])
    }

    @Test("ANY, ALL, NONE over to-many key paths; @count")
    func quantifiers() throws {
        #expect(try select("Server", "ANY feedItems.read == NO") == [1])
        #expect(try select("Server", "ALL feedItems.read == YES") == [2, 3])
        #expect(try select("Server", "NONE feedItems.read == NO") == [2, 3])
        #expect(try select("Server", "NOT ANY feedItems.read == NO") == [2, 3])
        #expect(try select("Server", "SOME feedItems.title CONTAINS[cd] 'cafe'") == [1, 2])
        #expect(try select("Server", "ALL feedItems.title BEGINSWITH[c] 'caf'") == [1, 2, 3])
        #expect(try select("Server", "feedItems.@count > 2") == [2])
        #expect(try select("Server", "feedItems.@count == 0") == [3])
        #expect(try select("Server", "ANY feedItems.count BETWEEN {2, 3}") == [1, 2])
    }

    @Test("to-one key paths; nil relationships")
    func toOne() throws {
        #expect(try select("FeedItem", "server.title == 'A'") == [1, 2])
        #expect(try select("FeedItem", "server == nil") == Array(6...Int64(Self.titles.count)))
        #expect(try select("FeedItem", "server != nil AND server.rank >= 2") == [3, 4, 5])
        #expect(try select("FeedItem", "server.title != 'A'") == Array(3...Int64(Self.titles.count)))
        #expect(try select("FeedItem", "server.feedItems.@count == 2") == [1, 2])
        #expect(try select("FeedItem", "server.active == NO") == [3, 4, 5])
    }

    @Test("relationships compare with object IDs (server == %@, ANY feedItems == %@)")
    func objectReferences() throws {
        let a = objectID("Server", 1)
        #expect(try select("FeedItem", "server == %@", a) == [1, 2])
        #expect(try select("FeedItem", "server != %@", a) == Array(3...Int64(Self.titles.count)))
        #expect(try select("FeedItem", "server IN %@", [a, objectID("Server", 2)]) == [1, 2, 3, 4, 5])
        #expect(try select("Server", "ANY feedItems == %@", objectID("FeedItem", 4)) == [2])
        #expect(try select("Server", "NONE feedItems IN %@", [objectID("FeedItem", 1), objectID("FeedItem", 3)]) == [3])
        #expect(try select("Server", "ALL feedItems != %@", objectID("FeedItem", 1)) == [2, 3])
        #expect(try select("Server", "feedItems CONTAINS %@", objectID("FeedItem", 4)) == [2])
        #expect(try select("Server", "NOT feedItems CONTAINS %@", objectID("FeedItem", 4)) == [1, 3])
        // An unsaved object is referenced by no stored row, and by no object here.
        #expect(try select("FeedItem", "server == %@", objectID("Server", -1)).isEmpty)
        #expect(try select("FeedItem", "server != %@", objectID("Server", -1)).count == Self.titles.count)
        #expect(try select("FeedItem", "server.feedItems.@count == 2 AND server == %@", a) == [1, 2])
    }

    @Test("bools compare as 0/1, dates and numbers numerically")
    func numbers() throws {
        #expect(try select("FeedItem", "read == 1") == select("FeedItem", "read == YES"))
        #expect(try select("FeedItem", "read == NO") == [2, 6, 8, 10, 12, 14])
        #expect(try select("Server", "score == 2") == [3])
        #expect(try select("Server", "score > 1") == [1, 3])
        #expect(try select("Server", "created == %@", Date(timeIntervalSince1970: 100)) == [3])
        #expect(try select("Server", "created < 100.5") == [3])
        #expect(
            try select("FeedItem", "published BETWEEN %@", [Date(timeIntervalSince1970: 10), Date(timeIntervalSince1970: 30)])
                == [2, 3, 4])
        #expect(try select("FeedItem", "count IN %@", [1, 3, 99]) == [1, 3])
        #expect(try select("FeedItem", "count > 2.5 AND count <= 4") == [3, 4])
        #expect(try select("FeedItem", "3 < count AND count < 5") == [4])
        #expect(try select("FeedItem", "count == server.rank") == [1])
    }

    @Test("TRUEPREDICATE, FALSEPREDICATE and compound predicates built in code")
    func compounds() throws {
        let objects = servers
        #expect(try objects.filter { try ObjectPredicate.true.evaluate(with: $0) }.count == 3)
        #expect(try objects.filter { try ObjectPredicate.false.evaluate(with: $0) }.isEmpty)
        let p = ObjectPredicate.comparison("rank", .equalTo, 1) || !ObjectPredicate.comparison("title", .equalTo, nil)
        #expect(try objects.filter { try p.evaluate(with: $0) }.map(\.primaryKey) == [1, 2])
        let q = ObjectPredicate.and([.comparison("feedItems.read", .equalTo, false, modifier: .any), .true])
        #expect(try objects.filter { try q.evaluate(with: $0) }.map(\.primaryKey) == [1])
        #expect(try select("Server", "TRUEPREDICATE AND NOT FALSEPREDICATE") == [1, 2, 3])
    }

    @Test("in-memory evaluation reports key paths that do not fit the object")
    func evaluationErrors() throws {
        let server = servers[0]
        #expect(throws: PredicateEvaluationError.self) {
            try ObjectPredicate(format: "feedItems.title == 'x'").evaluate(with: server)
        }
        #expect(throws: PredicateEvaluationError.self) { try ObjectPredicate(format: "title.length == 1").evaluate(with: server) }
        #expect(throws: PredicateEvaluationError.self) { try ObjectPredicate(format: "feedItems == nil").evaluate(with: server) }
        #expect(throws: PredicateEvaluationError.self) { try ObjectPredicate(format: "title MATCHES '('").evaluate(with: server) }
        #expect(throws: ObjectGraphError.unknownKey(entity: "Server", key: "nope")) {
            try ObjectPredicate(format: "nope == 1").evaluate(with: server)
        }
    }
}
