import Foundation
import Testing
import ZeaderKit

@testable import zeader

/// The command line's own parts: moving `--db`, the progress bar, terminal-safe text.
@Suite struct CommandLineSupportTests {
    @Test("--db moves after the subcommand name, wherever it is given")
    func globalOptions() {
        let names: Set<String> = ["list", "refresh"]
        #expect(GlobalOptions.normalize(["--db", "x", "list", "--json"], subcommands: names) == ["list", "--db", "x", "--json"])
        #expect(
            GlobalOptions.normalize(["--db=x", "refresh", "-j", "2"], subcommands: names) == ["refresh", "--db=x", "-j", "2"])
        #expect(GlobalOptions.normalize(["list", "--db", "x"], subcommands: names) == ["list", "--db", "x"])
        #expect(GlobalOptions.normalize(["--db", "list"], subcommands: names) == ["--db", "list"])
        #expect(GlobalOptions.normalize(["--db", "x"], subcommands: names) == ["--db", "x"])
        #expect(GlobalOptions.normalize(["--demo", "--db", "x", "list"], subcommands: names) == ["--demo", "list", "--db", "x"])
    }

    @Test("the progress bar fits the terminal")
    func progressBar() {
        var progress = RefreshProgress(total: 10)
        progress.completed = 5
        progress.failed = 1
        let line = ProgressBar.render(progress, columns: 60)
        #expect(line.hasPrefix("\r["))
        #expect(line.contains("5/10 feeds, 1 failed"))
        #expect(line.count - 4 <= 60)
        #expect(ProgressBar.render(progress, columns: 12).count <= 16)
    }

    @Test("text output stays on one line per entry, without escape sequences")
    func textOutputIsTerminalSafe() {
        let item = ItemSummary(
            feed: "http://x/", id: "1", title: "evil\u{1B}]0;pwned\u{7}\u{1B}[31m \"q\"\n\u{9B}2J", author: nil,
            published: Date(timeIntervalSince1970: 0))
        let text = ItemSummary.text([item])
        #expect(text.split(separator: "\n").count == 1)
        #expect(!text.contains("\u{1B}"))
        #expect(TerminalText.line("a\nb\u{1B}[31m") == "a b")
    }

    @Test("items text marks unread and flagged items")
    func itemsTextMarkers() {
        let item = ItemSummary(feed: "f", id: "1", title: "T", sortDate: Date(timeIntervalSince1970: 0), flagged: true)
        #expect(ItemSummary.text([item]).hasPrefix("1970-01-01 00:00  N* f  T"))
    }

    @Test("items text has a feed column: the feed's title, cut to 24 cells and padded to the widest")
    func itemsTextFeedColumn() {
        let long = String(repeating: "Long feed title ", count: 4)
        let items = [
            ItemSummary(feed: "https://a.example/feed", id: "1", title: "First", read: true, feedTitle: "Café\u{1B}[31m"),
            ItemSummary(feed: "https://b.example/feed", id: "2", title: "Second", read: true, feedTitle: long),
            ItemSummary(feed: "https://c.example/feed", id: "3", title: "Third", read: true),
        ]
        let lines = ItemSummary.text(items).split(separator: "\n").map { String($0.dropFirst(21)) }
        #expect(lines[0] == "Café" + String(repeating: " ", count: 20) + "  First")
        #expect(lines[1] == String(long.prefix(24)) + "  Second")
        #expect(lines[2] == "https://c.example/feed  " + "  Third")
    }

    @Test("list text shows tags after the URL")
    func listTextShowsTags() {
        let feed = ServerSummary(url: "http://c.example/feed", title: "C", unread: 1, total: 2, tags: ["news", "Photos"])
        #expect(ServerSummary.text([feed]).contains("<http://c.example/feed>  [news, Photos]\n"))
    }
}
