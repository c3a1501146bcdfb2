import Foundation
import GRDB
import Testing

@testable import ObjectGraph

/// Hostile sizes: each limit gives one short error naming it (and the position), never a
/// crash, an SQLite error quoting the whole statement, or an echo of the whole predicate.
@Suite("ObjectPredicate limits")
struct PredicateLimitTests {
    let model = PredicateTestModel.model
    let item = PredicateTestModel.entity("FeedItem")

    /// `count` comparisons joined by `separator`.
    static func wide(_ count: Int, separator: String = " AND ") -> String {
        (0..<count).map { "title != \"x\($0)\"" }.joined(separator: separator)
    }

    func syntaxError(_ format: String) -> (position: Int, message: String, description: String)? {
        do {
            _ = try ObjectPredicate(format: format)
            return nil
        } catch {
            guard case .predicateSyntax(_, let position, let message) = error else { return nil }
            return (position, message, error.description)
        }
    }

    // MARK: - Format strings

    @Test("more comparisons than the limit: one short error at the first one too many")
    func tooManyComparisons() throws {
        let limit = ObjectPredicate.Limits.comparisons
        let format = Self.wide(limit + 1)
        let error = try #require(syntaxError(format))
        #expect(error.message.contains("more than \(limit) comparisons"))
        #expect(error.position == Array(format.unicodeScalars).count - "title != \"x\(limit)\"".count)
        #expect(error.description.count < 300, "\(error.description.count) characters")
        #expect(syntaxError(Self.wide(limit, separator: " OR ")) == nil)
    }

    @Test("predicates at the limits compile to SQL SQLite accepts (AND and OR chains grouped, not 1,000 deep)")
    func wideSQL() throws {
        let queue = try PredicateTestModel.makeDatabase()
        try queue.write { db in
            for i in 0..<3 { try db.execute(sql: "INSERT INTO \"FeedItem\" (title) VALUES (?)", arguments: ["x\(i * 500)"]) }
            let and = try ObjectPredicate(format: Self.wide(ObjectPredicate.Limits.comparisons))
            #expect(try sqlMatches(and, entity: item, in: db).count == 1)  // only "x1000" differs from every x0…x999
            let or = try ObjectPredicate(format: Self.wide(ObjectPredicate.Limits.comparisons, separator: " OR "))
            #expect(try sqlMatches(or, entity: item, in: db).count == 3)
            // Built in code there is no comparison limit: 20,000 terms still run.
            let built = ObjectPredicate.and(
                (0..<20_000).map { ObjectPredicate.comparison("title", .notEqualTo, .string("x\($0)")) })
            #expect(try sqlMatches(built, entity: item, in: db).isEmpty)
        }
    }

    @Test("a format longer than the limit is refused before it is read")
    func formatLength() throws {
        let limit = ObjectPredicate.Limits.formatLength
        let format = "title == \"a\" AND " + String(repeating: " ", count: limit)
        let error = try #require(syntaxError(format))
        #expect(error.position == limit)
        #expect(error.message.contains("more than the limit of \(limit)"))
        #expect(error.description.count < 300)
    }

    @Test("string literals longer than the limit name the literal's position")
    func stringLength() throws {
        let limit = ObjectPredicate.Limits.stringLength
        let fits = "title == \"" + String(repeating: "é", count: limit) + "\""
        #expect(syntaxError(fits) == nil)
        let error = try #require(syntaxError("read == NO AND title == \"" + String(repeating: "a", count: limit + 1) + "\""))
        #expect(error.position == 24)
        #expect(error.message.contains("string literal longer than \(limit) characters"))
        #expect(error.description.count < 300)
    }

    @Test(
        "huge hostile formats fail with one short error, never a crash",
        arguments: [
            String(repeating: "(", count: 100_000) + "a == 1",
            String(repeating: "NOT ", count: 100_000) + "a == 1",
            String(repeating: "!", count: 1_000_000) + "a == 1",
            "a IN " + String(repeating: "{", count: 100_000) + "1",
            String(repeating: "a == 1 AND ", count: 100_000) + "a == 1",
            "title == \"" + String(repeating: "x", count: 200_000) + "\"",
            String(repeating: "k", count: 60_000) + " == 1 extra",
            "a == " + String(repeating: "9", count: 60_000) + "x",
            "title CONTAINS[" + String(repeating: "c", count: 1_000) + "z] 'a'",
        ])
    func hostileFormats(format: String) throws {
        let error = try #require(syntaxError(format))
        #expect(error.description.count < 400, "\(error.description.prefix(400))")
    }

