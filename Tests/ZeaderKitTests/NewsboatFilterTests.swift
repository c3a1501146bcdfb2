import Feeds
import Foundation
import ObjectGraph
import Testing

@testable import ZeaderKit

/// newsboat's filter language, translated to ObjectGraph predicates over FeedItem: the
/// corpus's filters, each operator and attribute on a small store (through SQL and in
/// memory), refusals with their reasons, hostile text, and a fuzzer.
@Suite("newsboat filters translated to predicates")
struct NewsboatFilterTests {
    static let now = Date(timeIntervalSince1970: 1_780_000_000)

    /// Two feeds and five items covering what the filters test: tags, flags, dates, an
    /// enclosure, content and none.
    static func makeItems() throws -> ZeaderStore {
        let store = try makeStore()
        let context = store.container.viewContext
        try context.performAndWait {
            let tech = try FeedSubscription.add(url: "https://tech.example/feed", tags: ["tech", "yt"], in: context)
            tech.title = "Tech ===="
            let other = try FeedSubscription.add(url: "http://other.example/rss", tags: ["News"], in: context)
            other.title = "Other"
            func day(_ n: Double) -> Date { now.addingTimeInterval(-n * 86_400) }
            _ = try ItemImport.upsert(
                [
                    ParsedItem(
                        id: "a", title: "Linux on Foot-ball fields", author: "Frank", published: day(0.5), content: "<p>x</p>"),
                    ParsedItem(
                        id: "b", title: "Sponsored: Windows [OC]", author: "John", published: day(3.5),
                        enclosures: [.init(url: "https://tech.example/a.mp3", type: "audio/mpeg")]),
                    ParsedItem(id: "c", title: "#shorts", published: day(20)),
                ], into: tech, in: context, now: now)
            _ = try ItemImport.upsert(
                [
                    ParsedItem(
                        id: "d", title: "football results", author: "Andreas Krennmair", published: day(1.5),
                        content: "multi\nline body"),
                    ParsedItem(id: "e", title: "Old", published: day(400)),
                ], into: other, in: context, now: now)
            try context.save()
            let items = try FeedItem.findAll(in: context)
            for item in items {
                switch item.guid {
                case "a": item.read = true
                case "b": (item.flagLetters, item.flagged) = ("Sw", true)
                case "d": (item.flagLetters, item.flagged) = ("s", true)
                default: break
                }
            }
            try context.save()
        }
        return store
    }

    /// The guids `filter` selects, by a fetch (SQL); the same set evaluated in memory.
    static func guids(_ filter: String, in store: ZeaderStore) throws -> [String] {
        let predicate = try NewsboatFilter(filter).predicate(now: now)
        let context = store.container.viewContext
        return try context.performAndWait {
            let fetched = try context.fetch(FetchRequest<FeedItem>(predicate: predicate)).map(\.guid).sorted()
            let evaluated = try FeedItem.findAll(in: context).filter { try predicate.evaluate(with: $0) }.map(\.guid).sorted()
            #expect(fetched == evaluated, "SQL and memory disagree on \(filter)")
            return fetched
        }
    }

    @Test("every filter of the newsboat corpus translates and runs")
    func corpus() throws {
        let url = try #require(Bundle.module.url(forResource: "Fixtures/newsboat-filters", withExtension: "tsv"))
        let lines = try String(contentsOf: url, encoding: .utf8).split(separator: "\n").filter { !$0.hasPrefix("#") }
        #expect(lines.count >= 50)
        let store = try Self.makeItems()
        for line in lines {
            let parts = line.split(separator: "\t", maxSplits: 1).map(String.init)
            let filter = parts[1]
            do {
                _ = try Self.guids(filter, in: store)
            } catch {
                Issue.record("\(parts[0]) \(filter): \(error)")
            }
        }
    }

