import Dispatch
import Foundation
import ObjectGraph
import Testing
import ZeaderKit

@testable import ZeaderConfig
@testable import ZeaderTUI

/// Hidden read feeds and items, sort orders, the tag list, the filter and the link list.
@Suite struct ViewsTests {
    func feedTitles(_ h: Harness) -> [String] { h.queue.sync { h.app.state.feeds.map(\.title) } }
    func itemTitles(_ h: Harness) -> [String] {
        h.queue.sync { (h.app.state.items?.ids ?? []).compactMap { h.app.model.itemRow($0)?.title } }
    }

    @Test func lHidesAndShowsReadFeeds() throws {
        let h = try Harness()
        h.type(.character("A"))  // Zeader News read
        #expect(h.type(.character("l")).contains("Hiding read feeds"))
        #expect(!feedTitles(h).contains("Zeader News"))
        #expect(h.line(1).contains("Swift on Linux"))
        #expect(h.type(.character("l")).contains("Showing read feeds"))
        #expect(feedTitles(h).first == "Zeader News")
    }

    @Test func capitalLHidesReadItems() throws {
        let h = try Harness()
        h.type(.enter)
        #expect(itemTitles(h).count == 4)
        #expect(h.type(.character("L")).contains("Hiding read items"))
        #expect(itemTitles(h).count == 3)
        #expect(!itemTitles(h).contains("Undo is one key away"))
        #expect(h.line(0).contains("Zeader News (3 items)"))
        h.type(.character("L"))
        #expect(itemTitles(h).count == 4)
    }

    @Test func sortPromptSortsItemsAndFeeds() throws {
        let h = try Harness()
        h.type(.enter)
        #expect(h.type(.character("g")).contains("Sort by (d)ate/(t)itle/(a)uthor"))
        #expect(h.type(.character("t")).contains("Sorted by title"))
        let titles = itemTitles(h)
        #expect(titles == titles.sorted { $0.localizedCaseInsensitiveCompare($1) == .orderedAscending })
        #expect(h.line(1).contains("Safe by default"))
        h.type(.character("G"), .character("t"))
        #expect(itemTitles(h) == titles.reversed())
        h.type(.character("g"), .character("d"))
        #expect(itemTitles(h).first == "Welcome to Zeader")
        // The feed list: by title, then by unread count.
        h.type(.character("q"), .character("g"), .character("t"))
        #expect(Array(feedTitles(h).prefix(3)) == ["Swift on Linux", "Zeader News", "世界の文字 · World Scripts"])
        #expect(feedTitles(h).last == "Unread about Swift")  // smart feeds stay after the feeds
        // The cursor stayed on Zeader News through the sort: A marks it read, fewest unread, last.
        #expect(h.queue.sync { h.app.state.selectedFeed?.title } == "Zeader News")
        h.type(.character("A"), .character("g"), .character("u"))
        #expect(feedTitles(h)[2] == "Zeader News")
        // An unknown field key closes the prompt and changes nothing.
        h.type(.character("g"), .character("z"))
        #expect(h.queue.sync { h.app.state.prompt } == nil)
    }

    @Test func tagListPicksATagsFeeds() throws {
        let h = try Harness()
        #expect(h.type(.character("t")).contains("No feed has a tag"))
        try h.queue.sync {
            let servers = try FeedEditing.servers(in: h.app.model.context)
            try FeedEditing.tag(servers[1].objectID, add: ["linux"], in: h.app.model.context)
            try FeedEditing.tag(servers[0].objectID, add: ["news"], in: h.app.model.context)
        }
        let screen = h.type(.character("t"))
        #expect(h.line(0).contains("Tags"))
        #expect(screen.contains("linux (1 feeds)") && screen.contains("news (1 feeds)"))
        #expect(h.type(.enter).contains("Showing the feeds tagged linux"))
        #expect(feedTitles(h) == ["Swift on Linux [linux]"])
        h.type(.control("t"))
        #expect(feedTitles(h).count == 4)
    }

