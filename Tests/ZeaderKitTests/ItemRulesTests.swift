import Feeds
import Foundation
import LoopbackHTTPServer
import ObjectGraph
import Testing

@testable import ZeaderKit

@Suite("Rules that act: read, applied to new items in order, and through the binary")
struct ItemRulesTests {
    // MARK: - Reading rules

    @Test("a rule's actions, in either case, with exec taking the rest of the line")
    func parsing() throws {
        var rule = try ItemRules.parse(#"title CONTAINS[cd] "a -> b" -> MARK-READ Flag notify full-article"#)
        #expect(rule.predicateFormat == #"title CONTAINS[cd] "a -> b""#)
        #expect(rule.actions == [.markRead, .flag, .notify, .fullArticle])
        rule = try ItemRules.parse(#"read == NO->flag exec --json "/usr/bin/my tool" -v "%t by %a" 100%%"#)
        #expect(rule.actions == [.flag, .exec(.init(argv: ["/usr/bin/my tool", "-v", "%t by %a", "100%%"], json: true))])
        // Its text reads back as itself.
        #expect(try ItemRules.parse(rule.text) == rule)
        #expect(try ItemRules.parse("author == 'x' -> ignore").isIgnore)
        // newsboat's filter language, as ignore takes it.
        _ = try ItemRules.compile(try ItemRules.parse(#"title =~ "^Sponsored" -> mark-read"#))
    }

    @Test("each bad rule is one error naming the rule and what is wrong")
    func badRules() {
        let cases: [(String, ItemRules.Problem)] = [
            ("title == 'x' flag", .missingArrow),
            ("  -> flag", .noPredicate),
            ("title == 'x' ->  ", .noActions),
            ("title == 'x' -> star", .unknownAction("star")),
            ("title == 'x' -> ignore flag", .ignoreNotAlone),
            ("title == 'x' -> notify ignore", .ignoreNotAlone),
            ("title == 'x' -> exec", .execWithoutProgram),
            ("title == 'x' -> exec --json", .execWithoutProgram),
            ("title == 'x' -> exec %t", .programFromItem("%t")),
            ("title == 'x' -> exec '%l' a", .programFromItem("%l")),
            ("title == 'x' -> exec \"/bin/%a\"", .programFromItem("/bin/%a")),
            ("title == 'x' -> exec echo %x", .unknownField("%x", argument: "%x")),
            ("title == 'x' -> exec echo 50%", .unknownField("%", argument: "50%")),
            ("title == 'x' -> flag\nexec echo", .lineBreak),
        ]
        for (text, problem) in cases {
            #expect(throws: ZeaderError.invalidRule(text, problem), "\(text)") { try ItemRules.parse(text) }
            #expect(ZeaderError.invalidRule(text, problem).isUsageError)
        }
        #expect(
            ZeaderError.invalidRule("t -> star", .unknownAction("star")).description
                == "invalid rule 't -> star': unknown action 'star' (one of: mark-read, flag, tag NAME, untag NAME, notify, full-article, ignore, exec PROGRAM ARG…)"
        )
        for predicate in ["title CONTAINS", "colour == 3", "title == 'x' AND"] {
            #expect(throws: ZeaderError.self) { try ItemRules.compile(try ItemRules.parse(predicate + " -> flag")) }
        }
    }

    // MARK: - Applying rules

    @Test("new items only, rule after rule: a later rule sees what an earlier one did")
    func atImport() throws {
        let store = try makeStore()
        let context = store.container.newBackgroundContext(name: "t")
        let rules = try [
            #"title BEGINSWITH "Release" -> mark-read"#, "read == YES -> flag notify", #"author == "bot" -> exec echo %t"#,
        ].map { try ItemRules.compile(try ItemRules.parse($0)) }
        try context.performAndWait {
            let server = try FeedSubscription.add(url: "https://example.org/feed", in: context)
            try context.save()
            let items = [
                ParsedItem(id: "1", title: "Release 1.0"), ParsedItem(id: "2", title: "Hello", author: "bot"),
                ParsedItem(id: "3", title: "Other"),
            ]
            var firings: [ItemRules.Firing] = []
            let (new, _) = try ItemImport.upsert(
                items, into: server, in: context, now: Date(), acting: rules, firings: &firings)
            #expect(new == 3)
            try context.save()
            #expect(firings.map(\.item.id) == ["1", "1", "2"])
            #expect(firings.map(\.rule) == [rules[0].rule, rules[1].rule, rules[2].rule])
            let stored = try FeedItem.findAll(in: context).sorted { $0.guid < $1.guid }
            #expect(stored.map(\.read) == [true, false, false])
            #expect(stored.map(\.flagged) == [true, false, false])
            #expect(server.unreadCount == 2)
            // Seen again, changed or not: no rule fires.
            firings = []
            _ = try ItemImport.upsert(
                items + [ParsedItem(id: "2", title: "Release 2")], into: server, in: context, now: Date(), acting: rules,
                firings: &firings)
            #expect(firings.isEmpty)
        }
    }

    @Test("exec's fields are whole values in the arguments; JSON on stdin; nothing a shell reads")
    func programsGetTheFields() async throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("args.txt")
        let script = try writeExecutableScript(
            #"printf '[%s]\n' "$@" >> "$ZEADER_TEST_OUT"; cat >> "$ZEADER_TEST_OUT""#, to: dir.appendingPathComponent("p.sh"))
        setenv("ZEADER_TEST_OUT", out.path, 1)
        defer { unsetenv("ZEADER_TEST_OUT") }
        let hostile = ItemRules.Fields(
            feed: "https://example.org/feed", id: "g1", title: "$(touch \(dir.path)/pwned); `id` 'x\" %l",
            link: "https://example.org/a b", author: "-rf", published: Date(timeIntervalSince1970: 0))
        let rules = try [
            "TRUEPREDICATE -> exec \(script.path) %t --link=%l %a %d %%",
            "TRUEPREDICATE -> exec --json \(script.path)",
        ].map { try ItemRules.parse($0) }
        let problems = await ItemRules.runPrograms(rules.map { ItemRules.Firing(rule: $0, item: hostile) })
        #expect(problems.isEmpty)
        let text = try String(contentsOf: out, encoding: .utf8)
        #expect(
            text.hasPrefix(
                "[$(touch \(dir.path)/pwned); `id` 'x\" %l]\n[--link=https://example.org/a b]\n[-rf]\n[1970-01-01T00:00:00Z]\n[%]\n"
            ))
        #expect(
            text.hasSuffix(
                #"{"author":"-rf","feed":"https://example.org/feed","id":"g1","link":"https://example.org/a b","published":"1970-01-01T00:00:00Z","title":"$(touch \#(dir.path)/pwned); `id` 'x\" %l"}"#
            ), "\(text)")
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("pwned").path))
    }

    @Test("a program that fails, runs too long or is missing is one line; at most execLimit run")
    func programProblems() async throws {
        let item = ItemRules.Fields(feed: "f", id: "i", title: "t", link: nil, author: nil, published: nil)
        let failing = try ItemRules.parse("TRUEPREDICATE -> exec false")
        var problems = await ItemRules.runPrograms([.init(rule: failing, item: item)])
        #expect(problems == ["rule program false ended with exit status 1"])
        let missing = try ItemRules.parse("TRUEPREDICATE -> exec /nonexistent/zeader-rule-program")
        problems = await ItemRules.runPrograms([.init(rule: missing, item: item)])
        #expect(problems.count == 1 && problems[0].contains("/nonexistent/zeader-rule-program"))
        let many = Array(
            repeating: ItemRules.Firing(rule: try ItemRules.parse("TRUEPREDICATE -> exec true"), item: item),
            count: ItemRules.execLimit + 3)
        problems = await ItemRules.runPrograms(many)
        #expect(problems == ["3 more rule programs not run: at most 100 per refresh or sync"])
    }
}