    @Test(
        "each attribute and operator selects the items newsboat would",
        arguments: [
            ("unread = \"yes\"", ["b", "c", "d", "e"]),
            ("unread = \"no\"", ["a"]),
            ("unread != \"yes\"", ["a"]),
            ("title =~ \"[Ff]oot[ -]?[Bb]all\"", ["a", "d"]),
            ("title =~ \"linux\"", ["a"]),
            ("title !~ \"linux\"", ["b", "c", "d", "e"]),
            ("title =~ \"#shorts$\"", ["c"]),
            ("title =~ \"\\<foot\"", ["a", "d"]),
            ("title =~ \"ball\\>\"", ["a", "d"]),
            ("title =~ \"\\<ball\"", ["a"]),
            ("title =~ \"[\\<]\"", []),
            ("title =~ \"[[:digit:]]\"", []),
            ("title =~ \"^[[:alpha:]]+ results$\"", ["d"]),
            ("title =~ \"\\[OC\\]\"", ["b"]),
            ("title = \"Old\"", ["e"]),
            ("title == \"old\"", []),
            ("title != \"Old\"", ["a", "b", "c", "d"]),
            ("title # \"Linux\"", ["a"]),
            ("title # \"Lin\"", []),
            ("title !# \"Linux\"", ["b", "c", "d", "e"]),
            ("author =~ \"Andreas Krennmair\"", ["d"]),
            ("content = \"\"", ["b", "c", "e"]),
            ("content != \"\"", ["a", "d"]),
            ("content =~ \"^line\"", []),
            ("content =~ \"multi.line\"", ["d"]),
            ("enclosure_url != \"\" and enclosure_type =~ \"^(audio|video)/\"", ["b"]),
            ("flags # \"s\"", ["d"]),
            ("flags # \"S\"", ["b"]),
            ("flags # \"wS\"", ["b"]),
            ("flags != \"\"", ["b", "d"]),
            ("flags = \"\"", ["a", "c", "e"]),
            ("flags = \"wS\"", ["b"]),
            ("tags # \"yt\"", ["a", "b", "c"]),
            ("tags # \"news\"", ["d", "e"]),
            ("tags !# \"yt\"", ["d", "e"]),
            ("tags # \"y\"", []),
            ("tags =~ \"tec\"", ["a", "b", "c"]),
            ("tags !~ \"YouTube\" and tags !~ \"News\"", ["a", "b", "c"]),
            ("tags = \"yt tech\"", ["a", "b", "c"]),
            ("feedtitle =~ \"====\"", ["a", "b", "c"]),
            ("rssurl =~ \"^https:\"", ["a", "b", "c"]),
            ("feedlink = \"\"", ["a", "b", "c", "d", "e"]),
            ("age < 1", ["a"]),
            ("age <= 1", ["a", "d"]),
            ("age > 3", ["c", "e"]),
            ("age >= 20", ["c", "e"]),
            ("age = 3", ["b"]),
            ("age != 3", ["a", "c", "d", "e"]),
            ("age between 0:7", ["a", "b", "d"]),
            ("age between 7:0", ["a", "b", "d"]),
            ("age between 1:3", ["b", "d"]),
            ("unread_count > 2", []),
            ("total_count = 3", ["a", "b", "c"]),
            ("total_count != 3", ["d", "e"]),
            ("unread_count between 2:2", ["a", "b", "c", "d", "e"]),
            ("( author =~ \"Frank\" or author =~ \"John\" ) and ( title =~ \"Linux\" or title =~ \"Windows\" )", ["a", "b"]),
            ("unread = \"yes\" and tags # \"yt\" or title = \"Old\"", ["b", "c", "e"]),
            ("unread = \"yes\" and (tags # \"yt\" or title = \"Old\")", ["b", "c", "e"]),
            ("tags # \"content\" or title =~ \"\\[OC\\]\"", ["b"]),
            ("date < \"2026-05-01\"", ["e"]),
        ])
    func semantics(filter: String, expected: [String]) throws {
        let store = try Self.makeItems()
        #expect(try Self.guids(filter, in: store) == expected, "\(filter)")
    }

