import Foundation
import ObjectGraph
import Synchronization
import Testing
import ZeaderKit

@testable import ZeaderConfig
@testable import ZeaderTUI

/// newsboat's `external-url-viewer`, `pager`, `always-display-description`,
/// `reload-only-visible-feeds` and `error-log`, each by its effect in the reader.
@Suite struct ArticleViewerDirectivesTests {
    private func harness(_ text: String, effects: RecordingEffects, refresher: (any ReaderRefresher)? = nil) throws
        -> Harness
    {
        try Harness(width: 100, config: try ReaderConfig.parse(text, file: "config"), refresher: refresher, effects: effects)
    }

    @Test func externalURLViewerGetsTheArticleThroughTheShell() throws {
        let effects = RecordingEffects()
        let h = try harness("external-url-viewer \"urlview\"", effects: effects)
        h.type(.enter, .enter)
        let link = try #require(h.queue.sync { h.app.state.article?.link })
        h.type(.character("U"))
        let program = try #require(effects.programs.first)
        #expect(program.argv == ["/bin/sh", "-c", "urlview"])
        #expect(program.purpose == .pipe)
        #expect(String(decoding: program.input ?? Data(), as: UTF8.self).contains(link))
        #expect(h.queue.sync { h.app.state.picker } == nil)
        // Without it, U lists the links in the reader.
        let plain = try harness("", effects: RecordingEffects())
        plain.type(.enter, .enter, .character("U"))
        #expect(plain.queue.sync { plain.app.state.picker?.kind } == .links)
    }

    @Test func pagerShowsTheArticleFileAndTheReaderStaysOnTheList() throws {
        let effects = RecordingEffects()
        let h = try harness("pager \"less -R %f\"", effects: effects)
        h.type(.enter, .enter)
        let program = try #require(effects.programs.first)
        #expect(program.argv.prefix(2) == ["/bin/sh", "-c"])
        let line = try #require(program.argv.last)
        #expect(line.hasPrefix("less -R '") && line.hasSuffix("/article.txt'"))
        #expect(h.queue.sync { h.app.state.screen } == .items)
        // The item was read as if opened.
        let id = try #require(h.queue.sync { h.app.state.items?.selectedID })
        #expect(h.queue.sync { h.app.model.itemRow(id)?.read } == true)
    }

    @Test func pagerCommandQuotesTheFile() throws {
        #expect(try ReaderApp.pagerCommand("less %f", file: "/tmp/it's") == "less '/tmp/it'\\''s'")
        #expect(try ReaderApp.pagerCommand("most", file: "/tmp/a b") == "most '/tmp/a b'")
        #expect(try ReaderApp.pagerCommand("", file: "/f", environment: ["PAGER": "more"]) == "more '/f'")
        #expect(try ReaderApp.pagerCommand("", file: "/f", environment: [:]) == "less '/f'")
        #expect(try ReaderApp.pagerCommand(nil, file: "/f") == nil)
        #expect(try ReaderConfig.parse("pager internal", file: "c").articleCommands.pager == nil)
    }

    @Test func alwaysDisplayDescriptionPutsTheDescriptionAboveTheContent() throws {
        for always in [true, false] {
            let h = try harness("always-display-description \(always ? "yes" : "no")", effects: RecordingEffects())
            h.type(.enter)
            let id = try #require(h.queue.sync { h.app.state.items?.selectedID })
            h.queue.sync {
                let item = h.app.model.item(id)
                item?.summary = "The short <description>"
                item?.content = "<p>The whole story</p>"
            }
            h.type(.enter)
            let body = h.queue.sync { h.app.state.article?.bodyHTML }
            #expect(
                body == (always ? "<p>The short &lt;description&gt;</p><hr><p>The whole story</p>" : "<p>The whole story</p>"))
        }
    }

    @Test func reloadOnlyVisibleFeedsRefreshesTheFeedsShown() throws {
        let refresher = ServersRecordingRefresher()
        let h = try harness("reload-only-visible-feeds yes", effects: RecordingEffects(), refresher: refresher)
        _ = h.screen
        let shown = h.queue.sync { h.app.state.feeds.compactMap(\.serverID) }
        #expect(shown.count >= 2)
        h.queue.sync { _ = h.app.state.feeds.removeFirst() }
        #expect(h.queue.sync { h.app.feedsToRefreshAll() } == Array(shown.dropFirst()))
        let every = try harness("", effects: RecordingEffects(), refresher: refresher)
        #expect(every.queue.sync { every.app.feedsToRefreshAll() } == [])
    }

    @Test func errorLogGetsOneLinePerFailedFeed() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("zeader-errorlog-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let log = dir.appendingPathComponent("error.log").path
        let server = try ZeaderModel.current.entity(named: "Server")
        let failed = FeedRefreshResult(
            serverID: ObjectID(entity: server, primaryKey: 1), url: "https://a.example/feed",
            status: .failed(.invalidURL("bad\u{1B}[31m url")))
        let fine = FeedRefreshResult(
            serverID: ObjectID(entity: server, primaryKey: 2), url: "https://b.example/feed",
            status: .updated(newItems: 1, updatedItems: 0))
        let summary = RefreshSummary(progress: RefreshProgress(total: 2), results: [failed, fine], duration: 0)
        let when = Date(timeIntervalSince1970: 1_765_000_000)
        #expect(try ErrorLog.append(summary, to: log, now: when, timeZone: TimeZone(identifier: "UTC")!) == 1)
        try ErrorLog.append(summary, to: log, now: when, timeZone: TimeZone(identifier: "UTC")!)
        let lines = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines[0].hasPrefix("2025-12-06 05:46:40 https://a.example/feed: "))
        #expect(!lines[0].contains("\u{1B}"))
        let mode = try FileManager.default.attributesOfItem(atPath: log)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        #expect(throws: ErrorLog.Failure.self) { try ErrorLog.append(summary, to: dir.path + "/missing/error.log") }
    }
}

/// Records which feeds each refresh was asked for.
final class ServersRecordingRefresher: ReaderRefresher {
    let asked = Mutex<[[ObjectID]]>([])

    func refresh(servers: [ObjectID], progress: (@Sendable (RefreshEvent) -> Void)?) async throws(ZeaderError)
        -> RefreshSummary
    {
        asked.withLock { $0.append(servers) }
        return RefreshSummary(progress: RefreshProgress(total: servers.count), results: [], duration: 0)
    }
}