    // MARK: - Predicates built in code

    /// `NOT NOT … comparison`, `levels` deep.
    static func nested(_ levels: Int) -> ObjectPredicate {
        var p = ObjectPredicate.comparison("title", .equalTo, "a")
        for _ in 1..<levels { p = .not(p) }
        return p
    }

    @Test("NOT, AND and OR nested past the limit in a format: an error at the construct that crosses it")
    func deepFormats() throws {
        let limit = ObjectPredicate.Limits.predicateDepth
        let notChain = String(repeating: "NOT ", count: limit) + "a == 1"
        let error = try #require(syntaxError(notChain))
        #expect(error.position == 0)  // the first NOT makes the eleventh level
        #expect(error.message.contains("nested more than \(limit) levels deep (the limit)"))
        #expect(syntaxError(String(repeating: "NOT ", count: limit - 1) + "a == 1") == nil)
        // Parentheses alone do not nest a predicate.
        #expect(syntaxError(String(repeating: "(", count: 150) + "a == 1" + String(repeating: ")", count: 150)) == nil)
        // a == 1 AND (a == 1 OR (a == 1 AND (…)))
        var format = "a == 1"
        for i in 0..<limit { format = "a == 1 \(i % 2 == 0 ? "AND" : "OR") (\(format))" }
        #expect(syntaxError(format)?.message.contains("(the limit)") == true)
    }

