import Dispatch
import Foundation
import LoopbackHTTPServer
import ObjectGraph
import Testing
import ZeaderKit

@testable import ZeaderConfig
@testable import ZeaderTUI

/// newsboat's remaining keys on the demo feeds (Zeader News: 4 items, 3 unread; Swift on
/// Linux 3/3; World Scripts 3/3): D and ^D delete, ^E flags, the command line, the dialog
/// keys, ^U and #.
@Suite struct NewsboatCommandsTests {
    func ids(_ h: Harness) -> [ObjectID] { h.queue.sync { h.app.state.items?.ids ?? [] } }
    func screens(_ h: Harness) -> [AppState.Screen.Kind] { h.queue.sync { h.app.state.screens } }
    func titles(_ h: Harness) -> [String] {
        h.queue.sync { (h.app.state.items?.ids ?? []).map { h.app.model.itemRow($0)?.title ?? "" } }
    }
    /// The tombstones D and ^D left (the demo's ignore rule leaves one of its own).
    func tombstones(_ h: Harness) throws -> [String] {
        try h.queue.sync {
            try h.app.model.context.fetch(
                FetchRequest<RemovedItem>(predicate: try ObjectPredicate(format: "reason == %@", "deleted"))
            ).map(\.guid)
        }
    }

    @Test func capitalDDeletesTheItemAndUUndoesIt() throws {
        let h = try Harness()
        h.type(.enter)
        let before = ids(h)
        let beforeTitles = titles(h)
        #expect(before.count == 4)
        h.type(.down)
        let screen = h.type(.character("D"))
        #expect(screen.contains("Deleted 'Search like iTunes' (z to undo)"))
        #expect(ids(h) == [before[0]] + before[2...])
        #expect(h.queue.sync { h.app.state.items?.selectedID } == before[2])  // the next item slides under the cursor
        #expect(h.line(0).contains("Zeader News (3 items)"))
        #expect(try tombstones(h).count == 1)
        h.type(.character("z"))
        #expect(titles(h) == beforeTitles)  // the same items (the restored one under a new ID)
        #expect(try tombstones(h).isEmpty)
        #expect(h.screen.contains("Undid Delete Item"))
        // From the article view: the item goes and the list is back on screen.
        #expect(h.queue.sync { h.app.state.items?.position.cursor } == 2)  // still on the item it was on
        h.type(.enter)
        #expect(h.queue.sync { h.app.state.article?.title } == "Undo is one key away")
        #expect(screens(h) == [.feeds, .items, .article])
        h.type(.character("D"))
        #expect(screens(h) == [.feeds, .items])
        #expect(ids(h).count == 3)
        // Nothing selected on the feed list: it says so.
        h.type(.character("q"))
        #expect(h.type(.character("D")).contains("Open or select an item first"))
        #expect(h.line(1).contains("3/3"))  // the deleted one had been read by opening it
    }

    @Test func controlDDeletesEveryListedItemAfterAsking() throws {
        let h = try Harness()
        h.type(.character("j"), .enter)
        #expect(h.type(.control("d")).contains("Delete all 3 items of this list? [y/n]"))
        h.type(.character("n"))
        #expect(ids(h).count == 3)
        h.type(.control("d"), .character("y"))
        #expect(ids(h).isEmpty)
        #expect(h.screen.contains("Deleted 3 items (z to undo)"))
        #expect(try tombstones(h).count == 3)
        h.type(.character("z"))
        #expect(ids(h).count == 3)
        #expect(h.type(.character("q"), .control("d")).contains("Open a feed's item list to delete its items"))
    }

