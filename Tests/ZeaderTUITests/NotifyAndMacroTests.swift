import Foundation
import LoopbackHTTPServer
import ObjectGraph
import Testing
import ZeaderKit

@testable import ZeaderConfig
@testable import ZeaderTUI

/// `notify-program` after a reader refresh with new items; macros (`,` then a key) run their
/// actions in order.
@Suite struct NotifyAndMacroTests {
    @Test func notificationMessageCountsNewItemsAndFeeds() throws {
        let server = try ZeaderModel.current.entity(named: "Server")
        func result(_ key: Int64, new: Int) -> FeedRefreshResult {
            FeedRefreshResult(
                serverID: ObjectID(entity: server, primaryKey: key), url: "https://\(key).example/",
                status: .updated(newItems: new, updatedItems: 0))
        }
        var progress = RefreshProgress(total: 3)
        progress.newItems = 12
        let summary = RefreshSummary(
            progress: progress, results: [result(1, new: 5), result(2, new: 7), result(3, new: 0)], duration: 0)
        #expect(RefreshNotifier.message(for: summary) == "Zeader: 12 new items in 2 feeds")
        progress.newItems = 1
        #expect(
            RefreshNotifier.message(for: RefreshSummary(progress: progress, results: [result(1, new: 1)], duration: 0))
                == "Zeader: 1 new item in 1 feed")
        #expect(
            RefreshNotifier.message(for: RefreshSummary(progress: progress, results: [], duration: 0)) == "Zeader: 1 new item")
        progress.newItems = 0
        #expect(RefreshNotifier.message(for: RefreshSummary(progress: progress, results: [], duration: 0)) == nil)
    }

    @Test func notifySendIsTheFallbackInADesktopSessionOnly() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("zeader-notify-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = "/nonexistent-zeader:" + dir.path
        let session = ["PATH": path, "DBUS_SESSION_BUS_ADDRESS": "unix:path=/run/user/1000/bus"]
        // Not installed yet.
        #expect(RefreshNotifier.program(configured: nil, environment: session) == nil)
        try writeExecutableScript("exit 0", to: dir.appendingPathComponent("notify-send"))
        #expect(RefreshNotifier.program(configured: nil, environment: session)! == ("notify-send -a zeader", true))
        #expect(RefreshNotifier.program(configured: nil, environment: ["PATH": path, "WAYLAND_DISPLAY": "wayland-0"]) != nil)
        #expect(RefreshNotifier.program(configured: nil, environment: ["PATH": path, "DISPLAY": ":0"]) != nil)
        // cron: no session.
        #expect(RefreshNotifier.program(configured: nil, environment: ["PATH": path, "DISPLAY": ""]) == nil)
        // The configured program wins; an empty one turns notifications off.
        #expect(RefreshNotifier.program(configured: "my-notifier -x", environment: session)! == ("my-notifier -x", false))
        #expect(RefreshNotifier.program(configured: "", environment: session) == nil)
        // An empty notify-program line parses as "off".
        let config = try ReaderConfig.parse("notify-program \"\"", file: "test")
        #expect(config.articleCommands.notifyProgram == "")
    }

    @Test func readerRefreshRunsNotifyProgram() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("zeader-notify-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("args.txt")
        let script = dir.appendingPathComponent("notify.sh")
        try writeExecutableScript(
            "printf '%s\\n' \"$@\" > '\(out.path).tmp' && mv '\(out.path).tmp' '\(out.path)'", to: script)
        var config = ReaderConfig()
        config.articleCommands.notifyProgram = script.path
        let h = try Harness(config: config, refresher: NewItemsRefresher())
        h.type(.character("R"))
        for _ in 0..<250 where !FileManager.default.fileExists(atPath: out.path) {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(try String(contentsOf: out, encoding: .utf8) == "Zeader: 4 new items\n")
        #expect(h.screen.contains("Refreshed 2 feeds"))

        // A failing program says so on the status line.
        config.articleCommands.notifyProgram = "false"
        let failing = try Harness(config: config, refresher: NewItemsRefresher())
        failing.type(.character("R"))
        for _ in 0..<250 where !failing.screen.contains("notify-program: false exited with status 1") {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(failing.screen.contains("notify-program: false exited with status 1"))
    }

    @Test func readerRefreshLeavesAQuietFeedOutOfTheMessage() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("zeader-notify-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("args.txt")
        let script = dir.appendingPathComponent("notify.sh")
        try writeExecutableScript(
            "printf '%s\\n' \"$@\" > '\(out.path).tmp' && mv '\(out.path).tmp' '\(out.path)'", to: script)
        // Set for a tag, in upper case, as a user may write it.
        let demo = "file:///usr/share/zeader/demo/"
        var config = try ReaderConfig.parse("feed tag:Quiet < notify NO\n", file: "test")
        config.articleCommands.notifyProgram = script.path
        let h = try Harness(
            config: config,
            refresher: NewItemsRefresher(perFeed: [(demo + "zeader-news.xml", 3), (demo + "swift-on-linux.atom", 1)]))
        try h.queue.sync {
            let context = h.app.model.context
            let quiet = try #require(
                try Server.findFirst(byAttribute: "url", value: .string(demo + "zeader-news.xml"), in: context))
            quiet.tags = "quiet"
            try context.save()
        }
        h.type(.character("R"))
        for _ in 0..<250 where !FileManager.default.fileExists(atPath: out.path) {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(try String(contentsOf: out, encoding: .utf8) == "Zeader: 1 new item in 1 feed\n")
    }

    @Test func macroRunsItsActionsInOrder() throws {
        let config = try ReaderConfig.parse("macro x open ; toggle-read\nmacro d down ; down", file: "test")
        let h = try Harness(config: config)
        h.type(.character("j"), .enter)  // Swift on Linux: three unread items
        #expect(h.queue.sync { h.app.state.items?.title } == "Swift on Linux")
        #expect(h.type(.character(",")).contains("Macro: press its key (d x), Esc to cancel"))
        h.type(.character("d"))
        #expect(h.queue.sync { h.app.state.items?.position.cursor } == 2)
        h.type(.character("k"))
        h.type(.character(","), .character("x"))
        // open (which marks it read), then toggle-read in the article: unread again.
        let opened = try #require(h.queue.sync { h.app.state.article })
        #expect(h.screen.contains("Marked unread"))
        let id = try #require(h.queue.sync { h.app.state.items?.selectedID })
        #expect(h.queue.sync { h.app.model.article(id)?.title } == opened.title)
        #expect(h.queue.sync { h.app.model.itemRow(id)?.read } == false)
    }

    @Test func newsboatsPodcastMacroPipesTheItemAndMarksItRead() throws {
        // The idiom of many newsboat configs: pipe the article to a player, then mark it read.
        let config = try ReaderConfig.parse(
            "macro e pipe-to \"grep -o 'http.*mp3' | xargs -n1 mpv\" ; toggle-article-read \"read\"\n"
                + "macro u toggle-article-read \"unread\"\n", file: "test")
        #expect(config.warnings.isEmpty, "\(config.warnings)")
        #expect(
            config.articleCommands.macros[.character("e")] == [
                .pipe(command: "grep -o 'http.*mp3' | xargs -n1 mpv"), .markRead(true),
            ])
        let effects = RecordingEffects()
        let h = try Harness(config: config, effects: effects)
        h.type(.character("j"), .enter)  // Swift on Linux: three unread items
        let id = try #require(h.queue.sync { h.app.state.items?.selectedID })
        #expect(h.queue.sync { h.app.model.itemRow(id)?.read } == false)
        h.type(.character(","), .character("e"))
        #expect(effects.programs.last?.argv == ["/bin/sh", "-c", "grep -o 'http.*mp3' | xargs -n1 mpv"])
        #expect(h.queue.sync { h.app.model.itemRow(id)?.read } == true)
        // Run again, it sets the state rather than toggling it.
        h.type(.character(","), .character("e"))
        #expect(h.queue.sync { h.app.model.itemRow(id)?.read } == true)
        h.type(.character(","), .character("u"))
        #expect(h.queue.sync { h.app.model.itemRow(id)?.read } == false)
        // Other arguments stay refused with the reason.
        let bad = try ReaderConfig.parse("macro x toggle-article-read \"maybe\"\n", file: "test")
        #expect(bad.warnings.first?.message.contains("takes no arguments") == true)
    }

    @Test func unknownMacroKeyAndNoMacros() throws {
        let h = try Harness(config: try ReaderConfig.parse("macro x open", file: "test"))
        h.type(.character(","))
        #expect(h.type(.character("z")).contains("No macro on z"))
        // Esc cancels without a message; the next key works as usual.
        h.type(.character(","), .escape)
        #expect(!h.screen.contains("No macro"))
        #expect(!h.screen.contains("Macro: press"))
        let none = try Harness()
        #expect(none.type(.character(",")).contains("No macro in the config file"))
    }
}

