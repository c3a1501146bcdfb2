import Foundation
import GRDB
import ObjectGraph
import Testing

/// Random predicates over random rows: SQL (with the registered functions) and in-memory
/// evaluation must select exactly the same objects. Set `PREDICATE_SEED` to replay a run and
/// `PREDICATE_COUNT` to try more predicates.
@Suite("ObjectPredicate differential (SQL vs memory)")
struct PredicateDifferentialTests {
    static let strings: [String] = [
        "", "café", "cafe\u{301}", "CAFÉ", "Café", "cafe", "CAFE", "naïve", "NAIVE", "東京", "東", "京都", "😀",
        "a😀b", "👍🏽", "Swift", "swift", "SWIFT", "swiftly", "straße", "STRASSE", "strasse", "ß", "abc", "ABC", "a*b",
        "a?c", "x_y%z", "İstanbul", "istanbul", "ﬃ", "ffi", "résumé", "resume", "e\u{301}", "é", "É", "E", "Ωmega",
        "ωmega", "a\nb", " space ", "Zürich", "zurich", "ZU\u{308}RICH", "Ǆ", "ǆ", "%", "_", "'quote\"",
    ]
    static let likePatterns: [String] = [
        "*", "?", "", "caf?", "caf*", "*é*", "*e*", "c*e", "S*t", "*😀*", "?????", "\\*", "a\\*b", "*ß*", "東*", "*ss*",
        "?af?", "*A*", "*_*", "%", "?*?", "*\u{301}", "a?c", "*ffi*",
    ]
    static let regexes: [String] = [
        ".*", "caf.", "(?i)swift.*", "[a-z]+", ".*é.*", "\\p{Han}+", ".*\\d.*", "..", "S.*", "a|ab", "(é|e\u{301}).*",
        "[^a-z]*", ".", "\\Qa*b", "x_y%z", "ǅ|ǆ", ".*ss.*",
    ]
    static let integers: [Int64] = [-3, -1, 0, 1, 2, 3, 5, 8]
    static let doubles: [Double] = [-2.5, -1, 0, 0.5, 1, 1.5, 2, 3.75, 1e3]
    static let dates: [Date] = (0..<6).map { Date(timeIntervalSince1970: 1_700_000_000 + Double($0) * 3600.5) }
    static let blobs: [Data] = [Data([1, 2]), Data([1]), Data(), Data([0xFF])]

    /// Key paths usable from each root, by what they compare as.
    enum PathKind: Equatable {
        case string, number, bool, date, data
        case relationship(String)
    }

    struct Path {
        var keyPath: String
        var kind: PathKind
        var toMany: Bool
    }

    static let paths: [String: [Path]] = [
        "FeedItem": [
            Path(keyPath: "title", kind: .string, toMany: false), Path(keyPath: "author", kind: .string, toMany: false),
            Path(keyPath: "count", kind: .number, toMany: false), Path(keyPath: "rating", kind: .number, toMany: false),
            Path(keyPath: "read", kind: .bool, toMany: false), Path(keyPath: "published", kind: .date, toMany: false),
            Path(keyPath: "server", kind: .relationship("Server"), toMany: false),
            Path(keyPath: "server.title", kind: .string, toMany: false),
            Path(keyPath: "server.rank", kind: .number, toMany: false),
            Path(keyPath: "server.score", kind: .number, toMany: false),
            Path(keyPath: "server.active", kind: .bool, toMany: false),
            Path(keyPath: "server.created", kind: .date, toMany: false),
            Path(keyPath: "server.icon", kind: .data, toMany: false),
            Path(keyPath: "server.feedItems.@count", kind: .number, toMany: false),
            Path(keyPath: "server.profile", kind: .relationship("Profile"), toMany: false),
            Path(keyPath: "server.profile.name", kind: .string, toMany: false),
            Path(keyPath: "server.profile.level", kind: .number, toMany: false),
        ],
        "Server": [
            Path(keyPath: "title", kind: .string, toMany: false), Path(keyPath: "url", kind: .string, toMany: false),
            Path(keyPath: "rank", kind: .number, toMany: false), Path(keyPath: "score", kind: .number, toMany: false),
            Path(keyPath: "active", kind: .bool, toMany: false), Path(keyPath: "created", kind: .date, toMany: false),
            Path(keyPath: "icon", kind: .data, toMany: false),
            Path(keyPath: "profile", kind: .relationship("Profile"), toMany: false),
            Path(keyPath: "feedItems", kind: .relationship("FeedItem"), toMany: true),
            Path(keyPath: "profile.name", kind: .string, toMany: false),
            Path(keyPath: "profile.level", kind: .number, toMany: false),
            Path(keyPath: "feedItems.@count", kind: .number, toMany: false),
            Path(keyPath: "feedItems.title", kind: .string, toMany: true),
            Path(keyPath: "feedItems.author", kind: .string, toMany: true),
            Path(keyPath: "feedItems.count", kind: .number, toMany: true),
            Path(keyPath: "feedItems.rating", kind: .number, toMany: true),
            Path(keyPath: "feedItems.read", kind: .bool, toMany: true),
            Path(keyPath: "feedItems.published", kind: .date, toMany: true),
            // To-ones after the to-many, some nil.
            Path(keyPath: "feedItems.server.profile.name", kind: .string, toMany: true),
            Path(keyPath: "feedItems.server.profile", kind: .relationship("Profile"), toMany: true),
        ],
        "Profile": [
            Path(keyPath: "name", kind: .string, toMany: false), Path(keyPath: "level", kind: .number, toMany: false),
            Path(keyPath: "server", kind: .relationship("Server"), toMany: false),
            Path(keyPath: "server.title", kind: .string, toMany: false),
            Path(keyPath: "server.rank", kind: .number, toMany: false),
            Path(keyPath: "server.feedItems", kind: .relationship("FeedItem"), toMany: true),
            Path(keyPath: "server.feedItems.@count", kind: .number, toMany: false),
            Path(keyPath: "server.feedItems.title", kind: .string, toMany: true),
            Path(keyPath: "server.feedItems.read", kind: .bool, toMany: true),
            Path(keyPath: "server.feedItems.count", kind: .number, toMany: true),
        ],
    ]

