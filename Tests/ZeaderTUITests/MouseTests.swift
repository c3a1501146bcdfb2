import Dispatch
import Foundation
import Testing
import ZeaderKit

@testable import ZeaderConfig
@testable import ZeaderTUI

/// The mouse: reports decoded from what curses reads, mapped to what they do on each screen,
/// and the `mouse` setting. (The real binary in tmux: `MouseEndToEndTests`.)
@Suite struct MouseReportDecoderTests {
    /// `text` as curses hands it over byte by byte (escape as the key, the rest as characters).
    static func bytes(_ text: String) -> [CursesInput] {
        text.map { $0 == "\u{1B}" ? .key(.escape) : .key(.character($0)) }
    }

    static func press(_ button: MouseButton = .left, column: Int, row: Int) -> Key {
        .mouse(MouseEvent(kind: .press(button), column: column, row: row))
    }

    @Test func anSGRReportIsOneMouseKeyWithZeroBasedCells() {
        var decoder = MouseReportDecoder()
        #expect(decoder.decode(Self.bytes("\u{1B}[<0;5;3M")) == [Self.press(column: 4, row: 2)])
        #expect(decoder.decode(Self.bytes("\u{1B}[<0;5;3m")) == [.mouse(MouseEvent(kind: .release, column: 4, row: 2))])
        #expect(decoder.decode(Self.bytes("\u{1B}[<2;300;100M")) == [Self.press(.right, column: 299, row: 99)])
        #expect(decoder.decode(Self.bytes("\u{1B}[<1;1;1M")) == [Self.press(.middle, column: 0, row: 0)])
    }

    @Test func curses_KEY_MOUSE_standsForTheIntroducer() {
        var decoder = MouseReportDecoder()
        let input: [CursesInput] = [.mouseIntroducer] + Self.bytes("0;5;3M")
        #expect(decoder.decode(input) == [Self.press(column: 4, row: 2)])
    }

    @Test func theWheelModifiersAndMotion() {
        var decoder = MouseReportDecoder()
        let kinds = ["64", "65", "66", "32", "35", "4", "8", "16", "128"].map { button -> MouseEvent.Kind? in
            guard case .mouse(let event)? = decoder.decode(Self.bytes("\u{1B}[<\(button);2;2M")).first else { return nil }
            return event.kind
        }
        #expect(kinds == [.wheelUp, .wheelDown, .other, .other, .other, .press(.left), .press(.left), .press(.left), .other])
    }