    @Test func controlEEditsTheFlagLetters() throws {
        let h = try Harness()
        h.type(.enter)
        let id = try #require(h.queue.sync { h.app.state.items?.selectedID })
        #expect(h.type(.control("e")).contains("Flags (letters A-Z, a-z): "))
        h.type(text: "ba")
        #expect(h.type(.enter).contains("Flags: ab"))
        #expect(h.queue.sync { h.app.model.isFlagged(id) })
        #expect(h.line(1).contains("*"))
        // The prompt starts from the letters the item has; a non-letter is refused.
        #expect(h.type(.control("e")).contains("Flags (letters A-Z, a-z): ab"))
        h.type(text: "1")
        #expect(h.type(.enter).contains("'1' is not a flag: flags are the letters A-Z and a-z"))
        h.type(.control("e"), .control("u"))
        #expect(h.type(.enter).contains("Flags cleared"))
        #expect(h.queue.sync { h.app.model.isFlagged(id) } == false)
        h.type(.character("z"))
        #expect(h.queue.sync { h.app.model.isFlagged(id) })
        // The article's header shows the letters.
        #expect(h.type(.enter).contains("Flags: ab"))
        h.type(.control("e"), .character("Z"), .enter)
        #expect(h.screen.contains("Flags: Zab"))
    }

