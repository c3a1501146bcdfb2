import Testing

@testable import zeader

/// What `zeader --help` tells a first-time user.
struct HelpTests {
    @Test func helpSaysThatPlainZeaderOpensTheReader() {
        let help = Zeader.helpMessage(columns: 100)
        #expect(help.contains("USAGE: zeader [--db <PATH>] [--demo] [<subcommand>]"))
        #expect(help.contains("Without a subcommand, zeader opens the interactive reader"))
    }
}

/// `zeader extract`: its help, and the arguments it refuses before reading anything.
struct ExtractCommandParsingTests {
    @Test func helpListsExtractAndItsOptions() {
        #expect(Zeader.helpMessage(columns: 100).contains("extract"))
        let help = Zeader.helpMessage(for: ExtractCommand.self, columns: 100)
        for part in ["FILE|URL", "--base-url", "--json", "--html", "exits 1"] { #expect(help.contains(part), "\(part)") }
    }

    @Test func fileAndURLParse() {
        AssertParse(ExtractCommand.self, ["extract", "page.html"]) { #expect($0.page == "page.html") }
        AssertParse(ExtractCommand.self, ["extract", "https://example.org/a", "--json"]) { #expect($0.json) }
        AssertParse(ExtractCommand.self, ["extract", "HTTP://example.org/a", "--html", "--base-url", "https://x.example/"]) {
            #expect($0.html)
            #expect($0.baseURL == "https://x.example/")
        }
    }

    @Test func otherSchemesAndConflictingFormatsAreRefused() {
        AssertParseFails(["extract", "gopher://example.org/"], message: "only http and https pages can be fetched, not gopher:")
        AssertParseFails(["extract", "Exec:ls"], message: "only http and https pages can be fetched, not Exec:")
        AssertParseFails(["extract", "https://"], message: "is not a valid URL")
        AssertParseFails(["extract", "a.html", "--html", "--json"], message: "--json and --html cannot be used together")
        AssertParseFails(["extract", "a.html", "--base-url", "mailto:a@example.org"], message: "is not an absolute http(s) URL")
    }
}