/// Reports two feeds and four new items, without touching the network.
final class NewItemsRefresher: ReaderRefresher {
    /// Each feed's URL and new items, as a refresh's results; none: four new items in all.
    let perFeed: [(url: String, newItems: Int)]

    init(perFeed: [(url: String, newItems: Int)] = []) { self.perFeed = perFeed }

    func refresh(servers: [ObjectID], progress: (@Sendable (RefreshEvent) -> Void)?) async throws(ZeaderError)
        -> RefreshSummary
    {
        var totals = RefreshProgress(total: 2)
        totals.completed = 2
        totals.updated = 2
        totals.newItems = perFeed.isEmpty ? 4 : perFeed.map(\.newItems).reduce(0, +)
        let server = try? ZeaderModel.current.entity(named: "Server")
        let results = perFeed.enumerated().compactMap { index, feed in
            server.map {
                FeedRefreshResult(
                    serverID: ObjectID(entity: $0, primaryKey: Int64(index + 1)), url: feed.url,
                    status: .updated(newItems: feed.newItems, updatedItems: 0))
            }
        }
        return RefreshSummary(progress: totals, results: results, duration: 0)
    }
}

/// `--demo` shows a killfile at work: Zeader News carries a sponsored post the demo's rule
/// hides (tombstoned, never shown or counted), and the welcome article says so.
@Suite struct DemoKillfileTests {
    @Test func demoRuleHidesTheSponsoredPost() throws {
        let h = try Harness(width: 120)
        #expect(h.line(1).contains("Zeader News"))
        h.type(.enter)
        #expect(h.queue.sync { h.app.state.items?.ids.count } == 4)
        #expect(!h.screen.contains("Sponsored"))
        h.type(.enter)
        #expect(h.screen.contains("Killfiles: this feed has a fifth item"))
        let tombstones = try h.store.container.viewContext.performAndWait {
            try RemovedItem.findAll(in: h.store.container.viewContext).map(\.guid)
        }
        #expect(tombstones == ["zeader-sponsored"])
        #expect(DemoFeeds.killfileExample.line == #"ignore * title BEGINSWITH[c] "Sponsored""#)
    }
}