    @Test(
        "what cannot be translated is refused with one message naming it",
        arguments: [
            ("feedindex < 3", "newsboat's 'feedindex' (a place in a list on screen) has no equivalent in Zeader"),
            ("articleindex = 1", "newsboat's 'articleindex' (a place in a list on screen) has no equivalent in Zeader"),
            (
                "description =~ \"x\"",
                "newsboat's 'description' has no equivalent in Zeader (it does not keep that value of a feed)"
            ),
            ("feeddate > 1", "newsboat's 'feeddate' has no equivalent in Zeader (it does not keep that value of a feed)"),
            ("titel = \"x\"", "unknown attribute 'titel' at character 1"),
            ("unread =~ \"yes\"", "'=~' does not apply to unread: use = or != with \"yes\" or \"no\""),
            ("unread = \"maybe\"", "unread cannot be \"maybe\": it takes \"yes\" or \"no\""),
            ("title < 3", "'<' does not apply to title: use =, !=, =~, !~, # or !#"),
            ("age =~ \"1\"", "'=~' does not apply to age: use =, !=, <, >, <=, >= or between"),
            ("age < \"old\"", "age cannot be \"old\": it takes a whole number of days"),
            ("age < 99999999", "age cannot be \"99999999\": it takes a number of days up to 3660000"),
            ("flags # \"1\"", "flags cannot be \"1\": it takes letters A-Z and a-z"),
            ("date > \"yesterday\"", "date cannot be \"yesterday\": it takes a day written \"YYYY-MM-DD\""),
            ("title =~ \"(unclosed\"", "\"(unclosed\" is not a regular expression Zeader can use: ICU cannot compile it"),
            ("title between 1:2", "'between' does not apply to title: use =, !=, =~, !~, # or !#"),
            ("age between 3", "'age between' at character 1 needs a range such as 0:7"),
            ("age < 0:7", "the range after 'age' at character 1 goes with between (age between 0:7)"),
            ("unread_count = 1:2", "the range after 'unread_count' at character 1 goes with between (unread_count between 0:7)"),
            ("title = \"x", "the string starting at character 9 has no closing quote"),
            ("title = x", "expected a value: \"text\", a whole number or a range such as 0:7 at character 9, found 'x'"),
            ("title = \"x\" AND age < 1", "expected 'and', 'or' or the end of the filter at character 13, found 'AND age < 1'"),
            ("unread_count > 99999999999999999999", "the number 99999999999999999999 at character 16 is too large"),
            ("(title = \"x\"", "expected ')' at character 13, found the end of the filter"),
        ])
    func refusals(filter: String, message: String) {
        #expect(throws: NewsboatFilterError.self) { try NewsboatFilter(filter).predicate(now: Self.now) }
        do {
            _ = try NewsboatFilter(filter).predicate(now: Self.now)
        } catch {
            #expect(error.description == "newsboat filter: " + message)
        }
    }

