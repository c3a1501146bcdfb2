import Foundation
import ObjectGraph
import Testing
import ZeaderKit

@testable import ZeaderConfig
@testable import ZeaderTUI

/// newsboat's directives of how the reader behaves, honoured in the reader itself: the
/// questions of `confirm-exit` and `confirm-mark-…`, `show-keymap-hint`, `goto-next-feed`,
/// `goto-first-unread`, `refresh-on-startup` and `auto-reload`'s first reload.
@Suite struct NewsboatBehaviourTests {
    func harness(_ text: String, refresher: ReaderRefresher? = nil) throws -> Harness {
        let config = try ReaderConfig.parse(text, file: "c")
        #expect(config.warnings.isEmpty, "\(config.warnings)")
        return try Harness(config: config, refresher: refresher)
    }

    @Test(arguments: ["confirm-exit yes", "confirm-exit \"yes\"", "confirm-exit TRUE   # ask"])
    func confirmExitAsksBeforeQOnTheFeedListQuits(line: String) throws {
        let h = try harness(line + "\n")
        h.type(.enter)  // into a feed: q only goes back
        h.type(.character("q"))
        #expect(!h.app.hasQuit)
        #expect(h.app.state.prompt == nil)
        h.type(.character("q"))
        #expect(h.screen.contains("Do you really want to quit? [y/n]"))
        #expect(!h.app.hasQuit)
        h.type(.character("x"))  // another key: the question stays
        #expect(h.app.state.prompt == .confirm(.quit))
        h.type(.character("n"))
        #expect(!h.app.hasQuit)
        #expect(h.app.state.prompt == nil)
        h.type(.character("q"), .escape)
        #expect(!h.app.hasQuit)
        h.type(.character("q"), .character("y"))
        #expect(h.app.hasQuit)
    }

    @Test(arguments: ["", "confirm-exit no\n"])
    func withoutConfirmExitQQuitsAtOnce(text: String) throws {
        let h = try harness(text)
        h.type(.character("q"))
        #expect(h.app.hasQuit)
    }

    @Test func hardQuitNeverAsks() throws {
        let h = try harness("confirm-exit yes\n")
        h.type(.character("Q"))
        #expect(h.app.hasQuit)
    }

    @Test func confirmMarkFeedReadAsksBeforeA() throws {
        let h = try harness("confirm-mark-feed-read yes\n")
        h.type(.character("A"))
        #expect(h.screen.contains("Mark Zeader News read? [y/n]"))
        #expect(h.line(1).contains("3/4"))
        h.type(.character("n"))
        #expect(h.line(1).contains("3/4"))
        h.type(.character("A"), .character("y"))
        #expect(h.line(1).contains("0/4"))
        // In the item list too.
        h.type(.character("j"), .enter, .character("A"))
        #expect(h.screen.contains("Mark Swift on Linux read? [y/n]"))
        h.type(.character("y"), .character("q"))
        #expect(h.line(2).contains("0/3"))
    }

    @Test func confirmMarkAllFeedsReadAsksBeforeC() throws {
        let h = try harness("confirm-mark-all-feeds-read yes\n")
        h.type(.character("C"))
        #expect(h.screen.contains("Mark every feed read? [y/n]"))
        h.type(.escape)
        #expect(h.line(0).contains("(9 unread)"))
        h.type(.character("C"), .character("Y"))
        #expect(h.line(0).contains("(0 unread)") || !h.line(0).contains("(9 unread)"))
        let unread = try h.queue.sync { try FeedItem.count(where: "read == NO", in: h.store.container.viewContext) }
        #expect(unread == 0)
    }

    @Test func withoutTheConfirmSettingsAAndCMarkAtOnce() throws {
        let h = try harness("confirm-mark-feed-read no\nconfirm-mark-all-feeds-read no\n")
        h.type(.character("A"))
        #expect(h.line(1).contains("0/4"))
        h.type(.character("C"))
        let unread = try h.queue.sync { try FeedItem.count(where: "read == NO", in: h.store.container.viewContext) }
        #expect(unread == 0)
    }

    @Test func showKeymapHintNoLeavesTheStatusLineWithoutKeys() throws {
        let shown = try harness("")
        #expect(shown.screen.split(separator: "\n").last?.contains("?:help") == true)
        let hidden = try harness("show-keymap-hint no\n")
        #expect(hidden.screen.split(separator: "\n").last?.contains("?:help") == false)
        hidden.type(.enter)
        #expect(!hidden.screen.contains("N:toggle-read"))
    }

    /// `n` through every unread item of the first feed, then once more.
    func titleAfterReadingPastTheFirstFeed(_ text: String) throws -> String? {
        let h = try harness(text)
        h.type(.enter)
        for _ in 0..<4 { h.type(.character("n")) }
        return h.app.state.items?.title
    }