    @Test("the worst predicate within the limits compiles: SQLite's parser does not overflow")
    func worstWithinLimits() throws {
        let item = PredicateTestModel.entity("FeedItem")
        var path = "server"
        for hop in 1..<ObjectPredicate.Limits.keyPathRelationships { path += hop % 2 == 1 ? ".profile" : ".server" }
        let leaf = ObjectPredicate.comparison(
            path + (ObjectPredicate.Limits.keyPathRelationships % 2 == 1 ? ".title" : ".name"), .contains, "x",
            options: [.caseInsensitive, .diacriticInsensitive])
        var p = leaf
        for level in 1..<ObjectPredicate.Limits.predicateDepth {
            // 70 siblings, so that the parts are grouped, and the deep one last.
            let siblings = (0..<70).map {
                ObjectPredicate.comparison("title", .contains, .string("s\($0)"), options: .caseInsensitive)
            }
            p = level % 2 == 0 ? ObjectPredicate(.and(siblings + [p])) : ObjectPredicate(.or(siblings + [p]))
        }
        #expect(p.depth == ObjectPredicate.Limits.predicateDepth)
        let queue = try PredicateTestModel.makeDatabase()
        _ = try queue.read { db in try sqlMatches(p, entity: item, in: db) }
        // One more relationship is refused by validation with a short message.
        let longer = ObjectPredicate.comparison(path + ".server.title", .equalTo, "x")
        #expect {
            try longer.validate(for: item, in: PredicateTestModel.model)
        } throws: { error in
            guard case .invalidPredicate(_, let message) = error as? ObjectGraphError else { return false }
            return message.contains("crosses more than \(ObjectPredicate.Limits.keyPathRelationships) relationships")
        }
    }

    @Test("a predicate built in code deeper than the limit is refused by validation, SQL and evaluation alike")
    func deepBuiltPredicates() throws {
        let limit = ObjectPredicate.Limits.predicateDepth
        let deep = Self.nested(2_000)
        #expect {
            try deep.sqlExpression(for: item, in: model, alias: "t0")
        } throws: { error in
            guard case .invalidPredicate(_, let message) = error as? ObjectGraphError else { return false }
            return message.contains("2000 levels deep, more than the limit of \(limit)")
        }
        #expect(throws: PredicateEvaluationError.self) { try deep.evaluate(with: TestObject(item, ["title": "a"])) }
        #expect(deep.description == "<a predicate nested 2000 levels deep>")  // no recursion that deep
        // Alternating AND/OR nests too (each level keeps two parts, so flattening cannot help).
        var mixed = ObjectPredicate.comparison("title", .equalTo, "a")
        for i in 0..<(limit + 1) {
            let other = ObjectPredicate.comparison("author", .equalTo, .string("b\(i)"))
            mixed = i % 2 == 0 ? mixed && other : mixed || other
        }
        #expect(throws: ObjectGraphError.self) { try mixed.validate(for: item, in: model) }
        // At the limit everything works, and SQL agrees with memory.
        let fits = Self.nested(limit)
        let queue = try PredicateTestModel.makeDatabase()
        try queue.write { db in
            try db.execute(sql: "INSERT INTO \"FeedItem\" (title) VALUES ('a'), ('b')")
            let expected: Set<Int64> = limit % 2 == 1 ? [1] : [2]
            #expect(try sqlMatches(fits, entity: item, in: db) == expected)
        }
        #expect(try fits.evaluate(with: TestObject(item, ["title": "a"])) == (limit % 2 == 1))
    }

    // MARK: - Fuzzing deep and wide formats

    /// A random format mixing nesting (parentheses, NOT, `!`) and width (long AND/OR chains),
    /// sometimes past the limits.
    static func randomFormat(_ g: inout PredicateRandomGenerator, budget: inout Int, depth: Int) -> String {
        budget -= 1
        if budget <= 0 || Int.random(in: 0..<4, using: &g) == 0 {
            let leaves = [
                "title == 'a'", "read == NO", "count > 3", "title MATCHES 'a+'", "title LIKE[c] '*a*'",
                "title IN {'a', 'b', nil}", "rating BETWEEN {1, 2}", "server.title BEGINSWITH 'a'",
            ]
            return leaves.randomElement(using: &g)!
        }
        switch Int.random(in: 0..<4, using: &g) {
        case 0:
            let width = Int.random(in: 2...(Int.random(in: 0..<8, using: &g) == 0 ? 1_200 : 4), using: &g)
            let separator = Bool.random(using: &g) ? " AND " : " || "
            var parts: [String] = []
            for _ in 0..<width { parts.append(randomFormat(&g, budget: &budget, depth: depth + 1)) }
            return parts.joined(separator: separator)
        case 1:
            let levels = Int.random(in: 1...(Int.random(in: 0..<6, using: &g) == 0 ? 260 : 3), using: &g)
            return String(repeating: "(", count: levels) + randomFormat(&g, budget: &budget, depth: depth + levels)
                + String(repeating: ")", count: levels)
        case 2:
            let levels = Int.random(in: 1...(Int.random(in: 0..<6, using: &g) == 0 ? 260 : 3), using: &g)
            return String(repeating: Bool.random(using: &g) ? "NOT " : "!", count: levels)
                + "(" + randomFormat(&g, budget: &budget, depth: depth + levels) + ")"
        default:
            return "(" + randomFormat(&g, budget: &budget, depth: depth + 1) + ")"
        }
    }

    @Test("random deep and wide formats parse, compile, run in SQLite and agree with memory, or fail with a short error")
    func fuzzDeepAndWide() throws {
        var g = PredicateRandomGenerator(seed: 77)
        let queue = try PredicateTestModel.makeDatabase()
        let objects = [
            TestObject(item, primaryKey: 1, ["title": "a", "read": false, "count": 4, "rating": 1.5]),
            TestObject(item, primaryKey: 2, ["title": "bab", "read": true, "count": 1]),
        ]
        try queue.write { db in
            try db.execute(
                sql:
                    "INSERT INTO \"FeedItem\" (Z_PK, title, read, count, rating) VALUES (1, 'a', 0, 4, 1.5), (2, 'bab', 1, 1, NULL)"
            )
        }
        var parsed = 0
        var refused = 0
        for _ in 0..<300 {
            var budget = 3_000
            let format = Self.randomFormat(&g, budget: &budget, depth: 0)
            let predicate: ObjectPredicate
            do {
                predicate = try ObjectPredicate(format: format)
            } catch {
                guard case .predicateSyntax(_, let position, let message) = error else {
                    Issue.record("unexpected error \(error)")
                    continue
                }
                #expect(message.contains("the limit"), "\(message)")
                #expect(position >= 0 && position <= format.unicodeScalars.count)
                #expect(error.description.count < 400)
                refused += 1
                continue
            }
            parsed += 1
            let inMemory = Set(try objects.filter { try predicate.evaluate(with: $0) }.map(\.primaryKey))
            let inSQL = try queue.read { db in try sqlMatches(predicate, entity: item, in: db) }
            #expect(inMemory == inSQL, "\(format.prefix(200))")
        }
        #expect(parsed > 50 && refused > 20, "parsed \(parsed), refused \(refused): the generator explores too little")
    }

    // MARK: - MATCHES, LIKE and CONTAINS under a deadline

    /// A pattern that backtracks exponentially on a run of `a`s ending in `b`: without a
    /// deadline this match would not end in a lifetime.
    static let catastrophicPattern = "(a|aa)+"
    static let catastrophicSubject = String(repeating: "a", count: 80) + "b"

    @Test("an in-memory MATCHES past the deadline stops with the time-limit error")
    func regexDeadlineInMemory() throws {
        let p = ObjectPredicate.comparison("title", .matches, .string(Self.catastrophicPattern))
        let object = TestObject(item, ["title": .string(Self.catastrophicSubject)])
        #expect {
            try QueryDeadline(limit: .milliseconds(50)).run { try p.evaluate(with: object) }
        } throws: { error in
            guard case .timeLimitExceeded = error as? ObjectGraphError else { return false }
            return true
        }
        // A harmless pattern is unaffected by the same budget.
        #expect(
            try QueryDeadline(limit: .milliseconds(50)).run {
                try ObjectPredicate(format: "title MATCHES 'a+b'").evaluate(with: object)
            })
    }

    @Test("LIKE and CONTAINS with pathological patterns over long text stop at the deadline")
    func wildcardDeadline() throws {
        let long = TestObject(item, ["title": .string(String(repeating: "a", count: 2_000_000))])
        let like = ObjectPredicate.comparison("title", .like, .string(String(repeating: "*a", count: 2_000) + "*b"))
        let contains = ObjectPredicate.comparison("title", .contains, .string(String(repeating: "a", count: 10_000) + "b"))
        for p in [like, contains] {
            #expect {
                try QueryDeadline(limit: .zero).run { try p.evaluate(with: long) }
            } throws: { error in
                guard case .timeLimitExceeded = error as? ObjectGraphError else { return false }
                return true
            }
        }
    }

    @Test("MATCHES patterns longer than the limit are refused when the predicate is checked")
    func patternLength() throws {
        let p = ObjectPredicate.comparison(
            "title", .matches, .string(String(repeating: "a", count: ObjectPredicate.Limits.patternLength + 1)))
        #expect {
            try p.validate(for: item, in: model)
        } throws: { error in
            guard case .invalidPredicate(_, let message) = error as? ObjectGraphError else { return false }
            return message.contains("more than the limit of \(ObjectPredicate.Limits.patternLength)") && message.count < 300
        }
    }

    // MARK: - Short messages for long operands

    @Test("validation errors abbreviate long collections and strings")
    func shortValidationMessages() throws {
        let values: [String] = (0..<100_000).map { "value-\($0)" }
        let nested = ObjectPredicate.comparison(
            .keyPath("title"), .in, .aggregate([.aggregate(values.map { .constant(.string($0)) })]))
        #expect {
            try nested.validate(for: item, in: model)
        } throws: { error in
            (error as? ObjectGraphError)?.description.count ?? .max < 300
        }
        let mismatch = ObjectPredicate.comparison("count", .equalTo, .string(String(repeating: "z", count: 100_000)))
        #expect {
            try mismatch.validate(for: item, in: model)
        } throws: { error in
            (error as? ObjectGraphError)?.description.count ?? .max < 300
        }
    }

    // MARK: - IN through one JSON parameter

    @Test("IN binds its constants as one JSON array that brings back exactly the values bound one by one")
    func jsonInExact() throws {
        var g = PredicateRandomGenerator(seed: 9)
        let titles = [
            "a\"b", "back\\slash", "tab\there", "nl\n", "\u{1}\u{1f}", "é", "e\u{301}", "😀", "nul\u{0}x", "", "[1]",
            "\u{2028}", "ÉCOLE", "Straße", "1", "null",
        ]
        var doubles: [Double] = [
            0, -0.0, .leastNormalMagnitude / 3, .leastNonzeroMagnitude, .greatestFiniteMagnitude, -.infinity, .infinity, 0.1,
            1.0 / 3, 1e16,
        ]
        while doubles.count < 400 {
            let d = Double(bitPattern: g.next())
            if !d.isNaN { doubles.append(d) }
        }
        var objects: [TestObject] = []
        let queue = try PredicateTestModel.makeDatabase()
        try queue.write { db in
            for (i, d) in doubles.enumerated() {
                let pk = Int64(i + 1)
                let title = titles[i % titles.count]
                let published = Date(timeIntervalSince1970: d.isFinite ? d.truncatingRemainder(dividingBy: 4e9) : 0)
                let values: [String: Value] = [
                    "title": .string(title), "rating": .double(d), "published": .date(published),
                    "count": .integer(Int64(i) - 200),
                    "read": .bool(i % 3 == 0),
                ]
                objects.append(TestObject(item, primaryKey: pk, values))
                try db.execute(
                    sql: "INSERT INTO \"FeedItem\" (Z_PK, title, rating, published, count, read) VALUES (?, ?, ?, ?, ?, ?)",
                    arguments: [
                        pk, Value.string(title).databaseValue, Value.double(d).databaseValue,
                        Value.date(published).databaseValue, Value.integer(Int64(i) - 200).databaseValue,
                        Value.bool(i % 3 == 0).databaseValue,
                    ])
            }
        }
        func everyOther<T>(_ values: [T]) -> [T] { values.enumerated().filter { $0.offset % 2 == 0 }.map(\.element) }
        let predicates: [ObjectPredicate] = [
            try ObjectPredicate(format: "title IN %@", everyOther(titles)),
            try ObjectPredicate(format: "title IN[cd] %@", ["ecole", "STRASSE", "E", "NUL\u{0}X"]),
            try ObjectPredicate(format: "rating IN %@", everyOther(doubles)),
            try ObjectPredicate(
                format: "published IN %@",
                everyOther(objects.map { $0.values["published"]! }).map { v -> Date in
                    guard case .date(let d) = v else { return Date() }
                    return d
                }),
            try ObjectPredicate(format: "count IN %@", Array(stride(from: -300, to: 300, by: 7))),
            try ObjectPredicate(format: "read IN {YES} AND NOT count IN {1, 2, 3}"),
            try ObjectPredicate(format: "rating IN {1e999, -1e999, 0}"),
        ]
        try queue.read { db in
            for p in predicates {
                let inSQL = try sqlMatches(p, entity: item, in: db)
                let inMemory = Set(try objects.filter { try p.evaluate(with: $0) }.map(\.primaryKey))
                #expect(inSQL == inMemory, "\(String(describing: p).prefix(120))")
                #expect(!inSQL.isEmpty, "\(String(describing: p).prefix(120))")
            }
        }
    }
}