    @Test("hostile filters: deep nesting, long text, many comparisons, huge strings and patterns")
    func hostile() throws {
        func refused(_ text: String) -> NewsboatFilterError? {
            do {
                _ = try NewsboatFilter(text).predicate(now: Self.now)
                return nil
            } catch { return error }
        }
        let deep = String(repeating: "(", count: 5_000) + "unread = \"yes\"" + String(repeating: ")", count: 5_000)
        #expect(refused(deep) == .tooDeep(limit: NewsboatFilter.Limits.nesting))
        // Alternating and/or with parentheses grows the predicate's depth past ObjectGraph's bound.
        var alternating = "unread = \"yes\""
        for n in 0..<8 { alternating = "(\(alternating) \(n % 2 == 0 ? "or" : "and") age != \(n))" }
        #expect(refused(alternating) == .tooManyLevels(limit: ObjectPredicate.Limits.predicateDepth))
        // Redundant parentheses add no level.
        #expect(refused("((((((((((unread = \"yes\"))))))))))") == nil)
        let many = Array(repeating: "title = \"x\"", count: 201).joined(separator: " or ")
        #expect(refused(many) == .tooManyComparisons(limit: NewsboatFilter.Limits.comparisons))
        #expect(refused(String(repeating: " ", count: 20_000)) == .tooLong(limit: NewsboatFilter.Limits.textLength))
        #expect(
            refused("title = \"\(String(repeating: "x", count: 5_000))\"")
                == .literalTooLong(limit: NewsboatFilter.Limits.literalLength))
        let longPattern = String(repeating: "a", count: 2_000)
        if case .invalidRegex(_, let reason)? = refused("title =~ \"\(longPattern)\"") {
            #expect(reason.hasPrefix("longer than"))
        } else {
            Issue.record("a pattern past ObjectGraph's bound is refused")
        }
        #expect(refused("title =~ \"\\Qabc\"") == nil)
        // Control characters in what an error shows are removed.
        #expect(!(refused("title \u{1B}[31m") ?? .tooLong(limit: 0)).description.contains("\u{1B}"))
    }

    @Test("random mutations of the corpus never crash: a valid predicate or one error")
    func fuzz() throws {
        let url = try #require(Bundle.module.url(forResource: "Fixtures/newsboat-filters", withExtension: "tsv"))
        let seeds = try String(contentsOf: url, encoding: .utf8).split(separator: "\n").filter { !$0.hasPrefix("#") }
            .map { Array($0.split(separator: "\t", maxSplits: 1)[1].utf8) }
        let item = try ZeaderModel.current.entity(named: "FeedItem")
        var rng = SplitMix64(state: 29)
        var translated = 0
        for _ in 0..<3_000 {
            let bytes = FuzzMutation.mutate(seeds.randomElement(using: &rng)!, using: &rng)
            let text = String(decoding: bytes, as: UTF8.self)
            guard let predicate = try? NewsboatFilter(text).predicate(now: Self.now) else { continue }
            try predicate.validate(for: item, in: ZeaderModel.current)
            translated += 1
        }
        #expect(translated > 100)
    }

    @Test("user predicates read both languages: ObjectGraph's first, then newsboat's")
    func bothLanguages() throws {
        let store = try Self.makeItems()
        let context = store.container.viewContext
        func guids(_ format: String) throws -> [String] {
            let predicate = try ZeaderModel.itemPredicate(format: format, now: Self.now)
            return try context.performAndWait {
                try context.fetch(FetchRequest<FeedItem>(predicate: predicate)).map(\.guid).sorted()
            }
        }
        #expect(try guids("read == NO AND title CONTAINS[cd] \"foot\"") == ["d"])
        #expect(try guids("unread = \"yes\" and title =~ \"foot\"") == ["d"])
        #expect(try guids("age < 1") == ["a"])
        #expect(try guids("content CONTAINS \"multi\"") == ["d"])
        #expect(throws: ObjectGraphError.self) { try ZeaderModel.itemPredicate(format: "feedindex > 1") }
        do {
            _ = try ZeaderModel.itemPredicate(format: "feedindex > 1")
        } catch {
            #expect("\(error)".contains("'feedindex'"))
        }
        // Neither language: newsboat's error when the text was meant for it, else ObjectGraph's.
        for (text, expected) in [
            ("unread=yes", "expected a value"),
            (String(repeating: "(", count: 60) + "unread = yes" + String(repeating: ")", count: 60), "nested more than 50"),
            ("tags # yt", "expected a value"),
        ] {
            do {
                _ = try ZeaderModel.itemPredicate(format: text)
                Issue.record("\(text) is refused")
            } catch {
                #expect("\(error)".contains(expected), "\(text): \(error)")
            }
        }
        #expect(NewsboatFilter.problem(in: "unread=yes")?.hasPrefix("newsboat filter: expected a value") == true)
        #expect(NewsboatFilter.problem(in: "read == NO") == nil)
        #expect(NewsboatFilter.problem(in: #"read == NO AND titel == "x""#)?.contains("'titel'") == true)
        #expect(throws: ObjectGraphError.self) { try ZeaderModel.itemPredicate(format: "title CONTAINS") }
        // A smart feed and an ignore rule accept a newsboat filter.
        try SmartFeeds.validate("tags # \"yt\" and age < 7")
        _ = try Killfile.compile(.init(scope: .all, predicateFormat: "title =~ \"Sponsor\""))
        #expect(throws: ZeaderError.self) { try SmartFeeds.validate("feedindex = 1") }
    }

    @Test("the feed list's filter reads newsboat's feed attributes, and refuses an article's")
    func feedList() throws {
        let store = try Self.makeItems()
        let context = store.container.viewContext
        func titles(_ filter: String) throws -> [String] {
            try context.performAndWait {
                try FeedFilter.serverIDs(matching: filter, in: context)
                    .compactMap { (try? context.existingObject(with: $0)) as? Server }.compactMap(\.title).sorted()
            }
        }
        let both = ["Other", "Tech ===="]
        #expect(try titles("unread_count > 0") == both)
        #expect(try titles("total_count > 2") == ["Tech ===="])
        #expect(try titles("rssurl =~ \"^https:\"") == ["Tech ===="])
        #expect(try titles("tags # \"news\"") == ["Other"])
        #expect(try titles("feedtitle =~ \"====\"") == ["Tech ===="])
        #expect(try titles("( unread_count > 0 and unread_count < 10 ) or total_count > 100") == both)
        #expect(try titles("unreadCount > 0") == both)
        do {
            _ = try titles("title =~ \"x\"")
            Issue.record("an article's attribute is refused in the feed list")
        } catch {
            #expect(
                "\(error)".contains(
                    "'title' at character 1 is an article's attribute; the feed list filters by feedtitle, rssurl"))
        }
        #expect(throws: ZeaderError.self) { try titles("feedindex < 3") }
        #expect(throws: ZeaderError.self) { try titles("unreadCount >") }
    }

    @Test("age is counted from the start of the hour")
    func currentHour() {
        let date = Date(timeIntervalSinceReferenceDate: 3_600 * 1_000 + 1_234)
        #expect(NewsboatFilter.currentHour(date) == Date(timeIntervalSinceReferenceDate: 3_600 * 1_000))
    }
}

