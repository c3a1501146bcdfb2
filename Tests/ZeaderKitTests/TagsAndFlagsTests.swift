import Foundation
import ObjectGraph
import Testing

@testable import ZeaderKit

@Suite("Tags on feeds and flagged items (model version 2)")
struct TagsAndFlagsTests {
    @Test("tags are cleaned, deduplicated ignoring case, sorted, and stored as one string")
    func normalisation() {
        #expect(FeedTags.normalized(["news", " Linux ", "NEWS", "a,b", "x\n\ty", ""]) == "a b,Linux,news,x y")
        #expect(FeedTags.normalized([String]()) == nil)
        #expect(FeedTags.normalized(["  ", "\u{1B}"]) == nil)
        #expect(FeedTags.list("a b,Linux") == ["a b", "Linux"])
        #expect(FeedTags.list(nil) == [])
        #expect(FeedTags.contains("a b,Linux,news", "LINUX"))
        #expect(!FeedTags.contains("linuxes,news", "linux"))
    }

    func library() throws -> (FeedLibrary, ZeaderStore) {
        let store = try makeStore()
        let library = FeedLibrary(store: store)
        try library.add(url: "http://a.example/feed", title: "A", tags: ["Linux", "news"])
        try library.add(url: "http://b.example/feed", title: "B", tags: ["linuxes"])
        try library.add(url: "http://c.example/feed", title: "C")
        let context = store.container.newBackgroundContext()
        try context.performAndWait { () throws in
            for server in try Server.findAll(in: context) {
                for n in 1...3 {
                    let item = context.insert(FeedItem.self)
                    item.guid = "\(server.title!)\(n)"
                    item.title = "\(server.title!) item \(n)"
                    item.sortDate = Date(timeIntervalSince1970: Double(n))
                    item.server = server
                }
            }
            try context.save()
        }
        return (library, store)
    }

    @Test("a tag already clean is kept as it is; any other is cleaned the long way, to the same result")
    func cleanTagsKeptAsTheyAre() {
        // The long way, written out: commas, controls and white space are spaces, runs of them
        // one space, none at either end.
        func cleanedTheLongWay(_ tag: String) -> String? {
            let words = tag.unicodeScalars.map { scalar -> Character in
                scalar == "," || CharacterSet.controlCharacters.contains(scalar)
                    || CharacterSet.whitespacesAndNewlines.contains(scalar) ? " " : Character(scalar)
            }
            let cleaned = String(words).split(separator: " ").joined(separator: " ")
            return cleaned.isEmpty ? nil : cleaned
        }
        let tags = [
            "tech", "Two Words", "a/b", "later!", " lead", "trail ", "two  spaces", "a,b", "tab\there", "\u{7F}del",
            "new\nline", "", " ", "ü", "caf\u{E9} au lait", "\u{A0}nbsp", "a\u{2028}b", "~", "x y z", ",",
        ]
        for tag in tags { #expect(FeedTags.clean(tag) == cleanedTheLongWay(tag), "\(tag.debugDescription)") }
    }

    @Test("add --tag, tag and tag --remove, list --tag, JSON and text output")
    func tagging() throws {
        let (library, _) = try library()
        #expect(try library.servers(tag: "linux").map(\.url) == ["http://a.example/feed"])
        #expect(try library.servers(tag: "NEWS").map(\.title) == ["A"])
        #expect(try library.tag(url: "http://c.example/feed", add: ["news", "Photos"]) == ["news", "Photos"])
        #expect(try library.tag(url: "http://a.example/feed", remove: ["NEWS", "absent"]) == ["Linux"])
        #expect(try library.servers(tag: "news").map(\.title) == ["C"])
        #expect(throws: ZeaderError.notSubscribed("http://z.example/")) { try library.tag(url: "http://z.example/", add: ["x"]) }
        let tags = try library.tags()
        #expect(tags.map(\.tag) == ["Linux", "linuxes", "news", "Photos"])
        #expect(tags.map(\.feeds) == [1, 1, 1, 1])

        let servers = try library.servers()
        let json = ServerSummary.json(servers)
        #expect(json.contains("\"tags\":[\"Linux\"],"))
        #expect(json.contains("\"tags\":[\"news\",\"Photos\"],"))
        let decoded = try JSONSerialization.jsonObject(with: Data(json.utf8)) as! [[String: Any]]
        #expect(decoded.map { $0["tags"] as! [String] } == [["Linux"], ["linuxes"], ["news", "Photos"]])
    }

    @Test("items --tag (any of them) and --flagged; flag and unflag by id or feed")
    func flagsAndItemFilters() throws {
        let (library, _) = try library()
        #expect(try library.items(ItemQuery(tags: ["linux"])).map(\.id).sorted() == ["A1", "A2", "A3"])
        #expect(try library.items(ItemQuery(tags: ["LINUXES", "news"])).count == 6)
        #expect(try library.items(ItemQuery(tags: ["nope"])).isEmpty)

        #expect(try library.setFlag(true, ids: ["A2", "B3"]) == 2)
        #expect(try library.setFlag(true, ids: ["A2"]) == 0)  // already flagged
        #expect(try library.items(ItemQuery(flaggedOnly: true)).map(\.id) == ["B3", "A2"])
        #expect(try library.items(ItemQuery(flaggedOnly: true, tags: ["linux"])).map(\.id) == ["A2"])
        #expect(try library.setFlag(true, feed: "http://c.example/feed") == 3)
        #expect(try library.setFlag(false, ids: ["C1"], feed: "http://c.example/feed") == 1)
        #expect(try library.items(ItemQuery(flaggedOnly: true)).count == 4)
        #expect(throws: ZeaderError.noSuchItem(id: "A9", feed: nil)) { try library.setFlag(true, ids: ["A2", "A9"]) }
        #expect(throws: ZeaderError.noSuchItem(id: "A1", feed: "http://b.example/feed")) {
            try library.setFlag(true, ids: ["A1"], feed: "http://b.example/feed")
        }
        #expect(throws: ZeaderError.notSubscribed("http://z.example/")) { try library.setFlag(true, feed: "http://z.example/") }
        #expect(throws: ZeaderError.self) { try library.setFlag(true) }
        #expect(try library.items(ItemQuery(flaggedOnly: true)).count == 4)  // the failed calls changed nothing

        let flagged = try library.items(ItemQuery(flaggedOnly: true, limit: 1))
        #expect(ItemSummary.json(flagged).contains("\"read\":false,\"flagged\":true,\"tags\":[],\"enclosure\":null}"))
        // The flag can be used in --where and smart feeds too.
        #expect(try library.items(ItemQuery(wherePredicate: "flagged == YES AND server.title == \"C\"")).count == 2)
    }

