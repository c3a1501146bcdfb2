import Foundation
import Testing
import ZeaderKit

@testable import ZeaderConfig
@testable import ZeaderTUI

/// newsboat's macro idiom: `set browser "mpv %u"; open-in-browser; set browser …`, and `:set
/// browser` on the command line.
@Suite struct MacroSetTests {
    @Test func aMacroSetsTheBrowserForItsOpenAndSetsItBack() throws {
        let config = try ReaderConfig.parse(
            """
            browser "firefox %u"
            macro v set browser "mpv --really-quiet %u" ; open-in-browser ; set browser "firefox %u"
            macro w set browser "mpv %u" ; open-in-browser
            """, file: "config")
        #expect(config.warnings.isEmpty, "\(config.warnings)")
        #expect(
            config.articleCommands.macros[.character("v")] == [
                .set(variable: "browser", value: "mpv --really-quiet %u"), .action(.openInBrowser),
                .set(variable: "browser", value: "firefox %u"),
            ])
        let effects = RecordingEffects()
        let h = try Harness(config: config, effects: effects)
        h.type(.enter, .enter)
        let link = try #require(h.queue.sync { h.app.state.article?.link })
        h.type(.character(","), .character("v"))
        h.type(.character("o"))
        #expect(
            effects.programs.map(\.argv) == [
                ["/bin/sh", "-c", "mpv --really-quiet '\(link)'"], ["/bin/sh", "-c", "firefox '\(link)'"],
            ])
        // Without the step that sets it back, the browser stays set; `:set browser &` restores the config's.
        h.type(.character(","), .character("w"), .character("o"))
        #expect(
            effects.programs.suffix(2).map(\.argv) == [["/bin/sh", "-c", "mpv '\(link)'"], ["/bin/sh", "-c", "mpv '\(link)'"]])
        h.type(.character(":"))
        h.type(text: "set browser &")
        #expect(h.type(.enter).contains("browser = firefox %u") || h.screen.contains("firefox %u"))
        h.type(.character("o"))
        #expect(effects.programs.last?.argv == ["/bin/sh", "-c", "firefox '\(link)'"])
        // `:set browser "lynx %u"` sets it from the command line.
        h.type(.character(":"))
        h.type(text: "set browser \"lynx -dump %u\"")
        h.type(.enter, .character("o"))
        #expect(effects.programs.last?.argv == ["/bin/sh", "-c", "lynx -dump '\(link)'"])
    }

    @Test func aSetOfSomethingAMacroCannotChangeIsAWarning() throws {
        let config = try ReaderConfig.parse("macro x set cache-file /tmp/x ; open\nmacro y set browser\n", file: "c")
        #expect(config.articleCommands.macros.isEmpty)
        #expect(config.warnings.count == 2)
        #expect(config.warnings.allSatisfy { $0.message.hasSuffix("(macro ignored)") })
        #expect(config.warnings[0].message.contains("'cache-file'"))
    }
}
