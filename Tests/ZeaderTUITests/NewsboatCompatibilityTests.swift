import Foundation
import Testing

@testable import ZeaderConfig

/// The one table of newsboat's directives and actions: it covers newsboat's manual, the config
/// check's warnings come from it, what it calls honoured is read, and the man page lists it.
@Suite struct NewsboatCompatibilityTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// `(kind, name)` of every line of the list taken from newsboat's manual.
    static func manualNames() throws -> [(kind: String, name: String)] {
        let url = root.appendingPathComponent("Tests/ZeaderKitTests/Fixtures/newsboat-manual/names.txt")
        return try String(contentsOf: url, encoding: .utf8).split(separator: "\n").compactMap { line in
            let words = line.split(separator: " ")
            guard words.count == 2, !line.hasPrefix("#") else { return nil }
            return (String(words[0]), String(words[1]))
        }
    }

    /// A line using each directive the table calls honoured, as newsboat's manual writes it.
    static let honouredExamples: [String: String] = [
        "article-sort-order": "article-sort-order date-desc", "articlelist-format": "articlelist-format \"%4i %t\"",
        "articlelist-title-format": "articlelist-title-format \"%T\"", "auto-reload": "auto-reload yes",
        "bind-key": "bind-key j down", "bookmark-autopilot": "bookmark-autopilot yes",
        "bookmark-cmd": "bookmark-cmd \"~/bin/bm\"", "bookmark-interactive": "bookmark-interactive no",
        "browser": "browser \"firefox %u\"",
        "cleanup-on-quit": "cleanup-on-quit yes", "color": "color listfocus yellow blue bold",
        "confirm-exit": "confirm-exit yes", "datetime-format": "datetime-format \"%b %d\"",
        "download-retries": "download-retries 4", "download-timeout": "download-timeout 60",
        "feed-sort-order": "feed-sort-order title", "feedlist-format": "feedlist-format \"%4i %t\"",
        "feedlist-title-format": "feedlist-title-format \"%N\"", "goto-first-unread": "goto-first-unread no",
        "goto-next-feed": "goto-next-feed no", "highlight": "highlight all \"newsboat\" red",
        "include": "include \"\(NSTemporaryDirectory())/zeader-included-config\"",
        "itemview-title-format": "itemview-title-format \"%T\"",
        "keep-articles-days": "keep-articles-days 30", "macro": "macro x open ; toggle-read",
        "max-items": "max-items 100", "notify-program": "notify-program \"~/bin/notify\"",
        "prepopulate-query-feeds": "prepopulate-query-feeds yes", "refresh-on-startup": "refresh-on-startup yes",
        "reload-threads": "reload-threads 3", "reload-time": "reload-time 30", "save-path": "save-path \"~/saved\"",
        "show-keymap-hint": "show-keymap-hint no", "show-read-articles": "show-read-articles no",
        "show-read-feeds": "show-read-feeds no", "suppress-first-reload": "suppress-first-reload yes",
        "text-width": "text-width 72", "unbind-key": "unbind-key j", "user-agent": "user-agent \"Mozilla/5.0\"",
        "download-path": "download-path \"~/podcasts\"", "player": "player mpv",
        "notify-always": "notify-always yes", "notify-beep": "notify-beep yes",
        "notify-format": "notify-format \"%d new articles (%n unread articles, %f unread feeds)\"",
        "searchresult-title-format": "searchresult-title-format \"%N %V - Search result (%u unread, %t total)\"",
        "urlview-title-format": "urlview-title-format \"%N %V - URLs\"",
        "selecttag-title-format": "selecttag-title-format \"%N %V - Select tag\"",
        "selectfilter-title-format": "selectfilter-title-format \"%N %V - Select filter\"",
        "dialogs-title-format": "dialogs-title-format \"%N %V - Dialogs\"",
        "help-title-format": "help-title-format \"%N %V - Help\"",
        "filebrowser-title-format": "filebrowser-title-format \"%?O?Open File&Save File? - %f\"",
        "podlist-format": "podlist-format \"%4i [%5p %%] %-12S %F\"",
        "always-display-description": "always-display-description yes", "error-log": "error-log \"~/.newsboat/error.log\"",
        "external-url-viewer": "external-url-viewer \"urlview\"", "pager": "pager \"less %f\"",
        "reload-only-visible-feeds": "reload-only-visible-feeds yes",
        "max-browser-tabs": "max-browser-tabs 4", "mark-as-read-on-hover": "mark-as-read-on-hover yes",
        "history-limit": "history-limit 50", "html-renderer": "html-renderer \"w3m -dump -T text/html\"",
        "search-highlight-colors": "search-highlight-colors white black bold",
        "swap-title-and-hints": "swap-title-and-hints yes",
        "bind": "bind o articlelist,article open-in-browser",
        "confirm-delete-all-articles": "confirm-delete-all-articles no", "run-on-startup": "run-on-startup \"next-unread; open\"",
        "download-full-page": "download-full-page yes", "scrolloff": "scrolloff 5",
        "wrap-scroll": "wrap-scroll yes",
        "toggleitemread-jumps-to-next-unread": "toggleitemread-jumps-to-next-unread yes",
        "openbrowser-and-mark-jumps-to-next-unread": "openbrowser-and-mark-jumps-to-next-unread yes",
        "notify-screen": "notify-screen yes", "notify-xterm": "notify-xterm yes",
        "define-filter": "define-filter \"unread\" \"unread = \\\"yes\\\"\"",
        "highlight-article": "highlight-article \"title =~ \\\"rss\\\"\" white red bold",
        "ignore-article": "ignore-article \"*\" \"title =~ \\\"Sponsored\\\"\"",
        "ignore-mode": "ignore-mode \"display\"", "urls-source": "urls-source \"local\"",
        "delete-played-files": "delete-played-files yes",
        "always-download": "always-download \"https://a.example/rss\" \"https://b.example/rss \"",
        "max-downloads": "max-downloads 3",
        "download-filename-format": "download-filename-format \"%n-%t.%e\"",
        "cookie-cache": "cookie-cache \"~/.newsboat/cookies.txt\"", "http-auth-method": "http-auth-method digest",
        "max-download-speed": "max-download-speed 50", "proxy": "proxy localhost:3128",
        "proxy-auth": "proxy-auth user:pass", "proxy-type": "proxy-type socks5", "use-proxy": "use-proxy yes",
        "ssl-verifyhost": "ssl-verifyhost no", "ssl-verifypeer": "ssl-verifypeer yes",
    ]

    @Test func theTableCoversEveryDirectiveAndActionOfTheManual() throws {
        let names = try Self.manualNames()
        #expect(names.filter { $0.kind == "directive" }.count >= 150)
        #expect(names.filter { $0.kind == "action" }.count >= 80)
        for (kind, name) in names {
            let support = kind == "directive" ? NewsboatCompatibility.directive(name) : NewsboatCompatibility.action(name)
            #expect(support != nil, "the table lacks newsboat's \(kind) \(name)")
        }
    }

    @Test func everyIgnoredDirectiveIsAWarningSayingWhyAndWhatToDo() {
        for entry in NewsboatCompatibility.directives {
            guard case .ignored(let why) = entry.support else { continue }
            #expect(!why.isEmpty)
            let problems = ReaderConfig.check("\(entry.name) \"x\"", file: "config")
            #expect(
                problems.map(\.description) == [
                    "config:1: warning: newsboat's '\(entry.name)' is not used: \(why) (line ignored)"
                ],
                "\(entry.name)")
        }
    }

    @Test func everyHonouredDirectiveIsReadWithoutAWarning() throws {
        try "show-read-feeds no\n".write(
            toFile: NSTemporaryDirectory() + "/zeader-included-config", atomically: true, encoding: .utf8)
        for entry in NewsboatCompatibility.directives where entry.support.isHonoured {
            let line = try #require(Self.honouredExamples[entry.name], "no example line for \(entry.name)")
            let problems = ReaderConfig.check(line, file: "config")
            #expect(problems.isEmpty, "\(line): \(problems)")
        }
        let honoured = Set(NewsboatCompatibility.directives.filter(\.support.isHonoured).map(\.name))
        #expect(Set(Self.honouredExamples.keys) == honoured, "examples for directives the table does not honour")
    }

    @Test func everyActionIsBoundOrAWarningSayingWhy() {
        for entry in NewsboatCompatibility.actions {
            let result = Action.resolve(configName: entry.name)
            switch (entry.support, result) {
            case (.honoured, .success), (.honouredAs, .success): break
            case (.ignored(let why), .failure(let problem)):
                #expect(problem.message.contains(why), "\(entry.name)")
            default: Issue.record("\(entry.name): the table says \(entry.support), the config reads \(result)")
            }
        }
    }

    @Test func theManPageListsTheTable() throws {
        let man = try String(contentsOf: Self.root.appendingPathComponent("man/zeader.1"), encoding: .utf8)
        let start = ".\\\" ---- newsboat's directives and actions: NewsboatCompatibility ----\n"
        let end = ".\\\" ---- end of newsboat's directives and actions ----\n"
        let section = try #require(man.components(separatedBy: start).dropFirst().first?.components(separatedBy: end).first)
        let expected = Self.manPageTable()
        if section != expected {
            try? expected.write(toFile: "/tmp/zeader-newsboat-table.1", atomically: true, encoding: .utf8)
        }
        #expect(section == expected, "man/zeader.1's table differs from the code's (written to /tmp/zeader-newsboat-table.1)")
        let coming = try #require(man.components(separatedBy: ".SH COMING FROM NEWSBOAT\n").dropFirst().first)
        #expect(coming.components(separatedBy: "\n.SH ").first?.contains(start) == true)
    }

    /// The table as the man page writes it: one `.TP` paragraph per name.
    static func manPageTable() -> String {
        func troff(_ text: String) -> String {
            text.replacingOccurrences(of: "\\", with: "\\e").replacingOccurrences(of: "-", with: "\\-")
                .replacingOccurrences(of: "'", with: "\\(aq")
        }
        func paragraph(_ entry: NewsboatCompatibility.Entry) -> String {
            let what: String
            switch entry.support {
            case .honoured: what = "Honoured."
            case .honouredAs(let zeader): what = "As Zeader's " + troff(zeader) + "."
            case .ignored(let why): what = "Ignored: " + troff(why) + "."
            }
            return ".TP\n.B \(troff(entry.name))\n\(what)\n"
        }
        return ".SS Every directive\n" + NewsboatCompatibility.directives.map(paragraph).joined()
            + ".SS Every action\n" + NewsboatCompatibility.actions.map(paragraph).joined()
    }
}
