// zeader-bench smart-counts: the smart feeds' kept counts on a store (issue 18, item 2).
//
//   zeader-bench smart-counts PATH [CHANGES]   on a store made by `scale-build`: the reader's
//                                              count of its smart feeds (the two stored ones and
//                                              `title CONTAINS[cd] "kernel"`) the first time
//                                              (counted and kept), again with nothing changed,
//                                              after CHANGES (1,000) items marked unread, and
//                                              the same once the store is opened again (the
//                                              reader's next start); then a count over every item
//                                              as the reader did before, and the kept data's bytes.
import Foundation
import ObjectGraph
import ZeaderKit

func smartCountsBenchmark(path: String, changes: Int) throws {
    let url = URL(fileURLWithPath: path)
    let formats = ["flagged == YES", "read == NO AND flagged == YES", #"title CONTAINS[cd] "kernel""#]
    func timed(_ store: ZeaderStore, _ label: String) throws {
        let context = store.container.viewContext
        let began = now()
        let predicates = try formats.flatMap { format -> [ObjectPredicate] in
            let p = try ZeaderModel.itemPredicate(format: format)
            return [p, p && (try ObjectPredicate(format: "read == NO"))]
        }
        let kept = try context.performAndWait { () throws in
            try context.keptCounts(
                of: "FeedItem", matching: predicates, timeLimit: UserPredicate.timeLimit, forgettingOthers: true)
        }
        let counts = kept.counts.map { (try? $0.get()).map(String.init) ?? "error" }.joined(separator: " ")
        print(
            String(
                format: "%@: %.1f ms (counted whole: %d, changed items read: %d; counts %@)", label, (now() - began) * 1000,
                kept.fullCounts, kept.changedObjects, counts))
    }
    var store = try ZeaderStore.open(at: url)
    try timed(store, "first call (count and keep)")
    try timed(store, "again, nothing changed")
    let context = store.container.viewContext
    try context.performAndWait { () throws in
        let read = try context.fetchObjectIDs(
            FetchRequest<FeedItem>(predicate: try ObjectPredicate(format: "read == YES"), fetchLimit: changes))
        try ItemMarking.setRead(read, false, in: context)
    }
    try timed(store, "after \(changes) items marked unread")
    try context.performAndWait { () throws in
        let unread = try context.fetchObjectIDs(
            FetchRequest<FeedItem>(predicate: try ObjectPredicate(format: "read == NO"), fetchLimit: changes))
        try ItemMarking.setRead(unread, true, in: context)
    }
    try store.container.store.close()
    store = try ZeaderStore.open(at: url)
    try timed(store, "next start after \(changes) items marked read")
    let began = now()
    let whole = try store.container.viewContext.performAndWait { () throws in
        try formats.map { format -> String in
            let p = try ZeaderModel.itemPredicate(format: format)
            let c = store.container.viewContext
            let total = try c.count(for: FetchRequest<FeedItem>(predicate: p))
            let unread = try c.count(
                for: FetchRequest<FeedItem>(predicate: p && (try ObjectPredicate(format: "read == NO"))))
            return "\(total) \(unread)"
        }
    }
    print(
        String(
            format: "counted over every item (before kept counts): %.1f ms (%@)", (now() - began) * 1000,
            whole.joined(separator: " ")))
    let bytes = try store.container.store.databaseReader.read { db in
        try Int.fetchOne(db, sql: "SELECT COALESCE(SUM(pgsize), 0) FROM dbstat WHERE name LIKE 'Z\\_KEPT%' ESCAPE '\\'") ?? 0
    }
    let items = try store.container.viewContext.performAndWait { try FeedItem.count(in: store.container.viewContext) }
    print("kept data: \(bytes) bytes (\(bytes / max(1, items)) B per item of \(items))")
    try store.container.store.close()
}
