import Feeds
import Foundation
import ObjectGraph
import Testing
import ZeaderKit

@testable import ZeaderConfig
@testable import ZeaderTUI

/// newsboat's default keys do newsboat's actions: its whole key table (newsboat 2.21's manual)
/// against Zeader's defaults; `u` lists the links where undo lived, undo and redo on keys newsboat
/// leaves free; the link list numbers links as the article does; digits jump in a list.
@Suite struct NewsboatDefaultKeysTests {
    /// newsboat's default key table, as its manual lists it: key, action name.
    static let newsboatTable: [(key: Key, action: String)] = [
        (.enter, "open"), (.character("q"), "quit"), (.character("Q"), "hard-quit"), (.character("r"), "reload"),
        (.character("R"), "reload-all"), (.character("A"), "mark-feed-read"), (.character("C"), "mark-all-feeds-read"),
        (.character("s"), "save"), (.character("n"), "next-unread"), (.character("p"), "prev-unread"),
        (.character("J"), "next"), (.character("K"), "prev"), (.control("k"), "random-unread"),
        (.character("o"), "open-in-browser"), (.character("O"), "open-in-browser-and-mark-read"),
        (.character("?"), "help"), (.control("u"), "toggle-source-view"), (.character("N"), "toggle-article-read"),
        (.character("l"), "toggle-show-read-feeds"), (.character("u"), "show-urls"), (.control("t"), "clear-tag"),
        (.character("t"), "set-tag"), (.character("/"), "open-search"), (.character("#"), "goto-url"),
        (.character("1"), "one"), (.character("2"), "two"), (.character("3"), "three"), (.character("4"), "four"),
        (.character("5"), "five"), (.character("6"), "six"), (.character("7"), "seven"), (.character("8"), "eight"),
        (.character("9"), "nine"), (.character("0"), "zero"), (.character("e"), "enqueue"),
        (.character("E"), "edit-urls"), (.control("r"), "reload-urls"), (.control("l"), "redraw"),
        (.character(":"), "cmdline"), (.character("F"), "set-filter"), (.character("f"), "select-filter"),
        (.control("f"), "clear-filter"), (.control("b"), "bookmark"), (.control("e"), "edit-flags"),
        (.control("n"), "next-unread-feed"), (.control("p"), "prev-unread-feed"), (.character("D"), "delete-article"),
        (.control("d"), "delete-all-articles"), (.character("$"), "purge-deleted"), (.character("v"), "view-dialogs"),
        (.control("x"), "close-dialog"), (.control("v"), "next-dialog"), (.control("g"), "prev-dialog"),
        (.character("|"), "pipe-to"), (.character("g"), "sort"), (.character("G"), "rev-sort"), (.up, "up"),
        (.down, "down"), (.pageUp, "pageup"), (.pageDown, "pagedown"), (.home, "home"), (.end, "end"),
        (.character(","), "macro-prefix"), (.tab, "switch-focus"),
        // newsboat's j and k go to the next and previous feed from an item list only.
        (.character("j"), "next-feed"), (.character("k"), "prev-feed"),
    ]

    /// newsboat's keys whose action holds in one view only: elsewhere newsboat gives them
    /// nothing to do, and Zeader moves the cursor with them.
    static let viewOnly: [Key: (view: KeyView, elsewhere: Action)] = [
        .character("j"): (.articlelist, .down), .character("k"): (.articlelist, .up),
    ]

    @Test func everyKeyOfNewsboatsTableDoesNewsboatsActionOrNothing() {
        for (key, name) in Self.newsboatTable {
            let bound = KeyMap.default.action(for: key)
            if let only = Self.viewOnly[key] {
                #expect(KeyMap.default.action(for: key, in: only.view) == Action(configName: name), "\(key.name)")
                #expect(KeyMap.default.action(for: key, in: .searchresultslist) == Action(configName: name))
                for view in [KeyView.feedlist, .article, .help, .urlview] {
                    #expect(KeyMap.default.action(for: key, in: view) == only.elsewhere, "\(key.name) in \(view)")
                }
            } else if let action = Action(configName: name) {
                #expect(bound == action, "\(key.name) is newsboat's \(name), Zeader's \(bound?.rawValue ?? "nothing")")
            } else {
                // An action Zeader does not have: the key does nothing rather than something else.
                #expect(bound == nil, "\(key.name) is newsboat's \(name), Zeader's \(bound?.rawValue ?? "nothing")")
            }
        }
    }