/// Limits seen through a context: the time budget of fetches, and IN with any number of values.
@Suite("Fetch budget and IN lists")
struct FetchBudgetTests {
    /// A file store with `count` notes titled `note-0`, `note-1`, … rated `i % 7`.
    func populated(_ directory: TemporaryDirectory, count: Int, title: (Int) -> String = { "note-\($0)" }) throws
        -> PersistentContainer
    {
        let container = try TestModel.container(.file(directory.file("limits.sqlite")))
        let ctx = container.viewContext
        try ctx.performAndWait { () throws in
            for i in 0..<count {
                let n = ctx.insert(Note.self)
                n.title = title(i)
                n.rating = Double(i % 7)
            }
            try ctx.save()
        }
        return container
    }

    @Test("IN with 300,000 values works in fetch, count, object IDs and aggregates against a file store")
    func hugeInList() throws {
        let directory = TemporaryDirectory()
        let container = try populated(directory, count: 2_000)
        let ctx = container.viewContext
        try ctx.performAndWait { () throws in
            // Every third title of 0..<900,000: the 667 stored ones among them are 0, 3, …, 1998.
            let titles = (0..<300_000).map { "note-\($0 * 3)" }
            let request = FetchRequest<Note>(predicate: try ObjectPredicate(format: "title IN %@", titles))
            #expect(try ctx.fetch(request).count == 667)
            #expect(try ctx.count(for: request) == 667)
            #expect(try ctx.fetchObjectIDs(request).count == 667)
            #expect(try ctx.aggregate(.count, of: "rating", for: request) == .integer(667))
            let folded = FetchRequest<Note>(
                predicate: try ObjectPredicate(format: "title IN[c] %@", titles.map { $0.uppercased() }))
            #expect(try ctx.count(for: folded) == 667)
            let ratings = FetchRequest<Note>(
                predicate: try ObjectPredicate(format: "NOT rating IN %@", (0..<300_000).map { Double($0) + 2 }))
            #expect(try ctx.count(for: ratings) == 2_000 * 2 / 7 + 1)  // ratings 0 and 1: i % 7 < 2
            // Pending changes are matched in memory against the same list.
            let pending = ctx.insert(Note.self)
            pending.title = "note-3000"
            #expect(try ctx.count(for: request) == 668)
            #expect(try ctx.fetch(request).contains { $0 === pending })
        }
    }