/// `query:` lines of a urls file become smart feeds that show the items newsboat's query
/// feeds show; those Zeader cannot translate are reported.
@Suite("newsboat query feeds imported as smart feeds")
struct QueryFeedImportTests {
    static let urls = """
        https://tech.example/feed tech yt
        "query:Unread Articles:unread = \\"yes\\"" "Query"
        "query:Tech feed:age between 0:32 and tags # \\"tech\\" and tags # \\"yt\\""
        "query:Starred:flags # \\"s\\""
        "query:Linux Reddit:tags # \\"content\\" or title =~ \\"\\\\[OC\\\\]\\"" meta
        "query:First feeds:feedindex < 3"
        "query:Broken:title =~ \\"(\\""
        "query:No filter"
        "query::unread = \\"yes\\""
        "query:Unread Articles:unread = \\"no\\""

        """

    @Test("each query line is a smart feed counting newsboat's items, or a note naming why not; twice = once")
    func importsQueryFeeds() throws {
        let store = try NewsboatFilterTests.makeItems()
        let library = FeedLibrary(store: store)
        let report = try library.importSubscriptions(data: Data(Self.urls.utf8), source: "urls")
        #expect(report.smartFeedsAdded == 4)
        #expect(report.alreadySubscribed == 1)
        let notes = report.notes.joined(separator: "\n")
        #expect(
            report.notes == [
                "urls:2: query feed \"Unread Articles\" is a smart feed; its tags (Query) are not kept",
                "urls:5: query feed \"Linux Reddit\" is a smart feed; its tags (meta) are not kept",
                "urls:6: query feed \"First feeds\" not imported: newsboat filter: newsboat's 'feedindex' (a place in a list on screen) has no equivalent in Zeader",
                "urls:7: query feed \"Broken\" not imported: newsboat filter: \"(\" is not a regular expression Zeader can use: ICU cannot compile it",
                "urls:8: query feed \"No filter\" not imported: it has no filter (query:NAME:FILTER)",
                "urls:9: query feed without a name not imported (query:NAME:FILTER)",
                "urls:10: query feed \"Unread Articles\" not imported: a smart feed of that name with another filter exists",
            ], "\(notes)")
        let context = store.container.viewContext
        try context.performAndWait {
            let smart = try SmartFeeds.stored(in: context)
            #expect(smart.map(\.title) == ["Unread Articles", "Tech feed", "Starred", "Linux Reddit"])
            try #require(smart.count == 4)
            #expect(smart[0].predicateFormat == #"unread = "yes""#)
            func guids(_ format: String) throws -> [String] {
                try ItemOrder.itemIDs(matching: try ZeaderModel.itemPredicate(format: format), in: context)
                    .compactMap { (try? context.existingObject(with: $0)) as? FeedItem }.map(\.guid).sorted()
            }
            // The makeItems dates are counted from a fixed day; only the age-free feeds are checked by guid.
            #expect(try guids(smart[0].predicateFormat) == ["b", "c", "d", "e"])
            #expect(try guids(smart[2].predicateFormat) == ["d"])
            #expect(try guids(smart[3].predicateFormat) == ["b"])
            #expect(try SmartFeeds.counts(of: smart[0].predicateFormat, in: context) == (unread: 4, total: 4))
        }
        let again = try library.importSubscriptions(data: Data(Self.urls.utf8), source: "urls")
        #expect(again.smartFeedsAdded == 0)
        let count = try context.performAndWait { try SmartFeeds.stored(in: context).count }
        #expect(count == 4)
    }
}