    @Test func keysAroundAReportStayKeys() {
        var decoder = MouseReportDecoder()
        let keys = decoder.decode(Self.bytes("j\u{1B}[<65;2;2Mk") + [.key(.enter)])
        #expect(
            keys == [.character("j"), .mouse(MouseEvent(kind: .wheelDown, column: 1, row: 1)), .character("k"), .enter])
    }

    @Test func aReportSplitBetweenTwoReadsIsHeldUntilItsEnd() {
        var decoder = MouseReportDecoder()
        #expect(decoder.decode(Self.bytes("\u{1B}[<0;1")).isEmpty)
        #expect(decoder.isHolding)
        #expect(decoder.decode(Self.bytes("2;7Mq")) == [Self.press(column: 11, row: 6), .character("q")])
        #expect(!decoder.isHolding)
        // Split right after the escape and the bracket too.
        #expect(decoder.decode(Self.bytes("\u{1B}[")).isEmpty)
        #expect(decoder.decode(Self.bytes("<0;2;2M")) == [Self.press(column: 1, row: 1)])
        #expect(decoder.decode([.mouseIntroducer]).isEmpty)
        #expect(decoder.decode(Self.bytes("0;2;2M")) == [Self.press(column: 1, row: 1)])
    }

    @Test(arguments: ["\u{1B}", "\u{1B}j", "\u{1B}[x", "\u{1B}[<0;5x", "\u{1B}[<0;5M", "\u{1B}[<;;M", "\u{1B}[<1;2;3;4M"])
    func whatIsNotAReportIsGivenBackAsItsKeys(text: String) {
        var decoder = MouseReportDecoder()
        let expected = Self.bytes(text).map { input -> Key in
            guard case .key(let key) = input else { return .resize }
            return key
        }
        #expect(decoder.decode(Self.bytes(text)) == expected)
        #expect(!decoder.isHolding)
    }

    @Test func aRunOfDigitsTooLongForAReportIsGivenBack() {
        var decoder = MouseReportDecoder()
        let text = "\u{1B}[<" + String(repeating: "1", count: 40) + "M"
        #expect(decoder.decode(Self.bytes(text)).count == text.count)
    }

    @Test func theOldReportOfATerminalWithoutSGR() {
        var decoder = MouseReportDecoder()
        // Button 0 + 32, column 5 + 32, row 3 + 32.
        #expect(decoder.decode(Self.bytes("\u{1B}[M %#")) == [Self.press(column: 4, row: 2)])
        #expect(decoder.decode(Self.bytes("\u{1B}[M#%#")) == [.mouse(MouseEvent(kind: .release, column: 4, row: 2))])
        #expect(
            decoder.decode([.mouseIntroducer] + Self.bytes("a%#")) == [.mouse(MouseEvent(kind: .wheelDown, column: 4, row: 2))])
    }

    @Test func aReportOutsideTheScreenIsDropped() {
        var decoder = MouseReportDecoder()
        #expect(decoder.decode(Self.bytes("\u{1B}[<0;0;3Mj")) == [.character("j")])
    }
}

@Suite struct MouseCommandTests {
    static func click(_ column: Int, _ row: Int) -> MouseEvent { MouseEvent(kind: .press(.left), column: column, row: row) }

    func command(_ event: MouseEvent, _ h: Harness) -> MouseCommand {
        h.queue.sync {
            MouseCommand(event, state: h.app.state, screen: ReaderView.render(h.app.state, keyMap: h.app.config.keyMap))
        }
    }

    @Test func inAListAClickSelectsAndAClickOnTheSelectedRowOpens() throws {
        let h = try Harness()
        #expect(command(Self.click(10, 2), h) == .select(row: 1))
        #expect(command(Self.click(10, 1), h) == .open(row: 0))
        #expect(command(Self.click(10, 20), h) == .nothing)  // below the last feed
        #expect(command(Self.click(10, 29), h) == .nothing)  // the status line
        #expect(command(Self.click(10, 0), h) == .nothing)  // the title bar: the feed list has no back
        h.type(.character("j"), .character("j"))
        #expect(command(Self.click(0, 3), h) == .open(row: 2))
    }

    @Test func otherButtonsAndReleasesDoNothingAndTheWheelScrolls() throws {
        let h = try Harness()
        for kind in [MouseEvent.Kind.press(.right), .press(.middle), .release, .other] {
            #expect(command(MouseEvent(kind: kind, column: 10, row: 2), h) == .nothing)
        }
        #expect(command(MouseEvent(kind: .wheelDown, column: 10, row: 2), h) == .scroll(lines: 3))
        #expect(command(MouseEvent(kind: .wheelUp, column: 0, row: 0), h) == .scroll(lines: -3))
    }

    @Test func inTheArticleALinkNumberOpensItsLinkAndTheTitleBarGoesBack() throws {
        let h = try Harness()
        h.type(.enter, .enter)
        let (column, row) = try #require(linkCell("[1]", h))
        #expect(command(Self.click(column, row), h) == .openLink(1))
        #expect(command(Self.click(column + 2, row), h) == .openLink(1))
        #expect(command(Self.click(column + 3, row), h) == .nothing)
        #expect(command(Self.click(0, 0), h) == .back)
        #expect(command(Self.click(0, 3), h) == .nothing)  // a header line
    }

