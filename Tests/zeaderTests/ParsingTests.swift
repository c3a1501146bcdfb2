import Testing
import ZeaderKit

@testable import zeader

/// How each command reads its arguments: one behaviour per test.
@Suite struct ParsingTests {
    @Test func dbBeforeTheCommandNameIsTheCommandsOption() {
        AssertParse(ListCommand.self, ["--db", "x.sqlite", "list", "--json"]) {
            #expect($0.store.db == "x.sqlite")
            #expect($0.json)
        }
    }

    @Test func dbAfterTheCommandNameWorksToo() {
        AssertParse(RefreshCommand.self, ["refresh", "--db=y.sqlite", "-j", "2"]) {
            #expect($0.store.db == "y.sqlite")
            #expect($0.jobs == 2)
        }
    }

    @Test func refreshNamesFeedsByURL() {
        AssertParse(RefreshCommand.self, ["refresh", "http://a.example/", "http://b.example/"]) {
            #expect($0.feeds == ["http://a.example/", "http://b.example/"])
            #expect($0.jobs == 8)
        }
    }

    @Test func itemsFiltersBecomeOneQuery() {
        AssertParse(ItemsCommand.self, ["items", "--unread", "--tag", "a", "--tag", "b", "--search", "café", "--limit", "3"]) {
            #expect($0.query == ItemQuery(unreadOnly: true, tags: ["a", "b"], search: "café", limit: 3))
        }
    }

    @Test func addTakesTitleAndTags() {
        AssertParse(AddCommand.self, ["add", "https://example.org/feed", "--title", "Ex", "--tag", "news"]) {
            #expect($0.url == "https://example.org/feed")
            #expect($0.title == "Ex")
            #expect($0.tags == ["news"])
        }
    }

    @Test func addSavesASmartFeed() {
        AssertParse(AddCommand.self, ["add", "--smart", "read == NO", "--title", "Unread"]) {
            #expect($0.smart == "read == NO")
            #expect($0.url == nil)
        }
    }

    @Test func markReadTakesAFeedOrAll() {
        AssertParse(MarkReadCommand.self, ["mark-read", "--all"]) { #expect($0.all && $0.feed == nil) }
        AssertParse(MarkReadCommand.self, ["mark-read", "--feed", "http://a/"]) { #expect($0.feed == "http://a/") }
    }

    @Test func jobsOutOfRangeIsAUsageError() {
        AssertParseFails(["refresh", "--jobs", "0"], message: "--jobs must be between 1 and 64, not 0")
    }

    @Test func addRefusesAnUnsupportedScheme() {
        AssertParseFails(["add", "ftp://example.org/feed"], message: "unsupported scheme 'ftp'")
    }

    @Test func addNeedsAURLOrASmartFeed() {
        AssertParseFails(["add"], message: "Missing expected argument")
    }

    @Test func addSmartNeedsATitle() {
        AssertParseFails(["add", "--smart", "read == NO"], message: "--smart needs a --title")
    }

    @Test func addSmartChecksThePredicate() {
        AssertParseFails(["add", "--smart", "nosuchkey == 1", "--title", "X"], message: "nosuchkey")
    }

    @Test func itemsChecksTheWherePredicate() {
        AssertParseFails(["items", "--where", "title =="], message: "invalid --where predicate")
    }

    @Test func itemsLimitMustBePositive() {
        AssertParseFails(["items", "--limit", "0"], message: "--limit must be at least 1")
    }

    @Test func markReadNeedsExactlyOneScope() {
        AssertParseFails(["mark-read"], message: "give exactly one of --feed URL and --all")
        AssertParseFails(["mark-read", "--all", "--feed", "http://x/"], message: "give exactly one of --feed URL and --all")
    }

    @Test func flagNeedsIDsOrAFeed() {
        AssertParseFails(["flag"], message: "give item ids, or --feed URL, or both")
    }

    @Test func tagRemoveNeedsTags() {
        AssertParseFails(["tag", "http://a/", "--remove"], message: "--remove needs the tags to remove")
    }

    @Test func anUnknownCommandIsAUsageError() {
        AssertParseFails(["nosuchcommand"], message: "nosuchcommand")
    }
}