    @Test func filterNarrowsTheListAndShowsItsErrorUnderThePrompt() throws {
        let h = try Harness()
        h.type(.enter, .character("F"))
        h.type(text: "title CONTAINS[c] \"undo\"")
        #expect(h.line(29).hasPrefix("Filter: title CONTAINS[c] \"undo\""))
        #expect(h.type(.enter).contains("1 match the filter"))
        #expect(itemTitles(h) == ["Undo is one key away"])
        // A bad predicate keeps the prompt open, the error under it.
        h.type(.character("F"), .control("u"))
        h.type(text: "title CONTAINS")
        h.type(.enter)
        #expect(h.line(28).hasPrefix("Filter: title CONTAINS"))
        #expect(h.line(29).contains("invalid --where predicate"))
        #expect(itemTitles(h) == ["Undo is one key away"])
        h.type(.escape, .control("f"))
        #expect(itemTitles(h).count == 4)
        // The feed list filters on Server's attributes.
        h.type(.character("q"), .character("F"))
        h.type(text: "title BEGINSWITH \"Swift\"")
        h.type(.enter)
        #expect(feedTitles(h) == ["Swift on Linux"])
        #expect(h.type(.control("f")).contains("Filter removed"))
        #expect(feedTitles(h).count == 4)
    }

    @Test func hiddenReadItemsSortAndFilterCombine() throws {
        let h = try Harness()
        h.type(.enter, .character("L"), .character("g"), .character("t"), .character("F"))
        h.type(text: "title CONTAINS[c] \"e\"")
        h.type(.enter)
        #expect(itemTitles(h) == ["Safe by default: no escape sequences from feeds", "Search like iTunes", "Welcome to Zeader"])
    }

