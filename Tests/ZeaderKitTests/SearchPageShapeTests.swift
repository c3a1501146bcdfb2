import Foundation
import ObjectGraph
import Testing

@testable import ZeaderKit

/// A page of search results (a limit) is read through a window of recent matches and with
/// prefixes expanded into the index's words (SearchWindow.swift, PrefixExpansion.swift): it
/// must be the start of the whole result list, exact titles first, for common words,
/// prefixes, rare words, phrases and filters alike.
@Suite struct SearchPageShapeTests {
    /// 3,000 items over three feeds: "kernel" in every title, "kernels" in every 7th,
    /// "kernelspace" in every 11th, a rare word in every 150th, the phrase "linux release"
    /// in every 5th summary; dates rise with the store order with jitter, and the last 300
    /// stored are backdated (an old archive imported late); a few titles are exactly "kernel".
    func store() throws -> ZeaderStore {
        let store = try ZeaderStore.inMemory()
        let context = store.container.viewContext
        try context.performAndWait {
            let servers = (0..<3).map { n -> Server in
                let server = context.insert(Server.self)
                server.url = "https://feed\(n).example/rss"
                return server
            }
            for n in 0..<3_000 {
                let item = context.insert(FeedItem.self)
                item.guid = "item-\(n)"
                var words = ["kernel", "news", "\(n)"]
                if n % 7 == 0 { words.append("kernels") }
                if n % 11 == 0 { words.append("kernelspace") }
                if n % 150 == 0 { words.append("dexdexpar") }
                item.title = n % 400 == 3 ? "Kernel" : words.joined(separator: " ")
                item.summary = n % 5 == 0 ? "the linux release of week \(n)" : "release notes, linux inside"
                let day = n >= 2_700 ? n - 2_000 : n
                item.sortDate = Date(timeIntervalSince1970: Double(day * 100 + (n * 7919) % 450))
                item.read = n % 3 == 0
                item.server = servers[n % 3]
            }
            try context.save()
        }
        return store
    }

    @Test func aPageIsTheStartOfTheWholeList() throws {
        let store = try store()
        let context = store.container.viewContext
        try context.performAndWait {
            let unread = try ObjectPredicate(format: "read == NO")
            for text in ["kernel", "kern", "kernels", "ker new", "dexdexpar", "dex", "\"linux release\"", "lin rel", "nowhere"] {
                for filter in [nil, unread] {
                    let all = try ItemSearch.itemIDs(text, filter: filter, in: context)
                    for limit in [1, 50, 120] {
                        let page = try ItemSearch.itemIDs(text, filter: filter, limit: limit, in: context)
                        #expect(page == Array(all.prefix(limit)), "\(text) \(String(describing: filter)) \(limit)")
                        let items = try ItemSearch.items(text, filter: filter, limit: limit, in: context)
                        #expect(items.map(\.objectID) == page, "\(text) \(limit)")
                    }
                    context.reset()
                }
            }
            // What the pages hold: exact titles first, then newest first.
            let kernel = try ItemSearch.items("kernel", limit: 50, in: context)
            // Items 1203, 1603, 2003, 2403 and 2803 are among the 2,000 most recent matches
            // (``ItemSearch/exactTitleWindow``); 3, 403 and 803 are not.
            #expect(kernel.prefix(5).allSatisfy { $0.title == "Kernel" })
            #expect(kernel.dropFirst(5).allSatisfy { $0.title != "Kernel" })
            #expect(kernel[5].sortDate! > kernel[6].sortDate!)
            #expect(try ItemSearch.itemIDs("dexdexpar", in: context).count == 20)
        }
    }
}