    @Test func aLinkNumberIsFoundAfterWideCharacters() {
        var buffer = ScreenBuffer(width: 30, height: 3)
        buffer.write("日本 [12] and [x] [] [3", x: 0, y: 1)
        // 日 and 本 take two columns each: "[12]" spans columns 5 to 8.
        #expect(MouseCommand.linkNumber(atColumn: 4, row: 1, in: buffer) == nil)
        #expect((5...8).map { MouseCommand.linkNumber(atColumn: $0, row: 1, in: buffer) } == [12, 12, 12, 12])
        #expect(MouseCommand.linkNumber(atColumn: 9, row: 1, in: buffer) == nil)
        for column in 10..<30 { #expect(MouseCommand.linkNumber(atColumn: column, row: 1, in: buffer) == nil) }
        #expect(MouseCommand.linkNumber(atColumn: 5, row: 7, in: buffer) == nil)
    }

    @Test func aDoubleClickIsTheSamePlaceSoonAfter() {
        let first = MouseClick(column: 4, row: 2, time: 10, opened: true)
        #expect(first.isDoubled(by: MouseClick(column: 4, row: 2, time: 10.3, opened: false)))
        #expect(!first.isDoubled(by: MouseClick(column: 4, row: 2, time: 10.5, opened: false)))
        #expect(!first.isDoubled(by: MouseClick(column: 5, row: 2, time: 10.1, opened: false)))
        #expect(!first.isDoubled(by: MouseClick(column: 4, row: 3, time: 10.1, opened: false)))
    }

    /// The column and row where `text` is drawn on the screen.
    func linkCell(_ text: String, _ h: Harness) -> (Int, Int)? {
        let screen = h.queue.sync { ReaderView.render(h.app.state, keyMap: h.app.config.keyMap) }
        for row in 0..<screen.height {
            let line = screen.line(row)
            if let range = line.range(of: text) { return (line.distance(from: line.startIndex, to: range.lowerBound), row) }
        }
        return nil
    }
}

/// The reader with mouse keys, as the backend hands them over.
@Suite struct ReaderMouseTests {
    static func click(_ column: Int, _ row: Int) -> Key { .mouse(MouseEvent(kind: .press(.left), column: column, row: row)) }
    static let wheelDown = Key.mouse(MouseEvent(kind: .wheelDown, column: 5, row: 3))
    static let wheelUp = Key.mouse(MouseEvent(kind: .wheelUp, column: 5, row: 3))

    @Test func clickSelectsThenOpensAndTheTitleBarGoesBack() throws {
        let h = try Harness()
        #expect(h.backend.mouseReporting)
        h.type(Self.click(10, 2))
        #expect(h.queue.sync { h.app.state.feedPosition.cursor } == 1)
        #expect(h.queue.sync { h.app.state.screen } == .feeds)
        h.type(Self.click(10, 2))
        #expect(h.line(0).contains("Swift on Linux (3 items)"))
        h.type(Self.click(10, 3))
        #expect(h.queue.sync { h.app.state.items?.position.cursor } == 2)
        #expect(h.type(Self.click(10, 3)).contains("Title: "))
        #expect(h.queue.sync { h.app.state.screen } == .article)
        h.type(Self.click(30, 0))
        #expect(h.queue.sync { h.app.state.screen } == .items)
        h.type(Self.click(30, 0))
        #expect(h.queue.sync { h.app.state.screen } == .feeds)
        // On the feed list the title bar does nothing: a click never quits.
        h.type(Self.click(30, 0))
        #expect(!h.queue.sync { h.app.hasQuit })
        #expect(h.queue.sync { h.app.state.message } == nil)
    }