    @Test("a fetch past its time limit is interrupted by SQLite's progress handler, with a typed error")
    func progressHandlerInterrupts() throws {
        let directory = TemporaryDirectory()
        let container = try populated(directory, count: 2_000)
        let ctx = container.viewContext
        try ctx.performAndWait { () throws in
            var request = FetchRequest<Note>(predicate: try ObjectPredicate(format: "rating >= 0"))
            request.timeLimit = .zero
            let expected = ObjectGraphError.timeLimitExceeded(entity: "Note", seconds: 0)
            #expect(throws: expected) { try ctx.fetch(request) }
            #expect(throws: expected) { try ctx.count(for: request) }
            #expect(throws: expected) { try ctx.fetchObjectIDs(request) }
            #expect(throws: expected) { try ctx.aggregate(.sum, of: "rating", for: request) }
            #expect(expected.description == "the Note query took longer than 0 s and was stopped")
            // The connection is left without a handler: the same fetch with the default limit runs.
            request.timeLimit = ObjectPredicate.Limits.timeLimit
            #expect(try ctx.count(for: request) == 2_000)
            #expect(try ctx.fetch(FetchRequest<Note>()).count == 2_000)
        }
    }

    @Test("by default a fetch has no time limit: a library cannot tell a costly predicate from a large fetch")
    func noTimeLimitByDefault() throws {
        #expect(ObjectPredicate.Limits.timeLimit == nil)
        #expect(FetchRequest<Note>().timeLimit == nil)
        // Work outside any fetch gets no deadline either: the default one never passes.
        #expect(!QueryDeadline.currentOrDefault().hasPassed())
        let directory = TemporaryDirectory()
        let container = try populated(directory, count: 50)
        let ctx = container.viewContext
        try ctx.performAndWait { () throws in
            #expect(try ctx.count(for: FetchRequest<Note>(predicate: try ObjectPredicate(format: "rating >= 0"))) == 50)
        }
    }

    @Test("a catastrophic MATCHES stops at the fetch's time limit, in SQL and on unsaved objects")
    func catastrophicRegex() throws {
        let directory = TemporaryDirectory()
        let container = try populated(directory, count: 3) { _ in PredicateLimitTests.catastrophicSubject }
        let ctx = container.viewContext
        try ctx.performAndWait { () throws in
            var request = FetchRequest<Note>(
                predicate: try ObjectPredicate(format: "title MATCHES %@", PredicateLimitTests.catastrophicPattern))
            request.timeLimit = .milliseconds(100)
            let expected = ObjectGraphError.timeLimitExceeded(entity: "Note", seconds: 0.1)
            #expect(throws: expected) { try ctx.fetch(request) }
            #expect(throws: expected) { try ctx.count(for: request) }
            // Unsaved objects only: evaluated in memory under the same budget.
            request.predicate = try ObjectPredicate(
                format: "rating == 99 AND title MATCHES %@", PredicateLimitTests.catastrophicPattern)
            let fresh = ctx.insert(Note.self)
            fresh.title = PredicateLimitTests.catastrophicSubject
            fresh.rating = 99
            #expect(throws: expected) { try ctx.fetch(request) }
        }
    }
}
