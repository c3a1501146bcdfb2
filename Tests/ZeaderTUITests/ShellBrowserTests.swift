import Foundation
import Testing

@testable import ZeaderConfig
@testable import ZeaderTUI

/// `browser` runs as newsboat runs it, through `sh -c` with `%u` quoted; a feed's URL never
/// becomes shell syntax, whatever quotes the user put around `%u`.
@Suite struct ShellBrowserTests {
    /// Links a feed could carry, each trying to leave its quotes.
    static let hostileLinks = [
        "https://a.example/it's",
        "https://a.example/x?a=1;touch${IFS}PWNED",
        "https://a.example/$(touch${IFS}PWNED)",
        "https://a.example/`touch${IFS}PWNED`",
        "https://a.example/'$(touch${IFS}PWNED)'",
        #"https://a.example/"$(touch${IFS}PWNED)""#,
        #"https://a.example/\'$(touch${IFS}PWNED)\'"#,
        "https://a.example/%u%27%s%%u?q=a&b=c|d>e<f",
        "https://a.example/';touch${IFS}PWNED;'",
        #"https://a.example/\"';touch${IFS}PWNED;#"#,
        "HTTP://A.EXAMPLE/$((1+1))*?[a]~{b,c}!",
        "mailto:a@b.example?subject=$(touch${IFS}PWNED)",
    ]

    /// Browser commands that write the URL to `out`: `%u` outside quotes, inside double and
    /// single quotes handed to another shell, in a command substitution, in backticks, and no `%u`.
    static func browsers(writingTo out: String) -> [String] {
        [
            "printf '%s\\n' %u > '\(out)'",
            "printf '%s\\n' %u | cat > '\(out)' &",
            "sh -c \"printf '%s\\\\n' %u\" > '\(out)'",
            "sh -c 'printf \"%s\\n\" %u' > '\(out)'",
            "printf '%s\\n' \"$(printf '%s' %u)\" > '\(out)'",
            "printf '%s\\n' \"`printf '%s' %u`\" > '\(out)'",
            "x=%u; printf '%s\\n' \"$x\" > '\(out)'",
            "{ read -r u; printf '%s\\n' \"$u\"; } > '\(out)' <<<",
        ]
    }

    @Test func hostileLinksReachTheBrowserAsTheyAre() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("zeader-shell-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("url").path
        let bashOnly = "<<<"
        for browser in Self.browsers(writingTo: out) {
            if browser.hasSuffix(bashOnly), !FileManager.default.fileExists(atPath: "/bin/bash") { continue }
            for link in Self.hostileLinks {
                try? FileManager.default.removeItem(atPath: out)
                var argv = try LinkOpener.command(for: link, browser: browser, environment: [:])
                #expect(argv.prefix(2) == ["/bin/sh", "-c"])
                if browser.hasSuffix(bashOnly) { argv[0] = "/bin/bash" }
                let status = try LinkOpener.run(argv + ["zeader-shell"]).get()
                // The backgrounded pipeline may still be writing.
                for _ in 0..<200 where (try? String(contentsOfFile: out, encoding: .utf8))?.hasSuffix("\n") != true {
                    Thread.sleep(forTimeInterval: 0.01)
                }
                let written = try? String(contentsOfFile: out, encoding: .utf8)
                #expect(status == 0 && written == link + "\n", "\(browser) with \(link): \(argv[2])")
                #expect(!FileManager.default.fileExists(atPath: "PWNED"), "\(browser) ran a command of \(link)")
                #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("PWNED").path))
            }
        }
    }