    @Test func linkListOpensAndWritesLinks() throws {
        var config = ReaderConfig()
        config.browser = "true"
        let h = try Harness(config: config)
        h.type(.enter, .enter)
        let screen = h.type(.character("U"))
        #expect(h.line(0).contains("Links of Welcome to Zeader"))
        // Numbered as the article numbers them; the item's own link, not in its body, last.
        #expect(screen.contains("1  https://zeader.example/manual"))
        #expect(screen.contains("https://zeader.example/welcome  [the item's link]"))
        #expect(h.type(.character("j"), .enter).contains("Opened https://"))
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("zeader-links-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        h.type(.character("s"))
        h.type(text: file.path)
        #expect(h.type(.enter).contains("Wrote"))
        let written = try String(contentsOf: file, encoding: .utf8).split(separator: "\n")
        #expect(written.first == "https://zeader.example/manual")
        #expect(written.last == "https://zeader.example/welcome")
        #expect(written.count == h.queue.sync { h.app.state.picker?.values.count })
        // A file that cannot be written says so.
        h.type(.character("s"))
        h.type(text: "/nonexistent-dir/links")
        #expect(h.type(.enter).contains("Cannot write /nonexistent-dir/links"))
        h.type(.character("q"))
        #expect(h.screen.contains("Title: Welcome to Zeader"))
    }
}

/// newsboat's configuration directives and `zeader config check`.
@Suite struct NewsboatConfigTests {
    @Test func newsboatDirectivesHaveTheirEquivalents() throws {
        let config = try ReaderConfig.parse(
            """
            auto-reload yes
            reload-time 30
            reload-threads 3
            browser "firefox --new-tab %u"
            show-read-feeds no
            show-read-articles no
            feed-sort-order unreadarticlecount-asc
            article-sort-order author
            bind-key ^D pagedown articlelist
            bind-key x reload-all
            max-items 100
            notify-program "~/bin/notify"
            color listfocus yellow blue bold
            cache-file "~/.newsboat/cache.db"
            """, file: "config")
        #expect(config.refreshIntervalMinutes == 30)
        #expect(config.reloadThreads == 3)
        #expect(config.views.showReadFeeds == false && config.views.showReadArticles == false)
        #expect(config.views.feedOrder == FeedSortOrder(field: .unreadarticlecount, ascending: true))
        #expect(config.views.itemOrder == ItemSortOrder(field: .author, ascending: true))
        #expect(config.keyMap.action(for: .control("d"), in: .articlelist) == .pageDown)
        #expect(config.keyMap.action(for: .control("d"), in: .feedlist) == .deleteAllArticles)
        #expect(config.keyMap.action(for: .character("x")) == .refreshAll)
        #expect(config.retention.maxItems.first?.value == 100 && config.articleCommands.notifyProgram == "~/bin/notify")
        #expect(config.colorRules == [ColorRule(element: "listfocus", foreground: 3, background: 4, attributes: ["bold"])])
        #expect(
            config.warnings.map(\.description) == [
                "config:14: newsboat's 'cache-file' is not used: the store is --db PATH or $ZEADER_DB; zeader import reads newsboat's cache.db (line ignored)"
            ])
        #expect(
            try LinkOpener.command(for: "https://a.example/x", browser: config.browser, throughShell: false) == [
                "firefox", "--new-tab", "https://a.example/x",
            ])
        // auto-reload no turns the interval off whatever reload-time says.
        #expect(try ReaderConfig.parse("reload-time 5\nauto-reload no", file: "c").refreshIntervalMinutes == 0)
    }

    @Test func checkReportsEveryProblemInLineOrder() {
        let problems = ReaderConfig.check(
            """
            bind-key $ purge-deleted
            frobnicate 1
            show-read-feeds maybe
            article-sort-order size
            color listfocus purple blue
            bind-key j fly
            """, file: "cfg")
        #expect(problems.count == 6)
        #expect(
            problems[0].description
                == "cfg:1: warning: newsboat's action 'purge-deleted' is not used: a deleted item is gone at once (z undoes) (line ignored)"
        )
        #expect(problems[1].description == "cfg:2: warning: unknown directive 'frobnicate' (line ignored)")
        #expect(problems[2].description == "cfg:3: error: show-read-feeds needs yes or no")
        #expect(problems[3].description.hasPrefix("cfg:4: warning: unknown sort order 'size'"))
        #expect(problems[3].description.hasSuffix("(the default order is kept)"))
        #expect(problems[4].description.hasPrefix("cfg:5: warning: unknown color in 'purple blue'"))
        #expect(problems[5].description.hasPrefix("cfg:6: warning: unknown action 'fly'"))
        #expect(problems.map(\.isError) == [false, false, true, false, false, false])
        #expect(ReaderConfig.check("bind-key j down\n", file: "cfg").isEmpty)
    }

    @Test func theFirstWarningShowsOnTheStatusLine() throws {
        let config = try ReaderConfig.parse("auto-reload no\nfrobnicate\ncache-file x\n", file: "cfg")
        let h = try Harness(config: config)
        #expect(h.line(29).contains("cfg:2: unknown directive 'frobnicate' (line ignored) (and 1 more: zeader config check)"))
    }

    @Test func viewsAreRememberedInTheStateFile() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("zeader-views-\(UUID().uuidString)/views")
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        var config = ReaderConfig()
        config.viewStateURL = file
        let h = try Harness(config: config)
        h.type(.character("l"), .character("g"), .character("t"), .enter, .character("L"))
        var reloaded = ReaderConfig()
        reloaded.rememberViews(at: file)
        #expect(reloaded.views.showReadFeeds == false)
        #expect(reloaded.views.showReadArticles == false)
        #expect(reloaded.views.feedOrder == FeedSortOrder(field: .title))
        #expect(ViewStateFile.defaultURL(environment: ["XDG_STATE_HOME": "/s"]).path == "/s/zeader/views")
        #expect(try String(contentsOf: file, encoding: .utf8).contains("show-read-feeds no yes\n"))
        #expect(ViewStateFile.defaultURL(environment: ["HOME": "/h"]).path == "/h/.local/state/zeader/views")
    }
}