    @Test func gotoNextFeedNoKeepsNInTheFeedShown() throws {
        #expect(try titleAfterReadingPastTheFirstFeed("") != "Zeader News")
        #expect(try titleAfterReadingPastTheFirstFeed("goto-next-feed yes\n") != "Zeader News")
        let h = try harness("goto-next-feed no\n")
        h.type(.enter)
        for _ in 0..<4 { h.type(.character("n")) }
        #expect(h.app.state.items?.title == "Zeader News")
        #expect(h.screen.contains("No more unread items") || h.app.state.message != nil)
    }

    @Test func gotoFirstUnreadOpensAListOnItsFirstUnreadItem() throws {
        for (text, cursor) in [("", 0), ("goto-first-unread no\n", 0), ("goto-first-unread yes\n", 1)] {
            let h = try harness(text)
            h.type(.enter, .character("N"), .character("q"))  // the first item read
            h.type(.enter)
            #expect(h.app.state.items?.position.cursor == cursor, "\(text)")
        }
    }

    @Test(arguments: [
        ("refresh-on-startup yes\n", true), ("auto-reload yes\n", true),
        ("auto-reload yes\nsuppress-first-reload yes\n", false), ("", false), ("refresh-on-startup no\n", false),
        ("auto-reload no\nsuppress-first-reload no\n", false),
    ])
    func theReaderRefreshesAtStartAsNewsboatDoes(text: String, refreshes: Bool) async throws {
        let refresher = FakeRefresher()
        let h = try harness(text, refresher: refresher)
        if refreshes {
            for _ in 0..<250 where refresher.requested.withLock({ $0 }).isEmpty {
                try await Task.sleep(for: .milliseconds(20))
            }
        }
        _ = h.screen
        #expect(refresher.requested.withLock { $0 } == (refreshes ? [[]] : []))
    }
}

/// The settings' values: out of range numbers brought in with a warning, bad words refused.
@Suite struct NewsboatBehaviourSettingsTests {
    @Test(arguments: [
        ("download-retries 4", 4, 0), ("download-retries 0", 1, 1), ("download-retries 500", 10, 1),
        ("download-retries -2", 1, 1), ("download-retries \"3\"", 3, 0),
    ])
    func downloadRetriesIsClamped(line: String, attempts: Int, warnings: Int) throws {
        let config = try ReaderConfig.parse(line + "\n", file: "c")
        #expect(config.behaviour.downloadRetries == attempts)
        #expect(config.warnings.count == warnings)
        #expect(config.refreshOptions(RefreshOptions()).downloadAttempts == attempts)
    }

    @Test(arguments: [("download-timeout 10", 10, 0), ("download-timeout 0", 1, 1), ("download-timeout 99999", 3600, 1)])
    func downloadTimeoutBoundsARefreshsFetch(line: String, seconds: Int, warnings: Int) throws {
        let config = try ReaderConfig.parse(line + "\n", file: "c")
        #expect(config.warnings.count == warnings)
        let options = config.refreshOptions(RefreshOptions())
        #expect(options.fetcherConfiguration.totalTimeout == TimeInterval(seconds))
        #expect(options.fetcherConfiguration.idleTimeout <= TimeInterval(seconds))
    }

    @Test(arguments: ["download-retries many", "download-timeout 1.5", "confirm-exit maybe", "goto-next-feed"])
    func aBadValueIsAnErrorNamingTheDirective(line: String) throws {
        let directive = String(line.split(separator: " ")[0])
        #expect {
            try ReaderConfig.parse(line + "\n", file: "c")
        } throws: { error in
            (error as? ReaderConfigError)?.message.hasPrefix(directive) == true
        }
    }

    /// newsboat keeps the first word of an unquoted value and drops the rest.
    @Test func anUnquotedValueOfSeveralWordsKeepsTheFirstWithAWarning() throws {
        let agent = try ReaderConfig.parse("user-agent a b\n", file: "c")
        #expect(agent.behaviour.userAgent == "a")
        #expect(agent.warnings.count == 1)
        let hint = try ReaderConfig.parse("show-keymap-hint no yes\n", file: "c")
        #expect(hint.behaviour.showKeymapHint == false)
        #expect(hint.warnings.count == 1)
    }

    @Test func userAgentRefusesALineBreak() {
        #expect(throws: ReaderConfigError.self) { try ReaderConfig.parse("user-agent \"a\\\u{7}b\"\n", file: "c") }
        #expect(throws: ReaderConfigError.self) { try ReaderConfig.parse("user-agent \"a\u{0D}X-Evil: 1\"\n", file: "c") }
    }
}