    @Test func undoAndRedoAreOnKeysNewsboatLeavesFreeAndStayBindable() throws {
        let newsboatKeys = Set(Self.newsboatTable.map(\.key))
        for action in [Action.undo, .redo] {
            let keys = KeyMap.default.keys(for: action)
            #expect(!keys.isEmpty)
            #expect(newsboatKeys.isDisjoint(with: keys), "\(action): \(keys.map(\.name))")
        }
        #expect(KeyMap.default.keys(for: .undo) == [.character("z")])
        #expect(KeyMap.default.keys(for: .redo) == [.character("Z")])
        let config = try ReaderConfig.parse("bind-key ^Y redo\nbind-key x undo\n", file: "c")
        #expect(config.keyMap.action(for: .control("y")) == .redo)
        #expect(config.keyMap.action(for: .character("x")) == .undo)
        #expect(config.warnings.isEmpty)
    }

    @Test func zUndoesZRedoesAndUAndCtrlRDoNotUndo() throws {
        let h = try Harness()
        h.type(.enter, .character("N"), .character("q"))  // Zeader News: its first item read
        #expect(h.line(1).contains("2/4"))
        h.type(.character("u"))  // the feed list has no item: u lists no links and undoes nothing
        #expect(h.line(1).contains("2/4"))
        h.type(.control("r"))
        #expect(h.screen.contains("Key ^R is not bound"))
        h.type(.character("z"))
        #expect(h.line(1).contains("3/4"))
        #expect(h.screen.contains("Undid Mark Read"))
        h.type(.character("Z"))
        #expect(h.line(1).contains("2/4"))
        #expect(h.screen.contains("Redid Mark Read"))
    }

    @Test func uListsTheLinksInTheItemListAndTheArticleAndHelpSaysSo() throws {
        let h = try Harness()
        h.type(.enter)  // Zeader News
        for fromArticle in [false, true] {
            if fromArticle { h.type(.enter) }
            let before = h.queue.sync { h.app.state.stack.count }
            let screen = h.type(.character("u"))
            #expect(h.queue.sync { h.app.state.picker?.kind } == .links, "\(screen)")
            #expect(h.queue.sync { h.app.state.stack.count } == before + 1)
            h.type(.character("q"))
        }
        h.type(.character("?"))
        let help = HelpView.lines(keyMap: KeyMap.default)
        #expect(help.contains { $0.hasPrefix("U u ") && $0.hasSuffix("[show-urls]") }, "\(help)")
        #expect(help.contains { $0.hasPrefix("z ") && $0.hasSuffix("[undo]") })
        #expect(help.contains { $0.hasPrefix("Z ") && $0.hasSuffix("[redo]") })
        #expect(help.contains("In a list, type an entry's number then ENTER to go to it."))
    }

    // MARK: Link numbers

    /// A store with one feed whose first item has links, an image, a link repeated and an
    /// enclosure, and whose own link is not in its body.
    static func linkStore() throws -> ZeaderStore {
        let xml = """
            <?xml version="1.0"?>
            <rss version="2.0"><channel><title>Links</title><link>https://site.example/</link>
            <item><title>Many links</title><link>https://site.example/item</link><guid>m1</guid>
            <pubDate>Sat, 21 Nov 2026 12:00:00 GMT</pubDate>
            <description><![CDATA[<p>See <a href="https://site.example/a">A</a> and
            <img src="https://site.example/pic.png" alt="pic"> then <a href="https://site.example/b">B</a>,
            <a href="https://site.example/a">A again</a>.</p>]]></description>
            <enclosure url="https://site.example/ep.mp3" length="1000" type="audio/mpeg"/></item>
            <item><title>Second</title><link>https://site.example/second</link><guid>m2</guid>
            <pubDate>Sat, 21 Nov 2026 11:00:00 GMT</pubDate>
            <description>plain</description></item>
            <item><title>Third</title><link>https://site.example/third</link><guid>m3</guid>
            <pubDate>Sat, 21 Nov 2026 10:00:00 GMT</pubDate>
            <description>plain</description></item>
            </channel></rss>
            """
        let store = try ZeaderStore.inMemory()
        let context = store.container.newBackgroundContext(name: "links")
        try context.performAndWait {
            let feed = try FeedParser.parse(data: Data(xml.utf8), url: URL(string: "https://site.example/feed"))
            let server = try FeedSubscription.add(url: "https://site.example/feed", in: context)
            ItemImport.updateDetails(of: server, from: feed)
            _ = try ItemImport.upsert(feed.items, into: server, in: context, now: Date(timeIntervalSince1970: 1_795_248_000))
            try context.save()
        }
        return store
    }

