import Foundation
import Testing

@testable import ZeaderConfig
@testable import ZeaderTUI

/// newsboat's newer `bind KEY CONTEXTS OPERATION` lines.
@Suite struct NewsboatBindFormTests {
    @Test func bindBindsTheKeyInEachContextNamed() throws {
        let config = try ReaderConfig.parse("bind x articlelist,article open-in-browser", file: "config")
        #expect(config.warnings.isEmpty)
        #expect(config.keyMap.action(for: .character("x"), in: .articlelist) == .openInBrowser)
        #expect(config.keyMap.action(for: .character("x"), in: .article) == .openInBrowser)
        #expect(config.keyMap.action(for: .character("x"), in: .feedlist) == KeyMap.default.action(for: .character("x")))
        let everywhere = try ReaderConfig.parse("bind ^O everywhere reload-all", file: "config")
        #expect(everywhere.keyMap.action(for: .control("o"), in: .feedlist) == .refreshAll)
        #expect(everywhere.keyMap.action(for: .control("o"), in: .article) == .refreshAll)
    }

    @Test func whatBindCannotDoIsAWarningAndTheKeyKeepsItsAction() throws {
        let lines = [
            "bind o articlelist frobnicate", "bind <weird> articlelist open", "bind d filebrowser open",
            "bind o nowhere open",
        ]
        for line in lines {
            let config = try ReaderConfig.parse(line, file: "config")
            #expect(config.keyMap == KeyMap.default, "\(line)")
            #expect(config.warnings.count == 1, "\(line)")
            #expect(config.warnings.first?.message.hasSuffix("(line ignored)") == true, "\(line)")
        }
        #expect(throws: ReaderConfigError.self) { try ReaderConfig.parse("bind o articlelist", file: "config") }
    }
}

/// newsboat's `confirm-delete-all-articles`.
@Suite struct ConfirmDeleteAllArticlesTests {
    @Test func withNoTheListsItemsGoAtOnce() throws {
        let asking = try Harness(width: 100)
        asking.type(.character("j"), .enter, .control("d"))
        #expect(asking.queue.sync { asking.app.state.prompt } != nil)
        let h = try Harness(width: 100, config: try ReaderConfig.parse("confirm-delete-all-articles no", file: "c"))
        h.type(.character("j"), .enter, .control("d"))
        #expect(h.queue.sync { h.app.state.prompt } == nil)
        #expect(h.queue.sync { h.app.state.items?.ids.count } == 0)
    }
}

/// newsboat's `swap-title-and-hints`.
@Suite struct SwapTitleAndHintsTests {
    @Test func theTitleBarIsAtTheBottomAndTheHintsAtTheTop() throws {
        let plain = try Harness(width: 100, height: 20)
        let swapped = try Harness(
            width: 100, height: 20, config: try ReaderConfig.parse("swap-title-and-hints yes", file: "c"))
        _ = plain.screen
        _ = swapped.screen
        #expect(plain.line(0).hasPrefix("Zeader"))
        #expect(swapped.line(19) == plain.line(0))
        #expect(swapped.line(0) == plain.line(19))
        #expect(swapped.line(1) == plain.line(1))
        #expect(try ReaderConfig.parse("swap-title-and-hints no", file: "c").formats.swapTitleAndHints == false)
    }
}