    @Test func commandLineRunsNewsboatsCommands() throws {
        let h = try Harness()
        #expect(h.type(.character(":")).split(separator: "\n").last?.hasPrefix(":") == true)
        h.type(text: "frobnicate now")
        #expect(
            h.type(.enter).contains(
                "Unknown command 'frobnicate' (commands: quit, q, save, set, tag, goto, exec, or a number)"))
        // goto: the next feed whose title contains the text.
        h.type(.character(":"))
        h.type(text: "goto world")
        h.type(.enter)
        #expect(h.queue.sync { h.app.state.selectedFeed?.title }?.contains("World Scripts") == true)
        h.type(.character(":"))
        h.type(text: "goto nothing-like-it")
        #expect(h.type(.enter).contains(":goto: no feed's title contains 'nothing-like-it'"))
        // A number: that entry of the list.
        h.type(.character(":"), .character("2"), .enter)
        #expect(h.queue.sync { h.app.state.feedPosition.cursor } == 1)
        h.type(.character(":"))
        h.type(text: "99")
        #expect(h.type(.enter).contains("No entry 99"))
        // set: shows, sets, toggles and resets the views.
        h.type(.character(":"))
        h.type(text: "set show-read-feeds")
        #expect(h.type(.enter).contains("show-read-feeds=yes"))
        h.type(.character(":"))
        h.type(text: "set feed-sort-order=title-desc")
        #expect(h.type(.enter).contains("feed-sort-order=title-desc"))
        #expect(h.queue.sync { h.app.state.feeds.first?.title }?.contains("World Scripts") == true)
        h.type(.character(":"))
        h.type(text: "set feed-sort-order&")
        h.type(.enter)
        #expect(h.queue.sync { h.app.state.feeds.first?.title } == "Zeader News")
        h.type(.character(":"))
        h.type(text: "set show-read-articles!")
        #expect(h.type(.enter).contains("show-read-articles=no"))
        h.type(.character(":"))
        h.type(text: "set show-read-articles=maybe")
        #expect(h.type(.enter).contains(":set show-read-articles: needs yes, no, ! (toggle) or & (default), not 'maybe'"))
        h.type(.character(":"))
        h.type(text: "set browser=lynx")
        #expect(h.type(.enter).contains("browser=lynx"))
        h.type(.character(":"))
        h.type(text: "set cache-file=/tmp/x")
        #expect(h.type(.enter).contains(":set: newsboat's 'cache-file' cannot be changed in the reader"))
        h.type(.character(":"))
        h.type(text: "set no-such-thing=1")
        #expect(h.type(.enter).contains(":set: unknown variable 'no-such-thing'"))
        // exec: an action by name; tag: an unknown tag is an error.
        h.type(.character(":"))
        h.type(text: "exec help")
        h.type(.enter)
        #expect(screens(h) == [.feeds, .help])
        h.type(.character("q"), .character(":"))
        h.type(text: "exec fly")
        #expect(h.type(.enter).contains(":exec: unknown action 'fly'"))
        h.type(.character(":"))
        h.type(text: "tag nonexistent")
        #expect(h.type(.enter).contains(":tag: no feed has the tag 'nonexistent'"))
        h.type(.character(":"))
        h.type(text: "save")
        #expect(h.type(.enter).contains(":save needs a file name"))
        // ESC leaves the command line without running it; q quits.
        h.type(.character(":"), .character("q"), .escape)
        #expect(!h.app.hasQuit)
        h.type(.character(":"), .character("q"), .enter)
        #expect(h.app.hasQuit)
    }

    @Test func commandLineSavesTheArticle() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("zeader-cmdline-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let h = try Harness()
        h.type(.enter, .character(":"))
        let path = folder.appendingPathComponent("welcome.txt").path
        h.type(text: "save \(path)")
        #expect(h.type(.enter).contains("Saved to \(path)"))
        #expect(try String(contentsOfFile: path, encoding: .utf8).contains("Welcome to Zeader"))
    }

    @Test func dialogKeysWalkTheStackOfScreens() throws {
        let h = try Harness()
        h.type(.enter, .enter)
        #expect(screens(h) == [.feeds, .items, .article])
        // v lists them, the one on top under the cursor; ENTER goes back to the one picked.
        let list = h.type(.character("v"))
        #expect(list.contains("1  Feed list") && list.contains("2  Items: Zeader News"))
        #expect(list.contains("3  Article: Welcome to Zeader"))
        h.type(.up, .enter)
        #expect(screens(h) == [.feeds, .items])
        // ^G steps back keeping the screen, ^V returns to it.
        h.type(.enter, .control("g"))
        #expect(screens(h) == [.feeds, .items])
        h.type(.control("g"))
        #expect(screens(h) == [.feeds])
        #expect(h.type(.control("g")).contains("No previous dialog"))
        h.type(.control("v"))
        #expect(screens(h) == [.feeds, .items])
        h.type(.control("v"))
        #expect(screens(h) == [.feeds, .items, .article])
        #expect(h.queue.sync { h.app.state.article?.title } == "Welcome to Zeader")
        #expect(h.type(.control("v")).contains("No next dialog"))
        // Once the stack changes otherwise, ^V has nothing to go forward to.
        h.type(.control("g"), .down, .enter)
        #expect(h.type(.control("v")).contains("No next dialog"))
        // ^X closes the top; the feed list stays.
        h.type(.control("x"), .control("x"))
        #expect(screens(h) == [.feeds])
        #expect(h.type(.control("x")).contains("The feed list cannot be closed (q quits)"))
        // ^X in the dialog list closes the one picked and those above it.
        h.type(.enter, .enter, .character("v"), .up, .control("x"))
        #expect(screens(h) == [.feeds])
    }

    /// Every key and command that acts on one item says the same line when there is none:
    /// `#`, `s`, `|`, `^B` and `:save` on the feed list.
    @Test func everyItemKeyWithoutAnItemSaysTheSameLine() throws {
        let h = try Harness()
        let line = "Open or select an item first"
        #expect(h.type(.character("#")).contains(line))
        #expect(h.type(.character("s")).contains(line))
        #expect(h.type(.character("|")).contains(line))
        #expect(h.type(.control("b")).contains(line))
        h.type(.character(":"))
        h.type(text: "save out.txt")
        #expect(h.type(.enter).contains(line))
    }

    @Test func controlUShowsTheSourceAndHashOpensALinkByNumber() throws {
        var config = ReaderConfig()
        config.browser = "true"
        let h = try Harness(config: config)
        h.type(.enter, .enter)
        #expect(!h.screen.contains("<a href="))
        var screen = h.type(.control("u"))
        #expect(screen.contains("<a href=\"https://zeader.example/manual\">"))
        screen = h.type(.control("u"))
        #expect(!screen.contains("<a href="))
        #expect(h.type(.character("#")).contains("Go to URL #"))
        #expect(h.type(.character("2"), .enter).contains("Opened https://zeader.example/faq"))
        h.type(.character("#"), .character("9"))
        #expect(h.type(.enter).contains("No link 9") || h.screen.contains("9"))
        // From the item list: the selected item's links.
        h.type(.character("q"), .character("#"), .character("1"))
        #expect(h.type(.enter).contains("Opened https://zeader.example/manual"))
    }

    @Test func capitalEEditsTheFeedsAsAURLsFile() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("zeader-edit-urls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        // The "editor": keeps a copy of what it was given, drops World Scripts, adds a feed.
        let editor = try writeExecutableScript(
            """
            cp "$1" "\(folder.path)/seen"
            sed -i '/world-scripts/d' "$1"
            echo 'https://new.example/feed fresh "~Fresh Feed"' >>"$1"
            """, to: folder.appendingPathComponent("editor"))
        let h = try Harness()
        let titles = { h.queue.sync { h.app.state.feeds.map(\.title) } }
        let before = titles()
        h.queue.sync { h.app.editURLs(editor: [editor.path]) }
        #expect(h.screen.contains("Feeds: 1 added, 1 removed, 0 changed (z to undo)"))
        let seen = try String(contentsOf: folder.appendingPathComponent("seen"), encoding: .utf8)
        #expect(seen.contains("\nfile:///usr/share/zeader/demo/world-scripts.json \"~世界の文字 · World Scripts\"\n"))
        #expect(!titles().contains { $0.contains("World Scripts") })
        #expect(titles().contains("Fresh Feed [fresh]"))
        h.type(.character("z"))
        #expect(titles() == before)
        // An editor that fails, or is missing, changes nothing.
        let failing = try writeExecutableScript("echo x >>\"$1\"; exit 3", to: folder.appendingPathComponent("failing"))
        h.queue.sync { h.app.editURLs(editor: [failing.path]) }
        let message = { h.queue.sync { h.app.state.message ?? "" } }
        #expect(message().hasSuffix("failing exited with status 3: the feeds are unchanged"))
        h.queue.sync { h.app.editURLs(editor: [folder.appendingPathComponent("missing").path]) }
        #expect(message().contains("cannot run"))
        #expect(titles() == before)
        // Only from the feed list.
        h.type(.enter)
        #expect(h.type(.character("E")).contains("E edits the feeds from the feed list"))
        #expect(ReaderApp.editorCommand(["VISUAL": "", "EDITOR": "nano -w"]) == ["nano", "-w"])
        #expect(ReaderApp.editorCommand([:]) == ["vi"])
    }

    @Test func lowercaseFFiltersTheItemListByASmartFeed() throws {
        var config = ReaderConfig()
        config.smartFeeds = [.init(title: "Titles with Zeader", predicateFormat: #"title CONTAINS[c] "zeader""#)]
        let h = try Harness(config: config)
        #expect(h.type(.character("f")).contains("open a feed first"))
        h.type(.enter)
        #expect(ids(h).count == 4)
        let list = h.type(.character("f"))
        #expect(list.contains("Unread about Swift") && list.contains("Titles with Zeader"))
        h.type(.down, .enter)
        #expect(screens(h) == [.feeds, .items])
        #expect(titles(h) == ["Welcome to Zeader"])
        #expect(h.queue.sync { h.app.state.items?.filter } == #"title CONTAINS[c] "zeader""#)
        h.type(.control("f"))
        #expect(ids(h).count == 4)
    }

    @Test func newKeysAreNewsboatsAndListedInHelp() throws {
        let map = KeyMap.default
        let expected: [(Key, Action)] = [
            (.character("D"), .deleteArticle), (.control("d"), .deleteAllArticles), (.control("e"), .editFlags),
            (.character(":"), .cmdline), (.character("v"), .viewDialogs), (.control("x"), .closeDialog),
            (.control("v"), .nextDialog), (.control("g"), .prevDialog), (.control("u"), .toggleSourceView),
            (.character("#"), .gotoURL), (.character("E"), .editURLs),
            (.character("f"), .selectFilter),
        ]
        for (key, action) in expected {
            #expect(map.action(for: key) == action, "\(key.name)")
            #expect(Action(configName: action.rawValue) == action)
        }
        let lines = HelpView.lines(keyMap: map)
        #expect(lines.contains { $0.hasPrefix("D ") && $0.hasSuffix("[delete-article]") })
        #expect(lines.contains { $0.hasPrefix(": ") && $0.contains("Command line") })
        #expect(map.action(for: .character("$")) == nil)
    }
}
