import Foundation
import Testing
import ZeaderKit

@testable import ZeaderConfig
@testable import ZeaderTUI

/// What real newsboat configs put in macros and `bind` lines: `set text-width N`,
/// `set-filter "FILTER"`, several operations on one key with `bind`, and macros on
/// control keys.
@Suite struct NewsboatMacroStepsTests {
    /// The longest line of the article's body as the screen shows it.
    func widestBodyLine(_ h: Harness) -> Int {
        h.screen.split(separator: "\n").dropFirst(6).dropLast().map { $0.trimmingCharacters(in: .whitespaces).count }.max()
            ?? 0
    }

    @Test func aMacroSetsTheTextWidthAndTheArticleWrapsAgain() throws {
        let config = try ReaderConfig.parse(
            "macro j set text-width 40 -- \"text width half page\"\nmacro k set text-width 0\n", file: "config")
        #expect(config.warnings.isEmpty, "\(config.warnings)")
        #expect(config.articleCommands.macros[.character("j")] == [.set(variable: "text-width", value: "40")])
        let h = try Harness(width: 100, config: config)
        h.type(.character("j"), .enter, .down, .enter)
        #expect(widestBodyLine(h) > 40)
        h.type(.character(","), .character("j"))
        #expect(widestBodyLine(h) <= 40)
        h.type(.character(","), .character("k"))
        #expect(widestBodyLine(h) > 40)
        // `:set text-width` too; a word that is no number is refused, naming it.
        h.type(.character(":"))
        h.type(text: "set text-width 40")
        h.type(.enter)
        #expect(widestBodyLine(h) <= 40)
        h.type(.character(":"))
        h.type(text: "set text-width wide")
        #expect(h.type(.enter).contains("text-width: needs a number of columns"))
        #expect(widestBodyLine(h) <= 40)
    }

    @Test func aMacroFiltersTheListShown() throws {
        let config = try ReaderConfig.parse("macro u set-filter \"unread = \\\"yes\\\"\"  # only unread\n", file: "config")
        #expect(config.warnings.isEmpty, "\(config.warnings)")
        #expect(config.articleCommands.macros[.character("u")] == [.filter("unread = \"yes\"")])
        let h = try Harness(config: config)
        h.type(.enter)
        let all = try #require(h.queue.sync { h.app.state.items?.ids.count })
        let unread = h.queue.sync { h.app.state.items?.ids.filter { !h.app.model.isRead($0) }.count }
        #expect(unread ?? 0 < all)
        h.type(.character(","), .character("u"))
        #expect(h.queue.sync { h.app.state.items?.ids.count } == unread)
    }

    @Test func aBindWithSeveralOperationsRunsThemInOrder() throws {
        let config = try ReaderConfig.parse(
            "browser \"true %u\"\nbind o articlelist,searchresultslist,article,urlview open-in-browser-and-mark-read;up\n",
            file: "config")
        #expect(config.warnings.isEmpty, "\(config.warnings)")
        let steps: [MacroStep] = [.action(.openInBrowserAndMarkRead), .action(.up)]
        #expect(config.keyMap.steps(for: .character("o"), in: .articlelist) == steps)
        #expect(config.keyMap.steps(for: .character("o"), in: .feedlist) == nil)
        #expect(config.keyMap.action(for: .character("o"), in: .feedlist) == .openInBrowser)
        let effects = RecordingEffects()
        let h = try Harness(config: config, effects: effects)
        h.type(.enter, .down, .down)
        let id = try #require(h.queue.sync { h.app.state.items?.selectedID })
        h.type(.character("o"))
        #expect(effects.programs.count == 1)
        #expect(h.queue.sync { h.app.model.isRead(id) })
        #expect(h.queue.sync { h.app.state.items?.position.cursor } == 1)
    }

    /// A later line of the same key and view wins, whichever form each is.
    @Test func theLastBindingOfAKeyHolds() throws {
        let rebound = try ReaderConfig.parse("bind o articlelist open;up\nbind-key o open articlelist\n", file: "c")
        #expect(rebound.keyMap.steps(for: .character("o"), in: .articlelist) == nil)
        #expect(rebound.keyMap.action(for: .character("o"), in: .articlelist) == .open)
        let steps = try ReaderConfig.parse("bind-key o open articlelist\nbind o articlelist open;up\n", file: "c")
        #expect(steps.keyMap.steps(for: .character("o"), in: .articlelist) == [.action(.open), .action(.up)])
        #expect(steps.keyMap.action(for: .character("o"), in: .articlelist) == nil)
        let unbound = try ReaderConfig.parse("bind o all open;up\nunbind-key o\n", file: "c")
        #expect(unbound.keyMap.steps(for: .character("o"), in: .articlelist) == nil)
        let cleared = try ReaderConfig.parse("bind o everywhere open;up\nunbind-key -a\n", file: "c")
        #expect(cleared.keyMap.steps(for: .character("o"), in: nil) == nil)
        // A step Zeader cannot run leaves the whole line out, as a macro's does.
        let unknown = try ReaderConfig.parse("bind o articlelist open;purge-deleted\n", file: "c")
        #expect(unknown.keyMap.steps(for: .character("o"), in: .articlelist) == nil)
        #expect(unknown.warnings.first?.message.hasPrefix("bind o: ") == true, "\(unknown.warnings)")
        #expect(unknown.warnings.first?.message.hasSuffix("(line ignored)") == true, "\(unknown.warnings)")
    }

    @Test func aMacroOnAControlKeyRunsAfterThePrefix() throws {
        let config = try ReaderConfig.parse(
            "browser \"true %u\"\nmacro ^T set browser \"riverctl spawn \\\"mpv-url --best %u\\\"\"; open-in-browser-and-mark-read; set browser lynx -- \"ytdl\"\n",
            file: "config")
        #expect(config.warnings.isEmpty, "\(config.warnings)")
        let effects = RecordingEffects()
        let h = try Harness(config: config, effects: effects)
        h.type(.enter, .enter)
        let link = try #require(h.queue.sync { h.app.state.article?.link })
        h.type(.character(","), .control("t"))
        #expect(effects.programs.map(\.argv) == [["/bin/sh", "-c", "riverctl spawn \"mpv-url --best '\(link)'\""]])
    }
}
