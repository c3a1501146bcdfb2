import Feeds
import Foundation
import LoopbackHTTPServer
import ObjectGraph
import Testing

@testable import ZeaderKit

@Suite("Item tags: the tag and untag actions, predicates, listings")
struct ItemTagsTests {
    @Test("tag and untag read as actions, in any case, and write back as themselves")
    func parsing() throws {
        let rule = try ItemRules.parse(#"title CONTAINS "x" -> TAG Later untag 'to read' Tag "a,b""#)
        #expect(rule.actions == [.tag("Later"), .untag("to read"), .tag("a b")])
        #expect(try ItemRules.parse(rule.text) == rule)
        for (text, action) in [
            ("read == NO -> tag", "tag"), ("read == NO -> flag UNTAG", "untag"), ("read == NO -> tag ','", "tag"),
        ] {
            #expect(throws: ZeaderError.invalidRule(text, .tagWithoutName(action)), "\(text)") { try ItemRules.parse(text) }
        }
        #expect(
            ZeaderError.invalidRule("t -> tag", .tagWithoutName("tag")).description
                == "invalid rule 't -> tag': tag needs a tag: tag NAME")
    }

    @Test("an item's tags are normalized as a feed's: trimmed, once ignoring case, sorted")
    func normalized() throws {
        let store = try makeStore()
        let context = store.container.viewContext
        try context.performAndWait {
            let server = try FeedSubscription.add(url: "https://example.org/feed", in: context)
            let item = context.insert(FeedItem.self)
            item.guid = "1"
            item.server = server
            #expect(item.setTag(" later ", true))
            #expect(item.setTag("Work\tnow", true))
            #expect(!item.setTag("LATER", true))
            #expect(!item.setTag(" ,\n", true))
            #expect(item.tags == "later,Work now")
            #expect(item.setTag("Later", false))
            #expect(!item.setTag("absent", false))
            #expect(item.tags == "Work now")
            #expect(item.setTag("work NOW", false))
            #expect(item.tags == nil)
            try context.save()
        }
    }

