import Foundation
import ObjectGraph
import Testing
import ZeaderKit

@testable import ZeaderConfig
@testable import ZeaderTUI

/// newsboat's `notify-format`, `notify-always`, `notify-screen`, `notify-xterm` and
/// `notify-beep`: the message's words and when it is sent, and what reaches the terminal.
@Suite struct NotifyDirectivesTests {
    static let counts = NotifyCounts(unreadItems: 9, unreadFeeds: 2, newItems: 3, newFeeds: 1)

    @Test func notifyFormatFillsNewsboatsFields() throws {
        let config = try ReaderConfig.parse(
            "notify-format \"%d new articles (%n unread articles, %f unread feeds, %D new)\"", file: "config")
        #expect(config.warnings.isEmpty)
        #expect(config.notify.message(Self.counts) == "3 new articles (9 unread articles, 2 unread feeds, 1 new)")
        // Widths and conditionals as in every format string.
        let padded = try ReaderConfig.parse("notify-format \"%?d?%3d new&nothing?\"", file: "config")
        #expect(padded.notify.message(Self.counts) == "  3 new")
        // A field newsboat's notify-format lacks is a warning and shows empty.
        let unknown = try ReaderConfig.parse("notify-format \"%t: %d\"", file: "config")
        #expect(unknown.warnings.map(\.message) == ["notify-format: %t is not one of its fields (shown empty)"])
        #expect(unknown.notify.message(Self.counts) == ": 3")
        // The user's format holds no escape for the terminal title it may go to.
        let escape = try ReaderConfig.parse("notify-format \"\u{1B}]0;x\u{07}%d\"", file: "config")
        #expect(escape.notify.message(Self.counts) == "]0;x3")
    }

    @Test func notifyAlwaysSendsAMessageWithoutNewItems() throws {
        let none = NotifyCounts(unreadItems: 9, unreadFeeds: 2, newItems: 0, newFeeds: 0)
        #expect(try ReaderConfig.parse("notify-always no", file: "c").notify.message(none) == nil)
        #expect(try ReaderConfig.parse("notify-always yes", file: "c").notify.message(none) == "Zeader: no new items")
        let formatted = try ReaderConfig.parse("notify-always yes\nnotify-format \"%n unread\"", file: "c")
        #expect(formatted.notify.message(none) == "9 unread")
        #expect(throws: ReaderConfigError.self) { try ReaderConfig.parse("notify-always sometimes", file: "c") }
    }

    @Test func terminalSignalsAreScreensXtermsAndTheBell() throws {
        let all = try ReaderConfig.parse("notify-screen yes\nnotify-xterm yes\nnotify-beep yes", file: "c")
        #expect(all.notify.terminalSignals(for: "3 new") == "\u{1B}^3 new\u{1B}\\" + "\u{1B}]2;3 new\u{07}" + "\u{07}")
        #expect(try ReaderConfig.parse("notify-beep yes", file: "c").notify.terminalSignals(for: "x") == "\u{07}")
        #expect(ReaderConfig().notify.terminalSignals(for: "x") == "")
    }

    @Test func readerRefreshSendsTheFormattedMessageToTheProgramAndTheTerminal() async throws {
        let config = try ReaderConfig.parse(
            """
            notify-program "my-notifier -u low"
            notify-format "%d new articles in %D feeds"
            notify-xterm yes
            notify-beep yes
            """, file: "config")
        let effects = RecordingEffects()
        let h = try Harness(config: config, effects: effects)
        let summary = try await NewItemsRefresher().refresh(servers: [], progress: nil)
        h.queue.sync { h.app.finishRefresh(.success(summary)) }
        #expect(effects.log.withLock { $0.notifications } == ["my-notifier -u low 4 new articles in 0 feeds"])
        #expect(h.queue.sync { h.backend.signals } == ["\u{1B}]2;4 new articles in 0 feeds\u{07}\u{07}"])
    }

    @Test func readerRefreshWithoutNewItemsNotifiesOnlyWithNotifyAlways() async throws {
        for always in [false, true] {
            let config = try ReaderConfig.parse("notify-program \"n\"\nnotify-always \(always ? "yes" : "no")", file: "c")
            let effects = RecordingEffects()
            let h = try Harness(config: config, effects: effects)
            let summary = try await NoNewItemsRefresher().refresh(servers: [], progress: nil)
            h.queue.sync { h.app.finishRefresh(.success(summary)) }
            #expect(effects.log.withLock { $0.notifications } == (always ? ["n Zeader: no new items"] : []))
        }
    }
}

/// Reports two feeds refreshed and no new item.
final class NoNewItemsRefresher: ReaderRefresher {
    func refresh(servers: [ObjectID], progress: (@Sendable (RefreshEvent) -> Void)?) async throws(ZeaderError)
        -> RefreshSummary
    {
        var totals = RefreshProgress(total: 2)
        totals.completed = 2
        return RefreshSummary(progress: totals, results: [], duration: 0)
    }
}