    @Test func aDoubleClickOpensOnceAndItsSecondPressIsSwallowed() throws {
        let h = try Harness()
        // On a row not selected: the first press selects, the second opens.
        h.type(Self.click(10, 2), Self.click(10, 2))
        #expect(h.line(0).contains("Swift on Linux (3 items)"))
        // On the selected row: the first press opens, the second falls on the item list at
        // the same place and is not a click there.
        h.type(Self.click(10, 0))
        h.type(Self.click(10, 1), Self.click(10, 1))
        #expect(h.line(0).contains("Zeader News"))
        #expect(h.queue.sync { h.app.state.screen } == .items)
        #expect(h.queue.sync { h.app.state.items?.position.cursor } == 0)
    }

    @Test func aClickOnALinkNumberOpensItThroughTheBrowser() throws {
        let effects = RecordingEffects()
        var config = ReaderConfig()
        config.browser = "lynx"
        let h = try Harness(config: config, effects: effects)
        h.type(.enter, .enter)
        let (column, row) = try #require(MouseCommandTests().linkCell("[1]", h))
        #expect(h.type(Self.click(column + 1, row)).contains("Opened https://zeader.example/manual"))
        #expect(effects.programs.map(\.argv) == [["/bin/sh", "-c", "lynx 'https://zeader.example/manual'"]])
    }

    @Test func theWheelScrollsListsAndArticles() throws {
        let h = try Harness(width: 80, height: 4)  // two rows of the four feeds
        #expect(h.queue.sync { h.app.state.feeds.count } == 4)
        h.type(Self.wheelDown)
        #expect(h.queue.sync { h.app.state.feedPosition } == ListPosition(cursor: 2, top: 2))
        #expect(h.line(1).contains("World Scripts"))
        h.type(Self.wheelUp)
        #expect(h.queue.sync { h.app.state.feedPosition } == ListPosition(cursor: 1, top: 0))
        h.type(Self.wheelUp)
        #expect(h.queue.sync { h.app.state.feedPosition } == ListPosition(cursor: 1, top: 0))
        h.type(.home, .enter, .enter)
        #expect(h.queue.sync { h.app.state.screen } == .article)
        h.type(Self.wheelDown)
        #expect(h.queue.sync { h.app.state.article?.scroll } == 3)
        h.type(Self.wheelUp)
        #expect(h.queue.sync { h.app.state.article?.scroll } == 0)
    }

    @Test func inTheLinkListAClickSelectsAndOpensAndTheWheelScrollsHelp() throws {
        let effects = RecordingEffects()
        var config = ReaderConfig()
        config.browser = "lynx"
        let h = try Harness(config: config, effects: effects)
        h.type(.enter, .enter, .character("U"))
        #expect(h.queue.sync { h.app.state.screen } == .picker)
        let count = h.queue.sync { h.app.state.picker?.entries.count ?? 0 }
        #expect(count >= 2)
        h.type(Self.click(5, 2))
        #expect(h.queue.sync { h.app.state.picker?.position.cursor } == 1)
        #expect(effects.programs.isEmpty)
        h.type(Self.click(5, 2))
        #expect(effects.programs.count == 1)
        h.type(.character("q"), .character("q"), .character("?"))
        #expect(h.queue.sync { h.app.state.screen } == .help)
        h.type(Self.wheelDown, Self.wheelDown)
        #expect(h.queue.sync { h.app.state.helpScroll } == 6)
        h.type(Self.wheelUp)
        #expect(h.queue.sync { h.app.state.helpScroll } == 3)
    }

    @Test func theWindowMovesAndTheCursorStaysInIt() {
        var position = ListPosition(cursor: 1, top: 0)
        position.scroll(by: 3, count: 10, height: 4)
        #expect(position == ListPosition(cursor: 3, top: 3))
        position.scroll(by: 30, count: 10, height: 4)
        #expect(position == ListPosition(cursor: 6, top: 6))
        position.cursor = 8
        position.scroll(by: -3, count: 10, height: 4)
        #expect(position == ListPosition(cursor: 6, top: 3))
        position.scroll(by: 3, count: 2, height: 4)
        #expect(position == ListPosition(cursor: 1, top: 0))
        position.scroll(by: 3, count: 0, height: 4)
        #expect(position == ListPosition(cursor: 0, top: 0))
    }