    // MARK: Random data

    struct Dataset {
        var objects: [String: [TestObject]]
    }

    static func randomString(_ g: inout PredicateRandomGenerator) -> Value {
        switch Int.random(in: 0..<10, using: &g) {
        case 0, 1: return .null
        case 2, 3: return .string(strings.randomElement(using: &g)! + strings.randomElement(using: &g)!)
        default: return .string(strings.randomElement(using: &g)!)
        }
    }

    static func maybe(_ g: inout PredicateRandomGenerator, _ value: Value) -> Value {
        Int.random(in: 0..<6, using: &g) == 0 ? .null : value
    }

    static func makeDataset(_ g: inout PredicateRandomGenerator, in db: Database) throws -> Dataset {
        let model = PredicateTestModel.model
        let serverEntity = model.entityIfPresent(named: "Server")!
        let itemEntity = model.entityIfPresent(named: "FeedItem")!
        let profileEntity = model.entityIfPresent(named: "Profile")!
        var servers: [TestObject] = []
        for pk in 1...24 {
            let s = TestObject(serverEntity, primaryKey: Int64(pk))
            s.values = [
                "title": randomString(&g), "url": randomString(&g),
                "rank": maybe(&g, .integer(integers.randomElement(using: &g)!)),
                "score": maybe(&g, .double(doubles.randomElement(using: &g)!)),
                "active": maybe(&g, .bool(Bool.random(using: &g))),
                "created": maybe(&g, .date(dates.randomElement(using: &g)!)),
                "icon": maybe(&g, .data(blobs.randomElement(using: &g)!)),
            ]
            servers.append(s)
            try insert(s, columns: [:], in: db)
        }
        var items: [TestObject] = []
        for pk in 1...120 {
            let item = TestObject(itemEntity, primaryKey: Int64(pk))
            item.values = [
                "title": randomString(&g), "author": randomString(&g),
                "count": maybe(&g, .integer(integers.randomElement(using: &g)!)),
                "rating": maybe(&g, .double(doubles.randomElement(using: &g)!)),
                "read": maybe(&g, .bool(Bool.random(using: &g))),
                "published": maybe(&g, .date(dates.randomElement(using: &g)!)),
            ]
            // Most items belong to the first servers, so some servers have none.
            var fk: Value = .null
            if Int.random(in: 0..<8, using: &g) != 0 {
                let server = servers[Int.random(in: 0..<18, using: &g)]
                item.toOne["server"] = server
                server.toMany["feedItems", default: []].append(item)
                fk = .integer(server.primaryKey)
            }
            items.append(item)
            try insert(item, columns: ["server": fk], in: db)
        }
        var profiles: [TestObject] = []
        var unowned = servers.shuffled(using: &g)
        for pk in 1...14 {
            let profile = TestObject(profileEntity, primaryKey: Int64(pk))
            profile.values = [
                "name": randomString(&g), "level": maybe(&g, .integer(integers.randomElement(using: &g)!)),
            ]
            var fk: Value = .null
            if pk % 5 != 0, let server = unowned.popLast() {
                profile.toOne["server"] = server
                server.toOne["profile"] = profile
                fk = .integer(server.primaryKey)
            }
            profiles.append(profile)
            try insert(profile, columns: ["server": fk], in: db)
        }
        return Dataset(objects: ["Server": servers, "FeedItem": items, "Profile": profiles])
    }

