import Foundation
import Testing

@testable import ZeaderConfig
@testable import ZeaderTUI

/// newsboat's `run-on-startup` (actions run as the reader starts) and `history-limit 0`.
@Suite struct StartupStepsTests {
    @Test func runOnStartupRunsItsActionsWhenTheReaderStarts() throws {
        for line in ["run-on-startup \"next-unread; open\"", "run-on-startup next-unread ; open"] {
            let config = try ReaderConfig.parse(line, file: "config")
            #expect(config.articleCommands.startupSteps == [.action(.nextUnread), .action(.open)])
            let h = try Harness(width: 100, config: config)
            #expect(h.queue.sync { h.app.state.screen } == .article, "\(line)")
        }
        let plain = try Harness(width: 100)
        #expect(plain.queue.sync { plain.app.state.screen } == .feeds)
    }

    @Test func runOnStartupWithAnActionZeaderLacksIsAWarning() throws {
        let config = try ReaderConfig.parse("run-on-startup \"next-unread; save-all\"", file: "config")
        #expect(config.articleCommands.startupSteps.isEmpty)
        #expect(config.warnings.map(\.message).first?.hasPrefix("run-on-startup: newsboat's action 'save-all'") == true)
        #expect(config.warnings.first?.message.hasSuffix("(line ignored)") == true)
    }

    @Test(arguments: [("0", 0), ("10", 10), ("65536", 65536), (" 7 ", 7)])
    func historyLimitIsRead(value: String, limit: Int) throws {
        let config = try ReaderConfig.parse("history-limit \(value)", file: "c")
        #expect(config.warnings.isEmpty)
        #expect(config.behaviour.historyLimit == limit)
        #expect(throws: ReaderConfigError.self) { try ReaderConfig.parse("history-limit -1", file: "c") }
        #expect(throws: ReaderConfigError.self) { try ReaderConfig.parse("history-limit many", file: "c") }
    }
}
