// zeader-bench fts: what a full-text index costs the inserts that keep it (its triggers),
// and what a search through it costs.
import Foundation
import ObjectGraph

final class BenchDocument: ManagedObject {
    @Managed("title") var title: String?
    @Managed("author") var author: String?
    @Managed("summary") var summary: String?
    @Managed("content") var content: String?
    @Managed("read") var read: Bool
}

func documentModel(index: [String]?) -> ManagedObjectModel {
    try! ManagedObjectModel(
        name: "BenchDocuments", version: 1,
        entities: [
            EntityDescription(
                "Document", managedClass: BenchDocument.self,
                attributes: [
                    .string("title"), .string("author"), .string("summary"), .string("content"),
                    .bool("read", defaultValue: false),
                ],
                fullTextIndex: index.map { FullTextIndexDescription(attributes: $0) })
        ])
}

/// Deterministic pseudo-text: words drawn from a fixed vocabulary.
struct TextGenerator {
    var state: UInt64 = 0x9E37_79B9_7F4A_7C15
    let vocabulary: [String] = (0..<4000).map { n in
        let syllables = ["ka", "lo", "mi", "ne", "su", "ta", "ri", "po", "ve", "zu", "é", "ch"]
        var word = ""
        var x = n &* 2_654_435_761
        for _ in 0..<(2 + n % 3) {
            word += syllables[x % syllables.count]
            x /= syllables.count
        }
        return word
    }

    mutating func next() -> Int {
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        return Int(state % UInt64(Int.max))
    }

    mutating func words(_ count: Int) -> String {
        (0..<count).map { _ in vocabulary[next() % vocabulary.count] }.joined(separator: " ")
    }
}

func fullTextBenchmark(count: Int, batch: Int) throws {
    print(
        "Full-text index: \(count) documents (title 6 words, author 2, summary 40, content 200 as HTML) saved \(batch) per save")
    print("index".padding(toLength: 34, withPad: " ", startingAt: 0) + "insert wall    CPU     ratio   store size")
    var baseline = 0.0
    for (label, index) in [
        ("none", nil), ("title, author, summary", ["title", "author", "summary"]),
        ("title, author, summary, content", ["title", "author", "summary", "content"]),
    ] as [(String, [String]?)] {
        let url = tempStore("fts")
        defer { removeStore(url) }
        let container = try PersistentContainer(model: documentModel(index: index), store: .file(url))
        container.automaticallyMergesChangesIntoViewContext = false
        let ctx = container.newBackgroundContext(name: "bench")
        var generator = TextGenerator()
        let (_, timing) = try measure {
            try ctx.performAndWait { () throws in
                for i in 0..<count {
                    let document = ctx.insert(BenchDocument.self)
                    document.title = generator.words(6)
                    document.author = generator.words(2)
                    document.summary = generator.words(40)
                    document.content = "<p>" + generator.words(200) + "</p>"
                    if (i + 1) % batch == 0 {
                        try ctx.save()
                        ctx.reset()
                    }
                }
                try ctx.save()
                ctx.reset()
            }
        }
        if index == nil { baseline = timing.cpu }
        let size =
            ((try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0)
            + ((try? FileManager.default.attributesOfItem(atPath: url.path + "-wal")[.size] as? Int) ?? 0)
        print(
            label.padding(toLength: 34, withPad: " ", startingAt: 0)
                + String(
                    format: "%7.3f s %7.3f s  %5.2fx   %6.1f MB", timing.wall, timing.cpu, timing.cpu / max(baseline, 1e-9),
                    Double(size) / 1e6))
        // A mark-read pass must not touch the index (its trigger fires on indexed columns only).
        let (_, markRead) = try measure {
            try ctx.performAndWait { () throws in
                try ctx.execute(BatchUpdateRequest(entityName: "Document", propertiesToUpdate: ["read": .bool(true)]))
                    .changedCount
            }
        }
        guard let index else {
            print(String(format: "    mark all read (batch update): %.3f s", markRead.wall))
            continue
        }
        let query = generator.vocabulary[7] + " " + String(generator.vocabulary[11].prefix(3))
        let (hits, search) = try measure {
            try ctx.performAndWait { () throws in
                try ctx.fetch(FetchRequest<BenchDocument>(sortDescriptors: [.relevance], fetchLimit: 50).matching(query)).count
            }
        }
        let (all, countTiming) = try measure {
            try ctx.performAndWait { try ctx.count(for: FetchRequest<BenchDocument>().matching(query)) }
        }
        print(
            String(
                format:
                    "    mark all read (batch update): %.3f s; search \"%@\" (%@): best 50 of %d in %.4f s, counting them %.4f s",
                markRead.wall, query, index.joined(separator: ","), all, search.wall + Double(hits * 0), countTiming.wall))
    }
}
