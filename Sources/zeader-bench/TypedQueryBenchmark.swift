// zeader-bench typed-query: a fetch written with key paths beside its format-string twin.
//
//   zeader-bench typed-query [N [Q [ROUNDS]]]   N (20,000) items over 50 servers; Q (500) fetches
//                                              of each form (the predicate built for every fetch,
//                                              as an application does), best of ROUNDS (5) rounds;
//                                              then building the predicate alone.
import Foundation
import ObjectGraph

func typedQueryBenchmark(count: Int, queries: Int, rounds: Int) throws {
    let url = tempStore("typed-query")
    let container = try PersistentContainer(model: benchModel, store: .file(url))
    let context = container.newBackgroundContext(name: "bench")
    try context.performAndWait { () throws in
        var servers: [BenchServer] = []
        for s in 0..<50 {
            let server = context.insert(BenchServer.self)
            server.title = "server \(s)"
            servers.append(server)
        }
        for i in 0..<count {
            let item = context.insert(BenchItem.self)
            item.guid = "guid-\(i)"
            item.title = "item \(i)"
            item.published = Date(timeIntervalSince1970: 1_700_000_000 + Double(i))
            item.read = i % 3 == 0
            item.score = Int64(i % 100)
            item.server = servers[i % servers.count]
        }
        try context.save()
        context.reset()
    }
    print("typed vs format-string fetch: \(count) items, \(queries) fetches of up to 50 rows each, best of \(rounds)")
    func formatFetch(_ q: Int) throws -> Int {
        let predicate = try ObjectPredicate(
            format: "read == NO AND score > %@ AND server.title BEGINSWITH %@", Int64(q % 90), "server \(q % 5)")
        let request = FetchRequest<BenchItem>(
            predicate: predicate, sortDescriptors: [ObjectSortDescriptor("published", ascending: false)], fetchLimit: 50)
        return try context.fetch(request).count
    }
    func typedFetch(_ q: Int) throws -> Int {
        let score = Int64(q % 90)
        let request = FetchRequest<BenchItem>(
            where: \.read == false && \.score > score && (\BenchItem.server?.title).beginsWith("server \(q % 5)"),
            sortDescriptors: [ObjectSortDescriptor(\BenchItem.published, ascending: false)], fetchLimit: 50)
        return try context.fetch(request).count
    }
    func best(_ label: String, _ body: (Int) throws -> Int) throws {
        var fastest = Timing(wall: .infinity, cpu: .infinity)
        var rows = 0
        for _ in 0..<rounds {
            let (n, t) = try context.performAndWait { () throws in
                try measure { try (0..<queries).reduce(0) { $0 + (try body($1)) } }
            }
            rows = n
            if t.cpu < fastest.cpu { fastest = t }
        }
        printTiming("\(label) (\(rows) rows)", fastest, per: queries, unit: " per fetch")
    }
    for _ in 0..<2 {
        try best("format string", formatFetch)
        try best("key paths", typedFetch)
    }
    let builds = queries * 100
    let (_, parse) = try measure {
        try (0..<builds).reduce(0) {
            let p = try ObjectPredicate(format: "read == NO AND score > %@", Int64($1 % 90))
            return $0 + (p.node == .constant(true) ? 0 : 1)
        }
    }
    printTiming("building `read == NO AND score > %@` from a format", parse, per: builds, unit: " each")
    let (_, typed) = measure {
        (0..<builds).reduce(0) { n, q in
            let p: KeyPathPredicate<BenchItem> = \.read == false && \.score > Int64(q % 90)
            return n + (p.predicate.node == .constant(true) ? 0 : 1)
        }
    }
    printTiming("building it from key paths", typed, per: builds, unit: " each")
    try container.store.close()
    for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: url.path + suffix) }
}