    @Test("rules tag and untag new items in order; a later rule sees the tag; predicates read tags")
    func atImport() throws {
        let store = try makeStore()
        let context = store.container.newBackgroundContext(name: "t")
        let rules = try [
            #"title BEGINSWITH "Release" -> tag release tag later"#, #"tags CONTAINS[c] "RELEASE" -> flag"#,
            #"author == "bot" -> tag later untag Later tag bots"#,
        ].map { try ItemRules.compile(try ItemRules.parse($0)) }
        try context.performAndWait {
            let server = try FeedSubscription.add(url: "https://example.org/feed", in: context)
            try context.save()
            let items = [
                ParsedItem(id: "1", title: "Release 1.0"), ParsedItem(id: "2", title: "Hello", author: "bot"),
                ParsedItem(id: "3", title: "Other"),
            ]
            var firings: [ItemRules.Firing] = []
            _ = try ItemImport.upsert(items, into: server, in: context, now: Date(), acting: rules, firings: &firings)
            try context.save()
            let stored = try FeedItem.findAll(in: context).sorted { $0.guid < $1.guid }
            #expect(stored.map(\.tags) == ["later,release", "bots", nil])
            #expect(stored.map(\.flagged) == [true, false, false])
            let tagged = try FeedItem.findAll(
                where: try ZeaderModel.itemPredicate(format: #"tags CONTAINS[c] "later""#), in: context)
            #expect(tagged.map(\.guid) == ["1"])
        }
    }

    @Test("the reader's rules tag as one undo step, after the refresh stored the items untagged")
    func inTheReader() throws {
        let store = try makeStore()
        let context = store.container.viewContext
        let rules = ItemRules.acting([try ItemRules.parse(#"title == "A" -> tag x untag old"#)], changingItems: false)
        try context.performAndWait {
            context.undoManager = ContextUndoManager()
            let server = try FeedSubscription.add(url: "https://example.org/feed", in: context)
            try context.save()
            var firings: [ItemRules.Firing] = []
            _ = try ItemImport.upsert(
                [ParsedItem(id: "a", title: "A")], into: server, in: context, now: Date(), acting: rules, firings: &firings)
            try context.save()
            let item = try #require(try FeedItem.findAll(in: context).first)
            #expect(item.tags == nil)
            item.tags = "old"
            try context.save()
            context.undoManager?.removeAllActions()
            let changes = firings.map { (server: server.objectID, firing: $0) }
            #expect(try ItemRules.applyChanges(changes, in: context) == 1)
            #expect(item.tags == "x")
            context.undoManager?.undo(in: context)
            #expect(item.tags == "old")
        }
    }
}

@Suite("Item tags through the binary")
struct ItemTagsCommandTests {
    @Test("tag and untag on refresh: items --json lists them, --where reads them, old items untouched")
    func onRefresh() async throws {
        let routes = Routes()
        try await withLoopbackServer(routes.handler) { http in
            let site = http.url("/site")
            routes["/site/feed"] = .ok(
                ItemRulesCommandTests.feed(site, [("a", "Release 1.0", "dev"), ("b", "Weekly", "bot"), ("c", "Other", "x")]))
            let dir = try temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: dir) }
            let db = dir.appendingPathComponent("z.sqlite").path
            let feed = http.url("/site/feed").absoluteString
            try writeConfig(
                """
                rule title BEGINSWITH "Release" -> tag Releases tag later
                rule author == "bot" -> tag later tag Bots
                rule tags CONTAINS[c] "bots" -> untag LATER

                """, in: dir)
            #expect(try zeader(["add", feed, "--db", db], in: dir).status == 0)
            var r = try zeader(["refresh", "--db", db], in: dir)
            #expect(r.status == 0, "\(r.stderr)")
            #expect(r.stderr.contains(#"rule 'tags CONTAINS[c] "bots" -> untag LATER' on "Weekly""#), "\(r.stderr)")
            r = try zeader(["items", "--json", "--db", db], in: dir)
            let items = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]])
            let tags = Dictionary(uniqueKeysWithValues: items.map { ($0["id"] as? String ?? "", $0["tags"] as? [String]) })
            #expect(tags == ["a": ["later", "Releases"], "b": ["Bots"], "c": []])
            r = try zeader(["items", "--where", #"tags CONTAINS[c] "later""#, "--json", "--db", db], in: dir)
            #expect(r.stdout.contains(#""id":"a""#) && !r.stdout.contains(#""id":"b""#), "\(r.stdout)")

            // Seen again with other rules: the stored items keep their tags.
            try writeConfig("rule read == NO -> untag later\n", in: dir)
            r = try zeader(["refresh", "--db", db], in: dir)
            #expect(r.status == 0 && r.stderr.isEmpty, "\(r.stderr)")
            r = try zeader(["items", "--where", #"tags CONTAINS "later""#, "--db", db], in: dir)
            #expect(r.stdout.contains("Release 1.0"), "\(r.stdout)")
        }
    }
}

@Suite("Item tags on the items a sync pulls")
struct ItemTagsSyncTests {
    @Test("tag and untag act on pulled items, in order; a sync's rules left to the reader change nothing yet")
    func onSync() async throws {
        let rules = try [#"title BEGINSWITH "Release" -> tag release tag later"#, #"tags CONTAINS "release" -> untag later"#]
            .map { try ItemRules.parse($0) }
        for later in [false, true] {
            // A server of its own: the tags a sync's rules give reach its server as labels.
            let server = try FakeGReaderServer()
            let newest = FakeGReaderServer.now
            server.update {
                $0.items = [
                    .init(id: newest, link: "http://fake.example/1", title: "Release 2.0"),
                    .init(id: newest - 1, link: "http://fake.example/2", title: "Plain"),
                ]
            }
            let store = try ZeaderStore.open(at: try temporaryDirectory().appendingPathComponent("z.sqlite"))
            let sync = FeedSync(store: store, itemRules: rules, rulesChangeItemsLater: later)
            try sync.addAccount(apiURL: server.apiURL, user: "alice", token: "t")
            let report = try await sync.sync()
            #expect(report.newItems == 2)
            #expect(report.firings.count == 2)
            func tags() throws -> [String: [String]] {
                Dictionary(
                    uniqueKeysWithValues: try FeedLibrary(store: store).items(ItemQuery()).map { ($0.title ?? "", $0.tags) })
            }
            if later {
                #expect(try tags() == ["Release 2.0": [], "Plain": []])
                let context = store.container.viewContext
                let (changed, step) = try context.performAndWait { () throws -> (Int, String?) in
                    context.undoManager = ContextUndoManager()
                    let changes = ItemRules.withServers(report.firings, in: context)
                    return (try ItemRules.applyChanges(changes, in: context), context.undoManager?.undoActionName)
                }
                #expect(changed == 1)
                #expect(step == ItemRules.undoName)
            }
            #expect(try tags() == ["Release 2.0": ["release"], "Plain": []])
        }
    }
}