    @Test func theLinkListNumbersLinksImagesAndEnclosuresAsTheArticleShowsThem() throws {
        var config = ReaderConfig()
        config.browser = "true"
        let h = try Harness(config: config, store: try Self.linkStore())
        h.type(.enter)
        let items = h.screen
        let article = h.type(.home, .enter)
        let expected = [
            "https://site.example/a", "https://site.example/pic.png", "https://site.example/b",
            "https://site.example/ep.mp3",
        ]
        for (offset, url) in expected.enumerated() {
            #expect(article.contains("[\(offset + 1)] \(url)"), "\(items)\n\(article)")
        }
        #expect(article.contains("[4] https://site.example/ep.mp3 (enclosure)"))
        #expect(!article.contains("[5]"))
        // From the article and from the item list: the same numbers, the item's own link after them.
        for fromArticle in [true, false] {
            if !fromArticle { h.type(.character("q"), .home) }
            let screen = h.type(.character("u"))
            let (entries, values) = h.queue.sync { (h.app.state.picker?.entries ?? [], h.app.state.picker?.values ?? []) }
            #expect(values == expected + ["https://site.example/item"], "\(screen)")
            for (offset, entry) in entries.enumerated() { #expect(entry.hasPrefix("\(offset + 1)  ")) }
            try #require(entries.count == 5)
            #expect(entries[3].contains("https://site.example/ep.mp3 (audio/mpeg") && entries[3].hasSuffix("[enclosure]"))
            h.type(.character("q"))
        }
        // The article's numbers open the same links: typed while reading, and through #.
        h.type(.enter)
        #expect(h.type(.character("4"), .enter).contains("Opened https://site.example/ep.mp3"))
        #expect(h.type(.character("#"), .character("2"), .enter).contains("Opened https://site.example/pic.png"))
        #expect(h.type(.character("5"), .enter).contains("No link 5"))
    }

    // MARK: Digits

    @Test func aDigitOpensThePositionPromptAndEnterGoesThere() throws {
        let h = try Harness()
        // The feed list: Zeader News, Swift on Linux, World Scripts, the smart feed.
        #expect(h.type(.character("3")).contains(":3"))
        h.type(.enter)
        #expect(h.queue.sync { h.app.state.feedPosition.cursor } == 2)
        // Several digits, ESC forgets them.
        h.type(.character("1"), .character("2"), .escape)
        #expect(h.queue.sync { h.app.state.feedPosition.cursor } == 2)
        // Out of range: one message, nothing moves.
        for typed in ["9", "0", "12", "99999999999999999999999"] {
            let screen = h.type(text: typed)
            #expect(screen.contains(":" + typed))
            #expect(h.type(.enter).contains("No entry \(typed) (the list has 4)"), "\(h.screen)")
            #expect(h.queue.sync { h.app.state.feedPosition.cursor } == 2)
        }
        // The item list, 1-based.
        h.type(.home, .enter, .character("2"), .enter)  // Zeader News: four items
        #expect(h.queue.sync { h.app.state.items?.position.cursor } == 1)
        h.type(.character("4"), .enter)
        #expect(h.queue.sync { h.app.state.items?.position.cursor } == 3)
        #expect(h.type(.character("5"), .enter).contains("No entry 5 (the list has 4)"))
        #expect(h.queue.sync { h.app.state.items?.position.cursor } == 3)
    }

    @Test func digitsAreNewsboatsBindableActions() throws {
        let config = try ReaderConfig.parse("bind-key 5 toggle-read\nbind-key x seven\n", file: "c")
        #expect(config.warnings.isEmpty, "\(config.warnings)")
        #expect(config.keyMap.action(for: .character("5")) == .toggleRead)
        #expect(config.keyMap.action(for: .character("x")) == .seven)
        let h = try Harness(config: config)
        #expect(h.type(.character("x")).contains(":7"))
    }
}