    static func insert(_ object: TestObject, columns: [String: Value], in db: Database) throws {
        var names = ["Z_PK"]
        var values: [DatabaseValue] = [object.primaryKey.databaseValue]
        for a in object.entity.attributes where !a.isTransient {
            names.append(a.name)
            values.append((object.values[a.name] ?? .null).databaseValue)
        }
        for (name, value) in columns.sorted(by: { $0.key < $1.key }) {
            names.append(name)
            values.append(value.databaseValue)
        }
        let sql =
            "INSERT INTO \"\(object.entity.tableName)\" (\(names.map { "\"\($0)\"" }.joined(separator: ", "))) VALUES (\(names.map { _ in "?" }.joined(separator: ", ")))"
        try db.execute(sql: sql, arguments: StatementArguments(values))
    }

    // MARK: Random predicates

    static func constant(for kind: PathKind, _ g: inout PredicateRandomGenerator) -> Value {
        if Int.random(in: 0..<12, using: &g) == 0 { return .null }
        switch kind {
        case .string: return .string(strings.randomElement(using: &g)!)
        case .number:
            return Bool.random(using: &g)
                ? .integer(integers.randomElement(using: &g)!) : .double(doubles.randomElement(using: &g)!)
        case .bool:
            switch Int.random(in: 0..<4, using: &g) {
            case 0: return .integer(Int64.random(in: 0...1, using: &g))
            default: return .bool(Bool.random(using: &g))
            }
        case .date:
            return Int.random(in: 0..<5, using: &g) == 0
                ? .double(dates.randomElement(using: &g)!.timeIntervalSince1970)
                : .date(dates.randomElement(using: &g)!)
        case .data: return .data(blobs.randomElement(using: &g)!)
        case .relationship: return .null
        }
    }

    /// nil or a reference to an object of `entity`: stored, missing, or unsaved (negative).
    static func reference(for kind: PathKind, _ g: inout PredicateRandomGenerator) -> PredicateOperand {
        guard case .relationship(let entity) = kind, Int.random(in: 0..<4, using: &g) != 0 else { return .constant(.null) }
        let count: Int64 = entity == "Server" ? 24 : entity == "FeedItem" ? 120 : 14
        return .objectReference(entity: entity, rawValue: Int64.random(in: -2...(count + 2), using: &g))
    }

    static func randomComparison(root: String, _ g: inout PredicateRandomGenerator) -> ObjectPredicate {
        let path = paths[root]!.randomElement(using: &g)!
        if path.toMany, path.kind.isRelationship, Int.random(in: 0..<4, using: &g) == 0 {
            // `feedItems CONTAINS %@`: collection membership.
            return .comparison(.keyPath(path.keyPath), .contains, reference(for: path.kind, &g))
        }
        let modifier: ComparisonModifier =
            path.toMany ? [.any, .all, .none].randomElement(using: &g)! : .direct
        let options: ComparisonOptions =
            path.kind == .string
            ? [[], [], .caseInsensitive, .diacriticInsensitive, [.caseInsensitive, .diacriticInsensitive]]
                .randomElement(using: &g)! : []
        var ops: [ComparisonOperator]
        switch path.kind {
        case .string: ops = ComparisonOperator.allCases + [.contains, .like, .equalTo]
        case .number, .date:
            ops = [
                .equalTo, .notEqualTo, .lessThan, .lessThanOrEqualTo, .greaterThan,
                .greaterThanOrEqualTo, .between, .in,
            ]
        case .bool, .data: ops = [.equalTo, .notEqualTo, .in]
        case .relationship: ops = [.equalTo, .notEqualTo, .in]
        }
        let op = ops.randomElement(using: &g)!
        let right: PredicateOperand
        switch op {
        case .in where path.kind.isRelationship:
            right = .aggregate((0..<Int.random(in: 0...3, using: &g)).map { _ in reference(for: path.kind, &g) })
        case .equalTo where path.kind.isRelationship, .notEqualTo where path.kind.isRelationship:
            right = reference(for: path.kind, &g)
        case .in:
            right = .aggregate(
                (0..<Int.random(in: 0...4, using: &g)).map { _ in .constant(constant(for: path.kind, &g)) })
        case .between:
            right = .aggregate([.constant(constant(for: path.kind, &g)), .constant(constant(for: path.kind, &g))])
        case .like:
            right = .constant(.string(likePatterns.randomElement(using: &g)!))
        case .matches:
            right = .constant(.string(regexes.randomElement(using: &g)!))
        default:
            // Sometimes another key path of the same kind, from the root.
            let peers = paths[root]!.filter { $0.kind == path.kind && !$0.toMany && !$0.kind.isRelationship }
            if !peers.isEmpty, Int.random(in: 0..<5, using: &g) == 0 {
                right = .keyPath(peers.randomElement(using: &g)!.keyPath)
            } else {
                right = .constant(constant(for: path.kind, &g))
            }
        }
        // Constant on the left, key path on the right.
        if !path.toMany, case .constant = right, !op.isCollectionOperator, op != .matches, Int.random(in: 0..<8, using: &g) == 0 {
            return .comparison(right, op, .keyPath(path.keyPath), options: options)
        }
        return .comparison(.keyPath(path.keyPath), op, right, options: options, modifier: modifier)
    }

    static func randomPredicate(root: String, depth: Int, _ g: inout PredicateRandomGenerator) -> ObjectPredicate {
        let choice = depth <= 0 ? 0 : Int.random(in: 0..<10, using: &g)
        switch choice {
        case 0...4: return randomComparison(root: root, &g)
        case 5, 6:
            return .and((0..<Int.random(in: 2...3, using: &g)).map { _ in randomPredicate(root: root, depth: depth - 1, &g) })
        case 7, 8:
            return .or((0..<Int.random(in: 2...3, using: &g)).map { _ in randomPredicate(root: root, depth: depth - 1, &g) })
        default:
            return Int.random(in: 0..<8, using: &g) == 0
                ? (Bool.random(using: &g) ? .true : .false) : !randomPredicate(root: root, depth: depth - 1, &g)
        }
    }

    @Test("SQL and memory select the same objects for random predicates")
    func differential() throws {
        let environment = ProcessInfo.processInfo.environment
        let seed = environment["PREDICATE_SEED"].flatMap { UInt64($0) } ?? 20_261_122
        let count = environment["PREDICATE_COUNT"].flatMap { Int($0) } ?? 3000
        print("ObjectPredicate differential test: seed \(seed), \(count) predicates (PREDICATE_SEED=\(seed) to replay)")
        var g = PredicateRandomGenerator(seed: seed)
        let queue = try PredicateTestModel.makeDatabase()
        let dataset = try queue.write { db in try Self.makeDataset(&g, in: db) }
        var failures = 0
        var nonTrivial = 0
        try queue.read { db in
            for n in 0..<count {
                let root = ["Server", "FeedItem", "Profile"][n % 3]
                let entity = PredicateTestModel.entity(root)
                let predicate = Self.randomPredicate(root: root, depth: Int.random(in: 0...3, using: &g), &g)
                let reparsed = try ObjectPredicate(format: predicate.predicateFormat)
                if reparsed != predicate {
                    Issue.record("seed \(seed) #\(n): round trip changed \(predicate) into \(reparsed)")
                    failures += 1
                }
                let objects = dataset.objects[root]!
                let inMemory = Set(try objects.filter { try predicate.evaluate(with: $0) }.map(\.primaryKey))
                let inSQL = try sqlMatches(predicate, entity: entity, in: db)
                if !inMemory.isEmpty && inMemory.count < objects.count { nonTrivial += 1 }
                if inMemory != inSQL {
                    failures += 1
                    let fragment = try predicate.sqlExpression(for: entity, in: PredicateTestModel.model, alias: "t0")
                    let onlySQL = inSQL.subtracting(inMemory).sorted().prefix(5)
                    let onlyMemory = inMemory.subtracting(inSQL).sorted().prefix(5)
                    let sample = objects.filter { onlySQL.contains($0.primaryKey) || onlyMemory.contains($0.primaryKey) }
                        .prefix(2).map(\.description)
                    Issue.record(
                        """
                        seed \(seed) #\(n) on \(root): \(predicate)
                        SQL: \(fragment.sql) \(fragment.arguments)
                        only SQL: \(Array(onlySQL)) only memory: \(Array(onlyMemory))
                        e.g. \(sample)
                        """)
                }
                if failures >= 5 { break }
            }
        }
        // The generator must produce predicates that discriminate, or the test proves nothing.
        #expect(nonTrivial > count / 4, "only \(nonTrivial) of \(count) predicates selected a proper subset")
    }
}

extension PredicateDifferentialTests.PathKind {
    var isRelationship: Bool {
        if case .relationship = self { return true }
        return false
    }
}

extension ComparisonOperator {
    var isCollectionOperator: Bool { self == .in || self == .between }
}