/// A sorted or filtered list of many items shows its first pages at once and reads the
/// rest as the cursor nears them.
@Suite struct LargeListTests {
    @Test func aShapedListLoadsItsFirstPagesThenTheRest() throws {
        let h = try Harness()
        try h.queue.sync {
            let context = h.app.model.context
            let server = try FeedEditing.servers(in: context)[0]
            for i in 0..<2_500 {
                let item = context.insert(FeedItem.self)
                item.guid = "bulk-\(i)"
                item.title = String(format: "Bulk %04d", i)
                item.sortDate = Date(timeIntervalSince1970: 1_000_000 + Double(i))
                item.read = i != 1_700
                item.server = server
            }
            try context.save()
        }
        h.type(.enter)
        #expect(h.line(0).contains("Zeader News (2504 items)"))
        h.type(.character("g"), .character("t"))
        #expect(h.line(0).contains("Zeader News (1000+ items)"))
        #expect(h.line(1).contains("Bulk 0000"))
        // n finds the unread item past the first pages (and the feed's own unread ones first).
        h.type(.character("G"), .character("t"))
        #expect(h.line(1).contains("Welcome to Zeader"))
        h.type(.character("g"), .character("t"), .character("n"))
        #expect(h.queue.sync { h.app.state.article?.title } == "Bulk 1700")
        #expect(h.queue.sync { h.app.state.items?.isComplete } == true)
        // END reads the rest first, so it lands on the real last item.
        h.type(.character("q"), .character("g"), .character("a"))
        #expect(h.queue.sync { h.app.state.items?.isComplete } == false)
        h.type(.end)
        #expect(h.line(0).contains("(2504 items)"))
        #expect(h.queue.sync { h.app.state.items?.position.cursor } == 2_503)
    }
}

/// The state file never hides a change of the config.
@Suite struct ViewStateFileTests {
    func file(_ text: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("zeader-views-\(UUID().uuidString)")
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url
    }

    @Test func aChoiceHoldsOnlyWhileTheConfigSaysWhatItSaidThen() throws {
        let state = try file("show-read-feeds no yes\nfeed-sort-order title-asc none-asc\n")
        defer { try? FileManager.default.removeItem(at: state) }
        // The config unchanged: the reader's choices hold.
        var config = try ReaderConfig.parse("show-read-articles yes\n", file: "config")
        config.rememberViews(at: state)
        #expect(config.views.showReadFeeds == false)
        #expect(config.views.feedOrder == FeedSortOrder(field: .title))
        // show-read-feeds changed in the config (to what the reader chose, or back): the config wins.
        config = try ReaderConfig.parse("show-read-feeds no\nfeed-sort-order unreadarticlecount\n", file: "config")
        config.rememberViews(at: state)
        #expect(config.views.showReadFeeds == false)
        #expect(config.views.feedOrder == FeedSortOrder(field: .unreadarticlecount))
        config = try ReaderConfig.parse("show-read-feeds yes\n", file: "config")
        config.rememberViews(at: state)
        #expect(config.views.showReadFeeds == false)  // the config still says yes: the choice holds
    }

    @Test func onlyWhatDiffersFromTheConfigIsWritten() throws {
        var config = try ReaderConfig.parse("show-read-feeds no\narticle-sort-order title\n", file: "config")
        config.rememberViews(at: nil)
        var views = config.views
        views.showReadArticles = false
        let text = ViewStateFile.text(views, config: config.viewsInConfigFile)
        let lines = text.split(separator: "\n").filter { !$0.hasPrefix("#") }
        #expect(lines == ["show-read-articles no yes"])
    }

    @Test func anOlderFilesLinesHoldOnlyWhereTheConfigKeepsTheDefault() throws {
        let state = try file("# Written by zeader\nshow-read-feeds no\nshow-read-articles no\n")
        defer { try? FileManager.default.removeItem(at: state) }
        var config = try ReaderConfig.parse("show-read-articles yes\nshow-read-feeds yes\n", file: "config")
        config.rememberViews(at: state)
        #expect(config.views.showReadFeeds == false && config.views.showReadArticles == false)
        config = try ReaderConfig.parse("feed-sort-order title\n", file: "config")
        config.rememberViews(at: state)
        #expect(config.views.showReadFeeds == false)
        let garbled = try file("show-read-feeds maybe yes\nfeed-sort-order\nbogus x y\n")
        defer { try? FileManager.default.removeItem(at: garbled) }
        config = try ReaderConfig.parse("", file: "config")
        config.rememberViews(at: garbled)
        #expect(config.views == ViewOptions())
    }
}
