import Foundation
import ObjectGraph
import Testing

@testable import ZeaderKit

/// Quoted phrases and exact-title-first ranking in ``ItemSearch``, through the full-text
/// index and (for unsaved items) in memory.
@Suite struct ItemSearchPhraseRankingTests {
    private let index = ItemSearchIndexTests()

    @Test func quotedWordsMustFollowOneAnother() throws {
        let store = try index.store(titles: ["Swift release notes", "Notes on a Swift release", "Release of Swift"])
        #expect(try index.titles("\"swift release\"", store) == ["Notes on a Swift release", "Swift release notes"])
        #expect(try index.titles("\"release swift\"", store).isEmpty)
        #expect(try index.titles("\"release of\" swift", store) == ["Release of Swift"])
        #expect(try index.titles("\"swi rel\"", store).isEmpty)  // phrase words are whole words
        #expect(try index.titles("\"Swift release", store).count == 2)  // an unclosed quote runs to the end
        #expect(try index.titles("\"\" swift", store).count == 3)  // an empty phrase is nothing
    }

    @Test func exactTitleMatchComesFirst() throws {
        // Stored oldest first: "Linux" is the oldest, so newest-first alone would put it last.
        let store = try index.store(titles: ["Linux", "Swift on Linux", "Linux tips and tricks"])
        #expect(try index.titles("linux", store) == ["Linux", "Linux tips and tricks", "Swift on Linux"])
        #expect(try index.titles("\"swift on linux\"", store) == ["Swift on Linux"])
        let context = store.container.viewContext
        let limited = try context.performAndWait {
            try ItemSearch.items("LINUX", limit: 2, in: context).map { $0.title ?? "" }
        }
        #expect(limited == ["Linux", "Linux tips and tricks"])
        let filtered = try context.performAndWait {
            try ItemSearch.itemIDs("linux", filter: try ObjectPredicate(format: "title != 'Linux'"), in: context).count
        }
        #expect(filtered == 2)
    }

    @Test func unsavedItemsMatchPhrasesTheSameWay() throws {
        let store = try index.store(titles: ["saved"])
        let context = store.container.viewContext
        let found = try context.performAndWait {
            let item = context.insert(FeedItem.self)
            item.guid = "new"
            item.title = "Été chaud à Paris"
            item.server = try context.fetch(FetchRequest<Server>()).first
            return (
                try ItemSearch.itemIDs("\"ete chaud\"", in: context).count,
                try ItemSearch.itemIDs("\"chaud ete\"", in: context).count
            )
        }
        #expect(found == (1, 0))
    }

    @Test func matchExpressionQuotesPhrasesAndPrefixesWords() {
        #expect(FullTextSearch.matchExpression(for: "\"new release\" swift") == "\"new release\" AND \"swift\"*")
        #expect(FullTextSearch.matchExpression(for: "\"\"") == nil)
        #expect(FullTextSearch.matches("\"ete chaud\"", in: ["un été chaud"]))
        #expect(!FullTextSearch.matches("\"chaud un\"", in: ["un été", "chaud"]))
    }
}

/// `zeader items --search … --feed URL`: the scope, phrases and ranking together.
@Suite struct ItemQuerySearchScopeTests {
    @Test func searchWithinOneFeedOnTheCommandLine() throws {
        let store = try ZeaderStore.inMemory()
        let context = store.container.viewContext
        try context.performAndWait {
            for (feed, titles) in [("https://a.example/feed", ["Linux", "Linux news"]), ("https://b.example/feed", ["Linux"])] {
                let server = context.insert(Server.self)
                server.url = feed
                for (n, title) in titles.enumerated() {
                    let item = context.insert(FeedItem.self)
                    item.guid = feed + title
                    item.title = title
                    item.sortDate = Date(timeIntervalSince1970: Double(n) * 1000)
                    item.server = server
                }
            }
            try context.save()
        }
        let library = FeedLibrary(store: store)
        let all = try library.items(ItemQuery(search: "linux"))
        #expect(all.count == 3)
        #expect(all.prefix(2).allSatisfy { $0.title == "Linux" })  // exact titles first
        let scoped = try library.items(ItemQuery(feed: "https://a.example/feed", search: "linux"))
        #expect(scoped.map(\.title) == ["Linux", "Linux news"])
        #expect(scoped.allSatisfy { $0.feed == "https://a.example/feed" })
        #expect(try library.items(ItemQuery(feed: "https://b.example/feed", search: "\"linux news\"")).isEmpty)
    }
}