@Suite("Rules that act through the binary: zeader refresh, zeader rule, the config")
struct ItemRulesCommandTests {
    /// A feed whose items link to pages on `base`: (guid, title, author).
    static func feed(_ base: URL, _ items: [(String, String, String)]) -> String {
        var xml = #"<?xml version="1.0"?><rss version="2.0"><channel><title>Rules</title><link>\#(base.absoluteString)</link>"#
        for (index, (guid, title, author)) in items.enumerated() {
            xml += """
                <item><guid>\(guid)</guid><title>\(title)</title><link>\(base.absoluteString)/\(guid).html</link>
                <author>\(author)</author><pubDate>\(index + 1) Jan 2025 10:00:00 GMT</pubDate></item>
                """
        }
        return xml + "</channel></rss>"
    }

    @Test("each action on refresh, in order, logged; old items untouched; a feed's text never runs")
    func onRefresh() async throws {
        let routes = Routes()
        try await withLoopbackServer(routes.handler) { http in
            let site = http.url("/site")
            let dir = try temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: dir) }
            routes["/site/feed"] = .ok(
                Self.feed(
                    site,
                    [
                        ("a", "Release 1.0", "dev"), ("b", "Long read", "writer"), ("c", "Sponsored thing", "ads"),
                        ("d", "$(touch \(dir.path)/pwned); rm -rf ~", "bot"),
                    ]))
            routes["/site/b.html"] = .ok(storyPage("b"), contentType: "text/html")
            let db = dir.appendingPathComponent("z.sqlite").path
            let feed = http.url("/site/feed").absoluteString
            let notified = dir.appendingPathComponent("notified.txt")
            let ran = dir.appendingPathComponent("ran.txt")
            try writeExecutableScript("printf '%s\\n' \"$@\" >> '\(notified.path)'", to: dir.appendingPathComponent("notify.sh"))
            try writeExecutableScript(
                "printf '<%s>' \"$@\" >> '\(ran.path)'; echo >> '\(ran.path)'", to: dir.appendingPathComponent("run.sh"))
            try writeConfig(
                """
                notify-program \(dir.path)/notify.sh
                rule title BEGINSWITH "Release" -> mark-read notify
                rule read == YES -> flag
                rule author == "bot" -> exec \(dir.path)/run.sh %i "%t"
                rule title CONTAINS "Sponsored" -> ignore
                rule guid == "b" -> full-article

                """, in: dir)
            #expect(try zeader(["add", feed, "--db", db], in: dir).status == 0)
            var r = try zeader(["refresh", "--db", db], in: dir)
            #expect(r.status == 0, "\(r.stderr)")
            #expect(r.stdout.contains("3 new items, 1 full article"), "\(r.stdout)")
            #expect(
                r.stderr == """
                    zeader refresh: rule 'title BEGINSWITH "Release" -> mark-read notify' on "Release 1.0" (\(feed))
                    zeader refresh: rule 'read == YES -> flag' on "Release 1.0" (\(feed))
                    zeader refresh: rule 'guid == "b" -> full-article' on "Long read" (\(feed))
                    zeader refresh: rule 'author == "bot" -> exec \(dir.path)/run.sh %i %t' on "$(touch \(dir.path)/pwned); rm -rf ~" (\(feed))

                    """, "\(r.stderr)")
            r = try zeader(["items", "--json", "--db", db], in: dir)
            let items = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]])
            let byID = Dictionary(uniqueKeysWithValues: items.map { ($0["id"] as? String ?? "", $0) })
            #expect(byID.keys.sorted() == ["a", "b", "d"])
            #expect(byID["a"]?["read"] as? Bool == true && byID["a"]?["flagged"] as? Bool == true)
            #expect(byID["b"]?["read"] as? Bool == false && byID["b"]?["flagged"] as? Bool == false)
            #expect(try String(contentsOf: ran, encoding: .utf8) == "<d><$(touch \(dir.path)/pwned); rm -rf ~>\n")
            #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("pwned").path))
            #expect(try String(contentsOf: notified, encoding: .utf8).contains("Release 1.0\n"))
            r = try zeader(["items", "--search", "zeppelinfield", "--db", db], in: dir)
            #expect(r.stdout.contains("Long read"), "\(r.stdout)")

            // Seen again: nothing fires.
            try FileManager.default.removeItem(at: ran)
            r = try zeader(["refresh", "--db", db], in: dir)
            #expect(r.status == 0 && r.stderr.isEmpty, "\(r.stderr)")
            #expect(!FileManager.default.fileExists(atPath: ran.path))
        }
    }

    @Test("zeader rule add, list, test and remove; zeader ignore is a spelling of an ignore rule")
    func ruleCommands() async throws {
        let routes = Routes()
        try await withLoopbackServer(routes.handler) { http in
            let site = http.url("/site")
            routes["/site/feed"] = .ok(Self.feed(site, [("a", "Release 1.0", "dev"), ("b", "Hello", "bot")]))
            let dir = try temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: dir) }
            let db = dir.appendingPathComponent("z.sqlite").path
            let feed = http.url("/site/feed").absoluteString
            _ = try zeader(["add", feed, "--db", db], in: dir)
            _ = try zeader(["refresh", "--db", db], in: dir)

            var r = try zeader(["rule", "test", #"title BEGINSWITH "Release" -> mark-read"#, "--db", db], in: dir)
            #expect(r.status == 0 && r.stdout.contains("Release 1.0") && !r.stdout.contains("Hello"), "\(r.stdout)")
            r = try zeader(["rule", "test", #"author = "bot""#, "--json", "--db", db], in: dir)  // newsboat's language
            #expect(r.stdout.contains(#""id":"b""#) && !r.stdout.contains(#""id":"a""#), "\(r.stdout)")
            r = try zeader(["rule", "test", "title CONTAINS", "--db", db], in: dir)
            #expect(r.status == 2 && r.stderr.hasPrefix("zeader rule test: invalid rule 'title CONTAINS': "), "\(r.stderr)")

            r = try zeader(["rule", "add", #"author == "bot" -> flag"#, "--db", db], in: dir)
            #expect(r.status == 0 && r.stdout == "added author == \"bot\" -> flag\n", "\(r.stderr)")
            r = try zeader(["rule", "add", "title == 'x' -> exec %t", "--db", db], in: dir)
            #expect(r.status == 2)
            #expect(
                r.stderr
                    == "zeader rule add: invalid rule 'title == 'x' -> exec %t': exec's program '%t' may not hold a field: an item's fields go in its arguments only\n"
            )
            _ = try zeader(["ignore", "add", #"title == "Spam""#, "--db", db], in: dir)
            r = try zeader(["rule", "add", #"title BEGINSWITH "Release" -> ignore"#, "--db", db], in: dir)
            #expect(r.stdout == "added title BEGINSWITH \"Release\" -> ignore; removed 1 stored item\n", "\(r.stdout)")
            try writeConfig("rule read == NO -> mark-read\n", in: dir)
            r = try zeader(["rule", "list", "--db", db], in: dir)
            #expect(
                r.stdout == """
                    1  title == "Spam" -> ignore
                    2  title BEGINSWITH "Release" -> ignore
                    3  author == "bot" -> flag
                    -  read == NO -> mark-read  (config)

                    """, "\(r.stdout)")
            #expect(try zeader(["ignore", "list", "--db", db], in: dir).stdout.split(separator: "\n").count == 2)
            r = try zeader(["rule", "remove", "3", "--db", db], in: dir)
            #expect(r.stdout == "removed author == \"bot\" -> flag\n")
            r = try zeader(["rule", "remove", "1", "--db", db], in: dir)
            #expect(r.stdout == "removed title == \"Spam\" -> ignore\n")
            r = try zeader(["rule", "remove", "2", "--db", db], in: dir)
            #expect(r.status == 1 && r.stderr == "zeader rule remove: no stored rule 2 (see `zeader rule list`)\n")

            // The stored rule acts on the next refresh's new items.
            _ = try zeader(["rule", "add", #"title == "New" -> flag"#, "--db", db], in: dir)
            routes["/site/feed"] = .ok(Self.feed(site, [("b", "Hello", "bot"), ("n", "New", "dev")]))
            r = try zeader(["refresh", "--db", db], in: dir)
            #expect(r.stderr.contains(#"rule 'title == "New" -> flag' on "New""#), "\(r.stderr)")
            r = try zeader(["items", "--flagged", "--db", db], in: dir)
            #expect(r.stdout.contains("New") && !r.stdout.contains("Hello"), "\(r.stdout)")
        }
    }

    @Test("a bad rule in the config is one error naming its line")
    func badConfigRule() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("z.sqlite").path
        for (line, message) in [
            ("rule title == 'x' -> star", "unknown action 'star'"), ("rule title == 'x' -> exec %l", "may not hold a field"),
            ("rule title == -> flag", "invalid rule 'title == -> flag'"),
            ("rule title == 'x'", "write it as PREDICATE -> ACTION…"),
            ("rule read == NO -> IGNORE flag", "ignore must be the rule's only action"),
        ] {
            try writeConfig("# rules\n\(line)\n", in: dir)
            let r = try zeader(["refresh", "--db", db], in: dir)
            #expect(r.status != 0)
            #expect(r.stderr.contains("config:2: ") && r.stderr.contains(message), "\(line): \(r.stderr)")
            #expect(r.stderr.split(separator: "\n").count == 1, "\(r.stderr)")
        }
    }
}

@Suite("Rules that act on the items a sync pulls")
struct ItemRulesSyncTests {
    @Test("mark-read and flag stay and reach the server; ignore keeps an item out; full-article; firings reported once")
    func onSync() async throws {
        let pages = try LoopbackHTTPServer(handler: { request in
            request.path == "/3.html" ? .ok(storyPage("3"), contentType: "text/html") : .status(404)
        })
        defer { pages.stop() }
        let server = try FakeGReaderServer()
        let newest = FakeGReaderServer.now
        server.update {
            $0.items = [
                .init(id: newest, link: "http://fake.example/1", title: "Release 2.0"),
                .init(id: newest - 1, link: "http://fake.example/2", title: "Sponsored"),
                .init(id: newest - 2, link: pages.url("/3.html").absoluteString, title: "Plain"),
            ]
        }
        let store = try ZeaderStore.open(at: try temporaryDirectory().appendingPathComponent("z.sqlite"))
        let rules = try [
            #"title BEGINSWITH "Release" -> mark-read notify"#, "read == YES -> flag", #"title == "Plain" -> full-article"#,
        ].map { try ItemRules.parse($0) }
        let sync = FeedSync(
            store: store, ignoreRules: [Killfile.Rule(scope: .all, predicateFormat: #"title == "Sponsored""#)], itemRules: rules)
        try sync.addAccount(apiURL: server.apiURL, user: "alice", token: "t")
        var report = try await sync.sync()
        #expect(report.newItems == 2)
        #expect(report.firings.map(\.rule) == rules)
        #expect(report.firings.map(\.item.title) == ["Release 2.0", "Release 2.0", "Plain"])
        let articles = await FeedLibrary(store: store).fetchFullArticles(
            for: report.firings, with: FeedFetcher(configuration: FetcherConfiguration(version: "test")))
        #expect(articles == FullArticleCount(fetched: 1, failed: 0))
        #expect(try FeedLibrary(store: store).items(ItemQuery(search: "zeppelinfield")).map(\.title) == ["Plain"])
        // (title, read, flagged) of each stored item.
        func states() throws -> [String] {
            try FeedLibrary(store: store).items(ItemQuery()).map { "\($0.title ?? "") \($0.read) \($0.flagged)" }.sorted()
        }
        #expect(try states() == ["Plain false false", "Release 2.0 true true"])
        // The server was told, so the next sync keeps the marks; nothing fires again.
        let posts = server.shared.state.withLock { $0.posts }
        #expect(posts.contains { $0.hasPrefix("edit-tag") && $0.contains("read") }, "\(posts)")
        #expect(posts.contains { $0.hasPrefix("edit-tag") && $0.contains("starred") }, "\(posts)")
        server.update { state in
            for index in state.items.indices where state.items[index].id == newest {
                state.items[index].read = true
                state.items[index].starred = true
            }
        }
        report = try await sync.sync()
        #expect(report.firings.isEmpty)
        #expect(try states() == ["Plain false false", "Release 2.0 true true"])
    }
}