    @Test func withTheMouseOffReportsDoNothingAndKeysWork() throws {
        let h = try Harness(config: try ReaderConfig.parse("mouse no\n", file: "c"))
        #expect(!h.backend.mouseReporting)
        let before = h.screen
        #expect(h.type(Self.click(10, 2), Self.click(10, 2), Self.wheelDown) == before)
        #expect(h.queue.sync { h.app.state.message } == nil)
        h.type(.character("j"), .enter)
        #expect(h.line(0).contains("Swift on Linux"))
    }

    @Test func keysWorkWithTheMouseOnAndAPromptIgnoresClicks() throws {
        let h = try Harness()
        h.type(.character("j"), .enter)
        #expect(h.line(0).contains("Swift on Linux"))
        h.type(.character("/"))
        h.type(Self.click(10, 0), Self.click(10, 2), Self.wheelDown)
        #expect(h.queue.sync { h.app.state.prompt } != nil)
        #expect(h.queue.sync { h.app.state.screen } == .items)
        h.type(text: "creme")
        #expect(h.type(.enter).contains("Swift on Linux: creme"))
    }

    @Test func theSettingFollowsTheTerminalUnlessTheConfigSays() throws {
        for (line, hasMouse, expected) in [
            ("", true, true), ("", false, false), ("mouse yes", false, true), ("mouse no", true, false),
            ("mouse YES", false, true),
        ] {
            let store = try ZeaderStore.inMemory()
            let config = try ReaderConfig.parse(line + "\n", file: "c")
            let backend = TestBackend(width: 80, height: 24)
            backend.terminalHasMouse = hasMouse
            let app = ReaderApp(
                model: ReaderModel(store: store), backend: backend, config: config, queue: store.container.viewContext.queue)
            store.container.viewContext.queue.sync { app.start() }
            #expect(backend.mouseReporting == expected, "\(line) on a terminal with\(hasMouse ? "" : "out") a mouse")
        }
    }

    @Test(arguments: ["mouse", "mouse maybe", "mouse yes no"])
    func aBadMouseLineIsAnErrorNamingIt(line: String) {
        #expect {
            try ReaderConfig.parse(line + "\n", file: "c")
        } throws: { error in
            (error as? ReaderConfigError)?.message.hasPrefix("mouse") == true
        }
    }

    @Test func aMacroTogglesTheMouse() throws {
        let config = try ReaderConfig.parse("macro m set mouse !\n", file: "config")
        #expect(config.warnings.isEmpty, "\(config.warnings)")
        let h = try Harness(config: config)
        h.type(.character(","), .character("m"))
        #expect(!h.backend.mouseReporting)
        h.type(.character(","), .character("m"))
        #expect(h.backend.mouseReporting)
    }

    @Test func setMouseTurnsReportsOnAndOff() throws {
        let h = try Harness()
        h.type(.character(":"))
        h.type(text: "set mouse no")
        #expect(h.type(.enter).contains("mouse=no"))
        #expect(!h.backend.mouseReporting)
        for (command, expected) in [("set mouse!", true), ("set mouse=false", false), ("set mouse &", true)] {
            h.type(.character(":"))
            h.type(text: command)
            #expect(h.type(.enter).contains("mouse=\(expected ? "yes" : "no")"), "\(command)")
            #expect(h.backend.mouseReporting == expected, "\(command)")
        }
        h.type(.character(":"))
        h.type(text: "set mouse sometimes")
        #expect(h.type(.enter).contains("sometimes"))
        #expect(h.backend.mouseReporting)
        h.type(.character(":"))
        h.type(text: "set mouse")
        #expect(h.type(.enter).contains("mouse=yes"))
    }
}
