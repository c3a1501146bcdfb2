import Foundation
import Testing

@testable import ZeaderConfig

/// A `bind-key` or `macro` line naming an action Zeader lacks is a warning naming it, never a
/// stop; newsboat's names for Zeader's actions bind; an unknown name gets a few close matches,
/// not the whole list.
@Suite struct NewsboatActionNamesTests {
    @Test(arguments: [
        "bind-key j fly", "bind-key x TOGGLE-READ", "bind-key x save-all", "bind-key x goto-title",
        "bind-key x purge-deleted articlelist", "bind-key d pb-frobnicate podboat",
        "bind-key x reload-urls feedlist", "bind-key x \"\"",
    ])
    func aBindKeyWithoutAnActionIsAWarningAndTheKeyKeepsItsAction(line: String) throws {
        let config = try ReaderConfig.parse(line + "\n", file: "c")
        #expect(config.keyMap == KeyMap.default)
        #expect(config.warnings.count == 1)
        #expect(config.warnings.first?.message.hasSuffix("(line ignored)") == true)
        #expect(ReaderConfig.check(line + "\n", file: "c").map(\.isError) == [false])
    }

    @Test func anUnknownActionNamesAtMostThreeCloseMatchesAndWhereTheListIs() throws {
        let config = try ReaderConfig.parse("bind-key x toogle-read\n", file: "c")
        let message = try #require(config.warnings.first?.message)
        #expect(message.contains("unknown action 'toogle-read'; did you mean toggle-read"))
        #expect(message.contains("man zeader, KEYS"))
        let named = Action.configNames.filter { message.contains("\($0),") || message.contains("\($0)?") }
        #expect((1...3).contains(named.count), "\(message)")
        #expect(!message.contains("one of:"))
        // A name close to nothing offers nothing.
        let far = try ReaderConfig.parse("bind-key x xyzzyplughfrobozz\n", file: "c").warnings.first?.message
        #expect(far?.contains("did you mean") == false)
    }

    @Test(arguments: [
        ("select-tag", Action.setTag), ("open-in-browser-noninteractively", .openInBrowser), ("reload", .refreshFeed),
        ("toggle-article-read", .toggleRead), ("pagedown", .pageDown), ("open-search", .search),
    ])
    func newsboatsNamesForZeadersActionsBind(name: String, action: Action) throws {
        let config = try ReaderConfig.parse("bind-key x \(name) feedlist\n", file: "c")
        #expect(config.keyMap.action(for: .character("x"), in: .feedlist) == action)
        #expect(config.warnings.isEmpty)
        let macro = try ReaderConfig.parse("macro x \(name) ; next-unread\n", file: "c")
        #expect(macro.articleCommands.macros[.character("x")] == [.action(action), .action(.nextUnread)])
    }

    @Test func aMacroWithAnActionZeaderLacksIsIgnoredWholeWithAWarningNamingIt() throws {
        let text = """
            macro a mark-feed-read ; next-unread-feed ;
            macro u mark-all-above-as-read ;
            macro , set browser "feh %u"; purge-deleted ; next ; set browser "firefox %u"
            macro e pipe-to "grep -o 'http.*mp3' | xargs -n1 mpv" ; toggle-article-read "read"
            macro o open-all-unread-in-browser        # Open all unread articles in the browser
            macro ^F open-in-browser -- "open firefox outside"
            macro z open ;toggle-article-read; quit -- "read and leave"
            macro R reload;

            """
        let config = try ReaderConfig.parse(text, file: "c")
        #expect(config.articleCommands.macros[.character("a")] == [.action(.markFeedRead), .action(.nextUnreadFeed)])
        #expect(config.articleCommands.macros[.character("z")] == [.action(.open), .action(.toggleRead), .action(.quit)])
        #expect(config.articleCommands.macros[.character("R")] == [.action(.refreshFeed)])
        #expect(config.articleCommands.macros[.character("u")] == [.action(.markAllAboveAsRead)])
        #expect(config.articleCommands.macros[.character("o")] == [.action(.openAllUnreadInBrowser)])
        // newsboat's pipe-to "COMMAND" and toggle-article-read "read" take their argument.
        #expect(
            config.articleCommands.macros[.character("e")] == [
                .pipe(command: "grep -o 'http.*mp3' | xargs -n1 mpv"), .markRead(true),
            ])
        // newsboat's control keys take macros too.
        #expect(config.articleCommands.macros[.control("f")] == [.action(.openInBrowser)])
        #expect(config.articleCommands.macros.count == 7)
        #expect(config.warnings.map(\.line) == [3])
        #expect(config.warnings.allSatisfy { $0.message.hasSuffix("(macro ignored)") })
        #expect(config.warnings[0].message.contains("'purge-deleted'"))
        #expect(ReaderConfig.check(text, file: "c").allSatisfy { !$0.isError })
    }

    @Test func aMacroWithAnUnknownActionOffersCloseMatches() throws {
        let config = try ReaderConfig.parse("macro x opne ; quit\n", file: "c")
        #expect(config.articleCommands.macros.isEmpty)
        let message = try #require(config.warnings.first?.message)
        #expect(message.hasPrefix("macro x: unknown action 'opne'; did you mean open"))
        #expect(message.hasSuffix("(macro ignored)"))
    }

    @Test func aMacroWithoutAnyActionIsStillAnError() {
        #expect(throws: ReaderConfigError.self) { try ReaderConfig.parse("macro x\n", file: "c") }
        #expect(throws: ReaderConfigError.self) { try ReaderConfig.parse("macro x ; ;\n", file: "c") }
        #expect(throws: ReaderConfigError.self) { try ReaderConfig.parse("macro x -- \"nothing\"\n", file: "c") }
    }

    @Test func closeNamesAreNearestFirstAndAtMostThree() {
        #expect(Action.closeNames(to: "reload-al").first == "reload-all")
        #expect(Action.closeNames(to: "nxt").count <= 3)
        #expect(Action.closeNames(to: "").isEmpty || Action.closeNames(to: "").count <= 3)
    }
}
