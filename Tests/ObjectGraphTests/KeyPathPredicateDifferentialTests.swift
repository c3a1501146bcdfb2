import Foundation
import ObjectGraph
import Testing

/// Random key-path predicates and their format-string twins: the same tree, and the same
/// objects whether the fetch runs in SQL or the predicate is evaluated in memory. Set
/// `TYPED_PREDICATE_SEED` to replay a run and `TYPED_PREDICATE_COUNT` to try more.
@Suite("Key-path predicate differential (typed vs format, SQL vs memory)")
struct KeyPathPredicateDifferentialTests {
    /// A typed predicate with its format twin and the twin's arguments.
    struct Twin<Root: ManagedObject> {
        var typed: KeyPathPredicate<Root>
        var format: String
        var arguments: [(any PredicateArgument)?]
    }

    static let strings: [String?] = [nil, "", "a", "A", "é", "e", "Swift", "swift", "café", "CAFE", "naïve", "S*"]
    static let numbers: [Int64?] = [nil, -1, 0, 1, 2, 3]
    static let dates: [Date?] = [nil] + (0..<4).map { Date(timeIntervalSince1970: 1_700_000_000 + Double($0) * 3600) }
    static let options: [(ComparisonOptions, String)] = [
        ([], ""), (.caseInsensitive, "[c]"), (.diacriticInsensitive, "[d]"), ([.caseInsensitive, .diacriticInsensitive], "[cd]"),
    ]

    static func pick<T>(_ values: [T], _ g: inout PredicateRandomGenerator) -> T { values[Int(g.next() % UInt64(values.count))] }

    /// A comparison of `keyPath` (named `name` in the format language) with a random value.
    static func compare<Root, V: ValueConvertible & PredicateArgument>(
        _ keyPath: KeyPath<Root, V>, _ name: String, _ values: [V], _ g: inout PredicateRandomGenerator
    ) -> Twin<Root> {
        let value = pick(values, &g)
        let ops: [(String, (KeyPath<Root, V>, V) -> KeyPathPredicate<Root>)] = [
            ("==", { $0 == $1 }), ("!=", { $0 != $1 }), ("<", { $0 < $1 }), ("<=", { $0 <= $1 }), (">", { $0 > $1 }),
            (">=", { $0 >= $1 }),
        ]
        if g.next() % 7 == 0 {
            let members = [value, pick(values, &g)]
            return Twin(typed: keyPath.in(members), format: "%K IN %@", arguments: [name, members])
        }
        let (symbol, make) = pick(ops, &g)
        return Twin(typed: make(keyPath, value), format: "%K \(symbol) %@", arguments: [name, value])
    }

    /// A string operator on `keyPath` with random options.
    static func stringOperator<Root, V: StringValueConvertible>(
        _ keyPath: KeyPath<Root, V>, _ name: String, _ g: inout PredicateRandomGenerator
    ) -> Twin<Root> {
        let text = pick(strings, &g) ?? "a"
        let (options, suffix) = pick(Self.options, &g)
        switch g.next() % 4 {
        case 0:
            return Twin(
                typed: keyPath.contains(text, options: options), format: "%K CONTAINS\(suffix) %@", arguments: [name, text])
        case 1:
            return Twin(
                typed: keyPath.beginsWith(text, options: options), format: "%K BEGINSWITH\(suffix) %@", arguments: [name, text])
        case 2:
            return Twin(
                typed: keyPath.endsWith(text, options: options), format: "%K ENDSWITH\(suffix) %@", arguments: [name, text])
        default: return Twin(typed: keyPath.equals(text, options: options), format: "%K ==\(suffix) %@", arguments: [name, text])
        }
    }

    static func itemAtom(_ g: inout PredicateRandomGenerator) -> Twin<TypedItem> {
        switch g.next() % 14 {
        case 0: return compare(\TypedItem.title, "title", strings, &g)
        case 1: return compare(\TypedItem.server?.title, "server.title", strings, &g)
        case 2: return compare(\TypedItem.server?.profile?.name, "server.profile.name", strings, &g)
        case 3: return compare(\TypedItem.count, "count", numbers.compactMap { $0 }, &g)
        case 4: return compare(\TypedItem.server?.rank, "server.rank", numbers, &g)
        case 5: return compare(\TypedItem.server?.profile?.level, "server.profile.level", numbers, &g)
        case 6: return compare(\TypedItem.server?.items.count, "server.items.@count", numbers.map { $0.map(Int.init) }, &g)
        case 7: return compare(\TypedItem.read, "read", [true, false], &g)
        case 8: return compare(\TypedItem.server?.active, "server.active", [true, false, nil], &g)
        case 9: return compare(\TypedItem.published, "published", dates, &g)
        case 10: return compare(\TypedItem.server?.created, "server.created", dates, &g)
        case 11: return stringOperator(\TypedItem.title, "title", &g)
        case 12: return stringOperator(\TypedItem.server?.profile?.name, "server.profile.name", &g)
        default:
            let server: TypedServer? = nil
            return Twin(typed: \TypedItem.server == server, format: "server == nil", arguments: [])
        }
    }