    @Test("OPML folders and categories and newsboat tags become tags; export writes them back")
    func subscriptionListsCarryTags() throws {
        let store = try makeStore()
        let library = FeedLibrary(store: store)
        let opml = """
            <?xml version="1.0"?><opml version="2.0"><head><title>x</title></head><body>
            <outline text="Tech"><outline text="A" xmlUrl="http://a.example/feed" category="/Linux,/Tech/Kernel"/></outline>
            <outline text="B" xmlUrl="http://b.example/feed"/>
            </body></opml>
            """
        _ = try library.importSubscriptions(data: Data(opml.utf8), source: "feeds.opml")
        let urls = "http://b.example/feed \"news\" podcasts\nhttp://d.example/feed \"Big News\"\n"
        let report = try library.importSubscriptions(data: Data(urls.utf8), source: "urls")
        #expect(report.added == 1 && report.alreadySubscribed == 1)
        let tags = try library.servers().map(\.tags)
        #expect(tags[1] == ["news", "podcasts"])  // an existing feed gains the file's tags
        #expect(tags[2] == ["Big News"])
        #expect(tags[0].contains("Tech") && tags[0].contains("Linux"))

        let exported = try library.exportOPML()
        #expect(exported.contains("category=\"/news,/podcasts\""))
        let back = try makeStore()
        _ = try FeedLibrary(store: back).importSubscriptions(data: Data(exported.utf8), source: "export")
        #expect(try FeedLibrary(store: back).servers().map(\.tags) == tags)
    }
}

@Suite struct SmartFeedLibraryTests {
    @Test func smartFeedsAreCheckedAndSaved() throws {
        let store = try ZeaderStore.inMemory()
        let library = FeedLibrary(store: store)
        try library.addSmartFeed(title: "Swift", predicate: "read == NO AND title CONTAINS[cd] \"swift\"")
        #expect(throws: ZeaderError.self) { try library.addSmartFeed(title: "Swift", predicate: "read == NO") }
        #expect(throws: ZeaderError.self) { try library.addSmartFeed(title: "Bad", predicate: "nosuchkey == 1") }
        #expect(throws: ZeaderError.self) { try library.addSmartFeed(title: "Bad", predicate: "title ==") }
        #expect(throws: ZeaderError.self) { try library.addSmartFeed(title: " ", predicate: "read == NO") }
        let context = store.container.viewContext
        try context.performAndWait { () throws in
            let smart = try SmartFeed.findAll(in: context)
            #expect(smart.map(\.title) == ["Swift"])
            #expect(smart.first?.predicateFormat == "read == NO AND title CONTAINS[cd] \"swift\"")
        }
    }
}
