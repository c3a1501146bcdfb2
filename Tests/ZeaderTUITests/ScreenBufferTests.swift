import Testing

@testable import ZeaderConfig
@testable import ZeaderTUI

@Suite struct ScreenBufferTests {
    @Test func wideCharactersTakeTwoCellsAndAreNeverCutInHalf() {
        var buffer = ScreenBuffer(width: 5, height: 1)
        let end = buffer.write("日本語", x: 0, y: 0)
        #expect(end == 4)
        #expect(buffer.line(0) == "日本 ")
        #expect(buffer[1, 0].width == 0)
        // Overwriting the right half of a wide character blanks its left half.
        buffer.write("x", x: 1, y: 0)
        #expect(buffer.line(0) == " x本 ")
    }

    @Test func writesAreClippedToTheirWidthAndTheEdge() {
        var buffer = ScreenBuffer(width: 6, height: 2)
        buffer.write("abcdef", x: 0, y: 0, maxWidth: 3)
        buffer.write("🎉🎉🎉", x: 1, y: 1)
        #expect(buffer.text == "abc\n 🎉🎉")
        buffer.write("zz", x: 0, y: 5)  // off screen: ignored
        #expect(buffer.height == 2)
    }

    @Test func combiningMarksJoinTheirBase() {
        var buffer = ScreenBuffer(width: 4, height: 1)
        buffer.write("e\u{301}x", x: 0, y: 0)
        #expect(buffer[0, 0].text == "e\u{301}")
        #expect(buffer[1, 0].text == "x")
    }
}

@Suite struct KeyMapTests {
    @Test func defaultsFollowDesign() {
        let map = KeyMap.default
        #expect(map.action(for: .character("j")) == .down)
        #expect(map.action(for: .down) == .down)
        #expect(map.action(for: .enter) == .open)
        #expect(map.action(for: .character("r")) == .refreshFeed)
        #expect(map.action(for: .character("R")) == .refreshAll)
        #expect(map.action(for: .character("n")) == .nextUnread)
        #expect(map.action(for: .character("N")) == .toggleRead)
        #expect(map.action(for: .character("A")) == .markFeedRead)
        #expect(map.action(for: .character("/")) == .search)
        #expect(map.action(for: .character("o")) == .openInBrowser)
        #expect(map.action(for: .character("a")) == .addFeed)
        #expect(map.action(for: .character("d")) == .deleteFeed)
        #expect(map.action(for: .character("z")) == .undo)
        #expect(map.action(for: .character("Z")) == .redo)
        #expect(map.action(for: .character("?")) == .help)
    }

    @Test func keyNamesRoundTrip() {
        for name in ["j", "^R", "ENTER", "SPACE", "PGDN", "UP", "/"] {
            #expect(Key(name: name)?.name == name)
        }
        #expect(Key(name: "^r") == .control("r"))
        #expect(Key(name: "NOPE") == nil)
        #expect(Key(controlByte: 0x12) == .control("r"))
        #expect(Key(controlByte: 0x0D) == .enter)
    }

    @Test func configBindsAndUnbinds() throws {
        let config = try ReaderConfig.parse(
            """
            # comment
            bind-key x delete-feed
            unbind-key d
            refresh-interval 15
            browser "lynx -accept_all_cookies"
            smart-feed "Swift" read == NO AND title CONTAINS[cd] "swift"
            color no
            """, file: "config")
        #expect(config.keyMap.action(for: .character("x")) == .deleteFeed)
        #expect(config.keyMap.action(for: .character("d")) == nil)
        #expect(config.refreshIntervalMinutes == 15)
        #expect(config.browser == "lynx -accept_all_cookies")
        #expect(config.smartFeeds == [.init(title: "Swift", predicateFormat: #"read == NO AND title CONTAINS[cd] "swift""#)])
        #expect(config.useColor == false)
    }

    @Test func configErrorsNameFileAndLine() throws {
        #expect(throws: ReaderConfigError(file: "cfg", line: 2, message: "refresh-interval needs a number of minutes (0 = off)"))
        {
            try ReaderConfig.parse("bind-key j down\nrefresh-interval WHAT", file: "cfg")
        }
        // A key name Zeader does not know loses only its line, as newsboat binds nothing for it.
        #expect(try ReaderConfig.parse("bind-key WHAT quit", file: "cfg").warnings.count == 1)
        #expect(try ReaderConfig.parse("bind-key j fly", file: "cfg").warnings.count == 1)
        #expect(throws: ReaderConfigError.self) { try ReaderConfig.parse("browser \"unterminated", file: "cfg") }
        // An unknown directive is a warning naming file:line (a newsboat config must not stop the reader).
        let warned = try ReaderConfig.parse("frobnicate", file: "cfg")
        #expect(warned.warnings.map(\.description) == ["cfg:1: unknown directive 'frobnicate' (line ignored)"])
    }
}

@Suite struct LinkOpenerTests {
    @Test func theURLIsItsOwnArgument() throws {
        let url = "https://a.example/x?y=1;rm$(id)"
        #expect(try LinkOpener.command(for: url, browser: nil, environment: [:]) == ["xdg-open", url])
        #expect(
            try LinkOpener.command(for: url, browser: nil, environment: ["BROWSER": "lynx -dump:w3m"]) == ["lynx", "-dump", url])
        // The config's browser runs through the shell (the URL quoted), or, with
        // run-through-shell no, as its words with the URL an argument of its own.
        #expect(
            try LinkOpener.command(for: "mailto:a@b.example", browser: "w3m", environment: [:])
                == ["/bin/sh", "-c", "w3m 'mailto:a@b.example'"])
        #expect(
            try LinkOpener.command(for: "mailto:a@b.example", browser: "w3m", throughShell: false, environment: [:])
                == ["w3m", "mailto:a@b.example"])
    }

    @Test func otherSchemesAndControlCharactersAreRefused() {
        for link in [
            "javascript:alert(1)", "file:///etc/passwd", "https://a.example/a b", "https://a.example/\u{1B}[2J", "relative/path",
        ] {
            #expect(throws: LinkOpener.RefusedLink.self) { try LinkOpener.command(for: link, browser: nil, environment: [:]) }
        }
    }
}