    static func serverAtom(_ g: inout PredicateRandomGenerator) -> Twin<TypedServer> {
        let (modifier, word): (KeyPath<TypedServer, [TypedItem]>, String) = (
            \TypedServer.items, g.next() % 2 == 0 ? "ANY" : "ALL"
        )
        func quantified<V>(_ member: KeyPath<TypedItem, V>) -> QuantifiedKeyPath<TypedServer, V> {
            word == "ANY" ? modifier.any(member) : modifier.all(member)
        }
        switch g.next() % 8 {
        case 0: return compare(\TypedServer.title, "title", strings, &g)
        case 1: return compare(\TypedServer.items.count, "items.@count", numbers.compactMap { $0.map(Int.init) }, &g)
        case 2: return compare(\TypedServer.profile?.level, "profile.level", numbers, &g)
        case 3: return stringOperator(\TypedServer.title, "title", &g)
        case 4:
            let value = pick([true, false], &g)
            return Twin(typed: quantified(\.read) == value, format: "\(word) items.read == %@", arguments: [value])
        case 5:
            let value = pick(numbers.compactMap { $0 }, &g)
            return Twin(typed: quantified(\.count) > value, format: "\(word) items.count > %@", arguments: [value])
        case 6:
            let text = pick(strings, &g) ?? "a"
            let (options, suffix) = pick(Self.options, &g)
            return Twin(
                typed: quantified(\.title).contains(text, options: options), format: "\(word) items.title CONTAINS\(suffix) %@",
                arguments: [text])
        default:
            let value = pick(strings, &g)
            return Twin(
                typed: quantified(\.server?.profile?.name) == value, format: "\(word) items.server.profile.name == %@",
                arguments: [value])
        }
    }

    /// Random AND/OR/NOT over atoms, the format parenthesized as the tree is.
    static func random<Root>(
        depth: Int, _ g: inout PredicateRandomGenerator, atom: (inout PredicateRandomGenerator) -> Twin<Root>
    ) -> Twin<Root> {
        guard depth > 0, g.next() % 3 != 0 else { return atom(&g) }
        let a = random(depth: depth - 1, &g, atom: atom)
        switch g.next() % 3 {
        case 0: return Twin(typed: !a.typed, format: "NOT (\(a.format))", arguments: a.arguments)
        case 1:
            let b = random(depth: depth - 1, &g, atom: atom)
            return Twin(
                typed: a.typed && b.typed, format: "(\(a.format)) AND (\(b.format))", arguments: a.arguments + b.arguments)
        default:
            let b = random(depth: depth - 1, &g, atom: atom)
            return Twin(typed: a.typed || b.typed, format: "(\(a.format)) OR (\(b.format))", arguments: a.arguments + b.arguments)
        }
    }

    /// Servers with and without titles, profiles and items; items with and without servers.
    static func makeStore(_ g: inout PredicateRandomGenerator) throws -> PersistentContainer {
        let container = try PersistentContainer(model: TypedModel.model, store: .inMemory)
        let context = container.viewContext
        try context.performAndWait { () throws in
            var servers: [TypedServer] = []
            for _ in 0..<6 {
                let server = context.insert(TypedServer.self)
                server.title = pick(strings, &g)
                server.rank = pick(numbers, &g) ?? 0
                server.active = g.next() % 2 == 0
                server.created = pick(dates, &g)
                if g.next() % 3 != 0 {
                    let profile = context.insert(TypedProfile.self)
                    profile.name = pick(strings, &g)
                    profile.level = pick(numbers, &g) ?? 0
                    server.profile = profile
                }
                servers.append(server)
            }
            for _ in 0..<24 {
                let item = context.insert(TypedItem.self)
                item.title = pick(strings, &g)
                item.count = pick(numbers, &g) ?? 0
                item.read = g.next() % 2 == 0
                item.published = pick(dates, &g)
                item.server = g.next() % 5 == 0 ? nil : pick(servers, &g)
            }
            try context.save()
        }
        return container
    }

    /// The same tree as the twin, and the same objects from SQL and from memory.
    static func check<Root: ManagedObject>(
        _ twin: Twin<Root>, in container: PersistentContainer, label: String
    ) throws {
        let parsed = try ObjectPredicate(format: twin.format, argumentArray: twin.arguments)
        #expect(twin.typed.predicate == parsed, "\(label): \(twin.typed) vs \(parsed)")
        let context = container.newBackgroundContext()
        try context.performAndWait { () throws -> Void in
            let inSQL = Set(try context.fetch(FetchRequest<Root>(where: twin.typed)).map(\.objectID))
            let twinInSQL = Set(try context.fetch(FetchRequest<Root>(predicate: parsed)).map(\.objectID))
            let inMemory = Set(
                try context.fetch(FetchRequest<Root>()).filter { try twin.typed.predicate.evaluate(with: $0) }.map(\.objectID))
            #expect(inSQL == twinInSQL, "\(label): \(twin.typed)")
            #expect(inSQL == inMemory, "\(label): \(twin.typed) SQL \(inSQL.count), memory \(inMemory.count)")
        }
    }

    @Test("random typed predicates equal their format twins in tree, SQL and memory")
    func differential() throws {
        let environment = ProcessInfo.processInfo.environment
        let seed = environment["TYPED_PREDICATE_SEED"].flatMap { UInt64($0) } ?? 20_261_206
        let count = environment["TYPED_PREDICATE_COUNT"].flatMap { Int($0) } ?? 300
        var g = PredicateRandomGenerator(seed: seed)
        let container = try Self.makeStore(&g)
        for n in 0..<count {
            try Self.check(Self.random(depth: 3, &g, atom: Self.itemAtom), in: container, label: "seed \(seed) #\(n) item")
            try Self.check(Self.random(depth: 3, &g, atom: Self.serverAtom), in: container, label: "seed \(seed) #\(n) server")
        }
    }
}
