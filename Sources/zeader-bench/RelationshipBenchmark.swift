// zeader-bench relationships: cached to-many contents, prefetching, batch faulting and
// dictionary results, each beside what it replaces, on S servers of I items each; then
// many-to-many caching and prefetching on 10·S posts of 10 tags (ManyToManyBenchmark.swift),
// and reads of an ordered one-to-many of I members (OrderedOneToManyBenchmark.swift).
import Foundation
import ObjectGraph

func relationshipBenchmark(servers: Int, itemsPerServer: Int) throws {
    let url = tempStore("relationships")
    defer { removeStore(url) }
    let container = try PersistentContainer(model: benchModel, store: .file(url))
    let build = container.newBackgroundContext(name: "build")
    try build.performAndWait { () throws in
        for s in 0..<servers {
            let server = build.insert(BenchServer.self)
            server.title = "Server \(s)"
            for i in 0..<itemsPerServer {
                let item = build.insert(BenchItem.self)
                item.guid = "\(s)-\(i)"
                item.title = "Item \(i)"
                item.score = Int64(i % 10)
                item.read = i % 3 == 0
                item.server = server
            }
            if (s + 1) % 20 == 0 {
                try build.save()
                build.reset()
            }
        }
        try build.save()
        build.reset()
    }
    print("\(servers) servers × \(itemsPerServer) items; CPU time (wall time)")
    let context = container.newBackgroundContext(name: "bench")
    try context.performAndWait { () throws in
        let server = try context.fetch(FetchRequest<BenchServer>(fetchLimit: 1))[0]
        let reads = 100
        // The old behaviour: every access queries the store (forced here with a refresh,
        // which drops the cache).
        var total = 0
        let (_, uncached) = measure {
            for _ in 0..<reads {
                context.refresh(server, mergeChanges: false)
                total += server.feedItems.count
            }
        }
        let (_, cached) = measure {
            for _ in 0..<reads { total += server.feedItems.count }
        }
        print("to-many reads of a \(itemsPerServer)-item relationship, \(reads) times:")
        printTiming("re-queried on every access (before)", uncached)
        printTiming("cached, invalidated by the bus (now)", cached)
        printTiming("  per cached read", cached, per: reads)
        precondition(total == 2 * reads * itemsPerServer)
    }

    print("every server's items (\(servers) servers):")
    for prefetching in [false, true] {
        let ctx = container.newBackgroundContext(name: "prefetch")
        try ctx.performAndWait { () throws in
            var request = FetchRequest<BenchServer>()
            if prefetching { request.relationshipKeyPathsForPrefetching = ["feedItems"] }
            var count = 0
            let (_, t) = try measure { () throws in
                for server in try ctx.fetch(request) { count += server.feedItems.count }
            }
            precondition(count == servers * itemsPerServer)
            printTiming(prefetching ? "prefetched: one query" : "one query per server", t)
        }
    }

    let total = servers * itemsPerServer
    print("reading the titles of all \(total) items:")
    for (label, faults, batch) in [
        ("loaded by the fetch", false, 0), ("faults, each fired alone", true, 0), ("faults, fired 500 at a time", true, 500),
    ] {
        let ctx = container.newBackgroundContext(name: "faults")
        try ctx.performAndWait { () throws in
            var request = FetchRequest<BenchItem>(fetchBatchSize: batch)
            request.returnsObjectsAsFaults = faults
            var length = 0
            let (_, t) = try measure { () throws in
                for item in try ctx.fetch(request) { length += item.title?.count ?? 0 }
            }
            precondition(length > 0)
            printTiming(label, t)
        }
    }

    print("unread count and total score per server:")
    let ctx = container.newBackgroundContext(name: "dictionaries")
    try ctx.performAndWait { () throws in
        var request = FetchRequest<BenchItem>(predicate: try ObjectPredicate(format: "read == NO"))
        request.propertiesToGroupBy = ["server"]
        request.propertiesToFetch = [.key("server"), .count(as: "unread"), .aggregate(.sum, of: "score", as: "score")]
        let (rows, grouped) = try measure { try ctx.fetchDictionaries(request) }
        precondition(rows.count == servers)
        printTiming("dictionary results, grouped in SQL", grouped)
        var plain = request
        plain.propertiesToGroupBy = []
        plain.propertiesToFetch = []
        let (sums, objects) = try measure { () throws in
            var sums: [ObjectID: (Int, Int64)] = [:]
            for item in try ctx.fetch(plain) {
                guard let id = item.server?.objectID else { continue }
                sums[id, default: (0, 0)].0 += 1
                sums[id, default: (0, 0)].1 += item.score
            }
            return sums
        }
        precondition(sums.count == servers)
        printTiming("objects fetched and summed in Swift", objects)
    }
    try manyToManyBenchmark(posts: servers * 10, tagsPerPost: 10)
    try orderedOneToManyBenchmark(members: itemsPerServer)
}
