import Dispatch
import Foundation
import ObjectGraph
import Testing
import ZeaderKit

@testable import ZeaderConfig
@testable import ZeaderTUI

/// newsboat's filter directives in a config (`ignore-article`, `ignore-mode`, `define-filter`,
/// `highlight-article`) and the two languages `f` and `F` read, on the demo feeds (Zeader
/// News: 4 items).
@Suite struct NewsboatFilterConfigTests {
    static let lines = """
        ignore-article "*" "title =~ \\"Sponsor\\""
        ignore-article "https://github.com/CleverRaven/Cataclysm-DDA/releases.atom" "title =~ \\"experimental\\""
        ignore-article "*" "title =~ \\"[Ff]oot[ -]?[Bb]all\\""
        ignore-mode "display"
        ignore-mode download
        define-filter "recent articles" "age between 0:7"
        define-filter "Zeader titles" "title =~ \\"zeader\\""
        define-filter "Starred" "flags # \\"S\\""
        define-filter "No YouTube" "tags !~ \\"YouTube\\" and tags !~ \\"Aggregated\\""
        highlight-article "author =~ \\"Andreas Krennmair\\"" white red bold
        highlight-article "title =~ \\"zeader\\"" yellow default

        """

    @Test("every filter line of the corpus's kind is honoured: no warning, rules, filters and highlights kept")
    func honoured() throws {
        let config = try ReaderConfig.parse(Self.lines, file: "config")
        #expect(config.warnings.isEmpty, "\(config.warnings)")
        #expect(ReaderConfig.check(Self.lines, file: "config").isEmpty)
        #expect(
            config.ignoreRules == [
                Killfile.Rule(scope: .all, predicateFormat: #"title =~ "Sponsor""#),
                Killfile.Rule(
                    scope: .feed("https://github.com/CleverRaven/Cataclysm-DDA/releases.atom"),
                    predicateFormat: #"title =~ "experimental""#),
                Killfile.Rule(scope: .all, predicateFormat: #"title =~ "[Ff]oot[ -]?[Bb]all""#),
            ])
        for rule in config.ignoreRules { _ = try Killfile.compile(rule) }
        #expect(config.definedFilters.map(\.title) == ["recent articles", "Zeader titles", "Starred", "No YouTube"])
        #expect(config.articleHighlights.count == 2)
        #expect(
            config.articleHighlights.first
                == ArticleHighlight(
                    predicateFormat: #"author =~ "Andreas Krennmair""#, foreground: 7, background: 1, attributes: ["bold"]))
    }

    @Test("a filter Zeader cannot translate is a warning naming why; the reader still starts")
    func untranslatable() throws {
        let text = """
            define-filter "first feeds" "feedindex < 3"
            ignore-article "*" "titel =~ \\"x\\""
            highlight-article "title =~ \\"(\\"" red default
            ignore-mode sometimes
            define-filter "no filter"

            """
        let config = try ReaderConfig.parse(text, file: "config")
        #expect(config.definedFilters.isEmpty && config.ignoreRules.isEmpty && config.articleHighlights.isEmpty)
        let problems = ReaderConfig.check(text, file: "config")
        #expect(problems.allSatisfy { !$0.isError })
        #expect(
            problems.map(\.problem.description) == [
                "config:1: define-filter: newsboat filter: newsboat's 'feedindex' (a place in a list on screen) has no equivalent in Zeader (line ignored)",
                "config:2: ignore-article: newsboat filter: unknown attribute 'titel' at character 1 (line ignored)",
                "config:3: highlight-article: newsboat filter: \"(\" is not a regular expression Zeader can use: ICU cannot compile it (line ignored)",
                "config:4: ignore-mode needs download or display (line ignored)",
                "config:5: define-filter needs a name and a filter (line ignored)",
            ])
    }

    @Test("f offers the define-filter lines first; picking one filters the item list through the newsboat filter")
    func defineFilterInPicker() throws {
        let config = try ReaderConfig.parse(Self.lines, file: "config")
        let h = try Harness(config: config)
        h.type(.enter)
        #expect(h.queue.sync { h.app.state.items?.ids.count } == 4)
        let list = h.type(.character("f"))
        #expect(list.contains("recent articles") && list.contains("Zeader titles") && list.contains("No YouTube"))
        h.type(.down, .enter)
        let titles = h.queue.sync { (h.app.state.items?.ids ?? []).map { h.app.model.itemRow($0)?.title ?? "" } }
        #expect(titles == ["Welcome to Zeader"])
        #expect(h.queue.sync { h.app.state.items?.filter } == #"title =~ "zeader""#)
    }

    @Test("F reads newsboat's language where ObjectGraph's does not read the text, and names a refusal")
    func capitalFReadsBothLanguages() throws {
        let h = try Harness()
        h.type(.enter)
        h.type(.character("F"))
        for c in #"unread = "yes" and title =~ "ZEADER|itunes|undo""# { h.type(.character(c)) }
        h.type(.enter)
        let titles = h.queue.sync { (h.app.state.items?.ids ?? []).map { h.app.model.itemRow($0)?.title ?? "" } }
        #expect(Set(titles) == ["Welcome to Zeader", "Search like iTunes"], "\(titles)")
        h.type(.control("f"))
        h.type(.character("F"))
        for c in "feedindex < 2" { h.type(.character(c)) }
        let screen = h.type(.enter)
        #expect(screen.contains("'feedindex'"), "\(screen)")
    }

    @Test("a smart feed holding a newsboat filter (an imported query feed) lists the items it matches")
    func queryFeedInTheFeedList() throws {
        let store = try ZeaderStore.inMemory()
        try DemoFeeds.load(into: store)
        let context = store.container.viewContext
        try context.performAndWait {
            try SmartFeeds.add(
                title: "Zeader query", predicate: #"unread = "yes" and title =~ "zeader|itunes|undo""#, in: context)
            try context.save()
        }
        let h = try Harness(store: store)
        let index = try #require(h.queue.sync { h.app.state.feeds.firstIndex { $0.title == "Zeader query" } })
        for _ in 0..<index { h.type(.down) }
        h.type(.enter)
        let titles = h.queue.sync { (h.app.state.items?.ids ?? []).map { h.app.model.itemRow($0)?.title ?? "" } }
        #expect(Set(titles) == ["Welcome to Zeader", "Search like iTunes"], "\(titles)")
    }

    @Test("F on the feed list reads newsboat's feed attributes")
    func capitalFOnTheFeedList() throws {
        let h = try Harness()
        h.type(.character("F"))
        for c in "total_count > 3 and unread_count > 0" { h.type(.character(c)) }
        h.type(.enter)
        let titles = h.queue.sync { h.app.state.feeds.map(\.title) }
        #expect(titles.contains("Zeader News") && !titles.contains("Swift on Linux"), "\(titles)")
    }

    @Test("highlight-article paints the rows its filter matches, in its colours, after the highlight lines")
    func highlightArticlePaintsRows() throws {
        var config = try ReaderConfig.parse(
            "highlight articlelist \"swift\" green\n" + "highlight-article \"title =~ \\\"itunes|safe\\\"\" yellow red bold\n",
            file: "config")
        #expect(config.warnings.isEmpty, "\(config.warnings)")
        #expect(config.paintedHighlights.count == 2)
        let palette = Palette(rules: [], highlights: config.paintedHighlights, hasColor: true)
        #expect(palette.highlights.count == 2 && palette.highlights[1].colors == Palette.Colors(3, 1))
        config.behaviour.showKeymapHint = false
        let h = try Harness(config: config)
        h.type(.enter)
        let buffer = try #require(h.queue.sync { h.backend.screen })
        let cursorTitle = h.queue.sync { h.app.state.items?.selectedID.flatMap { h.app.model.itemRow($0)?.title } }
        /// The highlight of the first cell of `title` on screen.
        func highlight(_ title: String) throws -> Int {
            let y = try #require((0..<buffer.height).first { buffer.line($0).contains(title) })
            let line = buffer.line(y)
            let column = line.distance(from: line.startIndex, to: try #require(line.range(of: title)).lowerBound)
            return buffer[column, y].style.highlight
        }
        for title in ["Search like iTunes", "Safe by default"] where !(cursorTitle ?? "").hasPrefix(title) {
            #expect(try highlight(title) == 2, "\(title)")
        }
        #expect(try highlight("Undo is one key away") == 0)
    }
}
