import Feeds
import Foundation
import ObjectGraph
import Testing

@testable import ZeaderKit

/// A refresh makes each body's search text on its parse thread (``FeedItemBody/makeContentTexts(of:)``)
/// and the save stores that text instead of making it again: it must be the very text the
/// save would have made, and a text made for other content must never be stored.
@Suite struct ContentTextTests {
    /// Every XML and JSON feed among the parser's fixtures.
    static func fixtureFeeds() throws -> [URL] {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("FeedsTests/Fixtures")
        let files = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL } ?? []
        return files.filter { ["xml", "json"].contains($0.pathExtension) }.sorted { $0.path < $1.path }
    }

    /// Each stored item's guid and body text after `feeds` are upserted into a new store.
    func storedTexts(_ feeds: [ParsedFeed]) throws -> [String: String?] {
        let store = try ZeaderStore.inMemory()
        let context = store.container.viewContext
        return try context.performAndWait { () throws -> [String: String?] in
            for (index, feed) in feeds.enumerated() {
                let server = context.insert(Server.self)
                server.url = "https://a.example/\(index)"
                _ = try ItemImport.upsert(feed.items, into: server, in: context, now: Date(timeIntervalSince1970: 0))
                try context.save()
            }
            let items = try context.fetch(FetchRequest<FeedItem>())
            return Dictionary(items.map { ("\($0.server?.url ?? "") \($0.guid)", $0.body?.text) }) { first, _ in first }
        }
    }

    @Test func theTextMadeWhereTheFeedIsParsedIsTheOneTheSaveMakes() throws {
        var plain: [ParsedFeed] = []
        var prepared: [ParsedFeed] = []
        var bodies = 0
        for url in try Self.fixtureFeeds() {
            guard let feed = try? FeedParser.parse(data: Data(contentsOf: url), url: URL(string: "https://a.example/feed"))
            else { continue }
            var made = feed
            FeedItemBody.makeContentTexts(of: &made)
            for item in made.items {
                #expect(item.contentText == item.content.map(HTMLText.plainText), "\(url.lastPathComponent) \(item.id)")
                if item.content != nil { bodies += 1 }
            }
            plain.append(feed)
            prepared.append(made)
        }
        #expect(bodies > 50)  // the fixtures are read, and hold bodies
        let saved = try storedTexts(plain)
        #expect(saved.values.contains { $0 != nil })
        #expect(try storedTexts(prepared) == saved)
    }

    @Test func aTextMadeBeforeTheSaveIsStoredOnlyWithItsOwnContent() throws {
        let store = try ZeaderStore.inMemory()
        let context = store.container.viewContext
        try context.performAndWait { () throws in
            let server = context.insert(Server.self)
            server.url = "https://a.example/feed"
            func item(_ guid: String) -> FeedItem {
                let item = context.insert(FeedItem.self)
                item.guid = guid
                item.server = server
                return item
            }
            // The made text is what gets stored (a marker, to see that it is taken).
            let taken = item("taken")
            taken.setContent("<p>fish</p>", plainText: "made before")
            // Content changed after its text was made: the text is made again from it.
            let changed = item("changed")
            changed.setContent("<p>fish</p>", plainText: "made before")
            changed.content = "<p>chips &amp; peas</p>"
            // A full article stands for the content: its text, not the content's.
            let article = item("article")
            article.setContent("<p>fish</p>", plainText: "made before")
            article.body?.article = "<article>the <b>whole</b> story</article>"
            // Empty text is no text, as when the save makes it.
            let empty = item("empty")
            empty.setContent("<img src=x>", plainText: "")
            try context.save()
            #expect(taken.body?.text == "made before")
            #expect(changed.body?.text == "chips & peas")
            #expect(article.body?.text == "the whole story")
            #expect(empty.body?.text == nil)
            #expect(empty.body?.content == "<img src=x>")

            // A made text is used once: a later change of the content makes its own.
            taken.content = "<p>trout</p>"
            try context.save()
            #expect(taken.body?.text == "trout")
        }
    }
}