    @Test func quotedPlaceholderIsTextNotShell() throws {
        // Spaces, newlines and quotes in the value: ShellCommand itself quotes anything.
        for value in ["a b", "a\nb", "it's", "a'\\''b", "$(id)", "`id`", "\"", "\\", "%u", ""] {
            for command in ["printf '%s' %u", "printf '%s' \"x%u\"", "sh -c 'printf %s %u'", "printf '%s'"] {
                let line = try ShellCommand.substituting(value, in: command)
                let result = try ShellBrowserTests.output(of: line)
                // Inside quotes with other text, `%u` is taken for a command another shell reads,
                // so the value arrives there quoted for that shell.
                let quoted = "'" + value.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
                let expected = command.contains("\"x") ? "x" + quoted : value
                #expect(result == expected, "\(command) with \(value): \(line)")
            }
        }
        #expect(try ShellCommand.substituting("https://a.example/", in: "firefox %u &") == "firefox 'https://a.example/' &")
        #expect(try ShellCommand.substituting("https://a.example/", in: "setsid -f mpv") == "setsid -f mpv 'https://a.example/'")
        // An escaped `%u` is text; `%%` and other `%` sequences are left alone.
        #expect(try ShellCommand.substituting("U", in: #"echo \%u %s %%"#) == #"echo \%u %s %% 'U'"#)
    }

    @Test func unclosedQuotesAreRefusedNotGuessed() {
        for browser in ["firefox '%u", "firefox \"%u", "firefox $(echo %u", "firefox `%u", "firefox 'x", "firefox )"] {
            #expect(throws: LinkOpener.RefusedLink.self, "\(browser)") {
                try LinkOpener.command(for: "https://a.example/$(id)", browser: browser, environment: [:])
            }
        }
        #expect(throws: ShellCommand.UnbalancedQuotes(command: "a 'b")) {
            try ShellCommand.substituting("https://a.example/", in: "a 'b")
        }
    }

    @Test func linksWithControlCharactersOrSpacesAreRefused() {
        for link in [
            "https://a.example/a\nb", "https://a.example/a\rb", "https://a.example/a\u{0}b", "https://a.example/\u{9B}2J",
            "https://a.example/a\u{2028}b", "https://a.example/a b", "https://a.example/a\u{85}b", "https://a.example/\u{7F}",
        ] {
            #expect(throws: LinkOpener.RefusedLink.self) {
                try LinkOpener.command(for: link, browser: "printf %s %u", environment: [:])
            }
        }
    }

    @Test func runThroughShellNoKeepsTheArgvForm() throws {
        let config = try ReaderConfig.parse("browser \"firefox --new-tab %u >/dev/null\"\nrun-through-shell no", file: "c")
        #expect(config.runThroughShell == false)
        #expect(
            try LinkOpener.command(for: "https://a.example/;x", browser: config.browser, throughShell: false)
                == ["firefox", "--new-tab", "https://a.example/;x", ">/dev/null"])
        #expect(try ReaderConfig.parse("run-through-shell YES", file: "c").runThroughShell)
        #expect(ReaderConfig().runThroughShell)
        #expect(throws: ReaderConfigError.self) { try ReaderConfig.parse("run-through-shell maybe", file: "c") }
        // $BROWSER and xdg-open never go through the shell.
        #expect(
            try LinkOpener.command(for: "https://a.example/", browser: nil, environment: ["BROWSER": "lynx -dump"])
                == ["lynx", "-dump", "https://a.example/"])
    }

    @Test func theReaderRunsTheBrowserThroughAShellPipeline() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("zeader-shell-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("opened").path
        let config = try ReaderConfig.parse(
            "browser \"printf '%s\\\\n' %u | tr a-z A-Z > '\(out)' 2>&1\"", file: "test")
        let h = try Harness(config: config)
        h.type(.enter, .enter)  // Zeader News' first article
        let link = try #require(h.queue.sync { h.app.state.article?.link })
        let screen = h.type(.character("o"))
        #expect(try String(contentsOfFile: out, encoding: .utf8) == link.uppercased() + "\n")
        #expect(screen.contains("Opened"))
        // A failing browser is named by its own first word, not the shell's.
        let failing = try Harness(config: try ReaderConfig.parse("browser \"false %u | true && false\"", file: "t"))
        failing.type(.enter, .enter)
        #expect(failing.type(.character("o")).contains("false exited with status 1"))
    }

    /// What `sh -c line` prints.
    static func output(of line: String) throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("zeader-shell-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("out").path
        _ = try LinkOpener.run(ShellCommand.argv("{ \(line)\n} > '\(out)'")).get()
        return try String(contentsOfFile: out, encoding: .utf8)
    }
}