/// The command line on newsboat's filter lines: `config check` counts them honoured, and
/// `items --where` reads the language.
@Suite("newsboat filters on the command line", .serialized)
struct NewsboatFilterCLITests {
    @Test("config check prints nothing for the corpus's filter lines and names an untranslatable one")
    func configCheck() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("config")
        try """
        ignore-article "*" "title =~ \\"Sponsor\\""
        ignore-article "https://github.com/CleverRaven/Cataclysm-DDA/releases.atom" "title =~ \\"experimental\\""
        ignore-mode "display"
        define-filter "recent articles" "age between 0:7"
        define-filter "Starred" "flags # \\"S\\""
        define-filter "No YouTube" "tags !~ \\"YouTube\\" and tags !~ \\"Aggregated\\""
        highlight-article "author =~ \\"Andreas Krennmair\\"" white red bold
        define-filter "first" "feedindex < 3"

        """.write(to: file, atomically: true, encoding: .utf8)
        let r = try zeader(["config", "check", file.path], in: dir)
        #expect(r.status == 0, "\(r.stdout)")
        #expect(
            r.stdout
                == "\(file.path):8: warning: define-filter: newsboat filter: newsboat's 'feedindex' (a place in a list on screen) has no equivalent in Zeader (line ignored)\n"
        )
    }

    @Test("items --where reads a newsboat filter; a refused one exits 2 naming it")
    func itemsWhere() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("z.sqlite").path
        let store = try ZeaderStore.open(at: URL(fileURLWithPath: db))
        let context = store.container.viewContext
        try context.performAndWait {
            let server = try FeedSubscription.add(url: "https://tech.example/feed", tags: ["yt"], in: context)
            _ = try ItemImport.upsert(
                [ParsedItem(id: "a", title: "Linux news"), ParsedItem(id: "b", title: "Other")], into: server, in: context,
                now: Date())
            try context.save()
        }
        _ = store.checkpoint()
        var r = try zeader(["items", "--where", #"tags # "yt" and title =~ "LINUX""#, "--db", db], in: dir)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("Linux news") && !r.stdout.contains("Other"), "\(r.stdout)")
        r = try zeader(["items", "--where", "articleindex < 3", "--db", db], in: dir)
        #expect(r.status == 2)
        #expect(r.stderr.contains("'articleindex'"), "\(r.stderr)")
    }
}
