// zeader-bench relationships, many-to-many part: cached members and prefetching of a
// many-to-many relationship (P posts, each paired with T of 100 tags), beside what they replace.
import Foundation
import ObjectGraph

final class BenchPost: ManagedObject {
    @Managed("title") var title: String?
    @ToMany("tags") var tags: [BenchTag]
}

final class BenchTag: ManagedObject {
    @Managed("name") var name: String?
    @ToMany("posts") var posts: [BenchPost]
}

let benchManyToManyModel = try! ManagedObjectModel(
    name: "BenchTags", version: 1,
    entities: [
        EntityDescription(
            "Post", managedClass: BenchPost.self, attributes: [.string("title")],
            relationships: [.toMany("tags", destination: "Tag", inverse: "posts")]),
        EntityDescription(
            "Tag", managedClass: BenchTag.self, attributes: [.string("name")],
            relationships: [.toMany("posts", destination: "Post", inverse: "tags")]),
    ])

func manyToManyBenchmark(posts: Int, tagsPerPost: Int) throws {
    let url = tempStore("many-to-many")
    defer { removeStore(url) }
    let container = try PersistentContainer(model: benchManyToManyModel, store: .file(url))
    let build = container.newBackgroundContext(name: "build")
    try build.performAndWait { () throws in
        let tags = (0..<100).map { n -> BenchTag in
            let tag = build.insert(BenchTag.self)
            tag.name = "tag \(n)"
            return tag
        }
        for p in 0..<posts {
            let post = build.insert(BenchPost.self)
            post.title = "Post \(p)"
            post.tags = (0..<tagsPerPost).map { tags[(p * 7 + $0 * 13) % tags.count] }
        }
        try build.save()
        build.reset()
    }
    print("many-to-many: \(posts) posts × \(tagsPerPost) tags; CPU time (wall time)")
    let context = container.newBackgroundContext(name: "bench")
    try context.performAndWait { () throws in
        let post = try context.fetch(FetchRequest<BenchPost>(fetchLimit: 1))[0]
        var total = 0
        let (_, uncached) = measure {
            for _ in 0..<1_000 {
                context.refresh(post, mergeChanges: false)
                total += post.tags.count
            }
        }
        let (_, cached) = measure { for _ in 0..<1_000 { total += post.tags.count } }
        precondition(total == 2_000 * tagsPerPost)
        print("one post's tags read 1,000 times:")
        printTiming("re-queried on every access (before)", uncached)
        printTiming("cached, invalidated by the bus (now)", cached)
    }
    print("every post's tags:")
    for prefetching in [false, true] {
        let ctx = container.newBackgroundContext(name: "prefetch")
        try ctx.performAndWait { () throws in
            var request = FetchRequest<BenchPost>()
            if prefetching { request.relationshipKeyPathsForPrefetching = ["tags"] }
            var count = 0
            let (_, t) = try measure { () throws in
                for post in try ctx.fetch(request) { count += post.tags.count }
            }
            precondition(count == posts * tagsPerPost)
            printTiming(prefetching ? "prefetched: one query (now)" : "one query per post (before)", t)
        }
    }
}
