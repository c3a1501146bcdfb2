import Feeds
import Foundation
import ObjectGraph
import Testing

@testable import ZeaderKit

/// Reading, writing and resolving feed settings; a urls file's `< key value; …` read, applied
/// and written back word for word by edit-urls.
@Suite struct FeedSettingsTests {
    @Test func textIsReadAndWrittenBack() throws {
        let text = "reload-interval 30; user-agent \"Mozilla/5.0 (X11; Linux)\"; header X-A: 1; header X-B: 2"
        let settings = try FeedSettings(parsing: text)
        #expect(settings.number(.reloadInterval) == 30)
        #expect(settings.value(.userAgent) == "Mozilla/5.0 (X11; Linux)")
        #expect(settings.values(.header) == ["X-A: 1", "X-B: 2"])
        #expect(try FeedSettings(parsing: settings.text) == settings)
        #expect(settings.text == text)
    }

    @Test(arguments: [
        ("  REload-Interval   30 ;; ", "reload-interval 30"), ("ssl-verify False", "ssl-verify no"),
        ("proxy-type SOCKS5H", "proxy-type socks5h"), ("max-items 5; max-items 7", "max-items 7"),
        ("cookie a=1; cookie b=2; cookie a=3", "cookie b=2; cookie a=3"),
    ])
    func caseBlanksAndRepeatsAreNormalised(input: String, stored: String) throws {
        #expect(try FeedSettings(parsing: input).text == stored)
    }

    @Test(arguments: [
        ("colour red", FeedSettingsError.unknownKey("colour")),
        ("max-items", .missingValue(.maxItems)),
        ("timeout -1", .badValue(.timeout, value: "-1", expected: "a number of seconds, 1 or more")),
        ("user-agent \"open", .unterminatedQuote("user-agent \"open")),
    ])
    func badTextNamesTheProblem(text: String, error: FeedSettingsError) {
        #expect(throws: error) { try FeedSettings(parsing: text) }
    }

    @Test func secretsAreMaskedWhereShown() throws {
        let settings = try FeedSettings(
            parsing: "cookie s=abc; header Authorization: Bearer tok; proxy http://u:pw@h:3128; proxy-auth u:pw; timeout 5")
        let shown = settings.masked.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        for secret in ["abc", "tok", ":pw"] { #expect(!shown.contains(secret), "\(shown)") }
        #expect(shown.contains("header=Authorization: ***"))
        #expect(shown.contains("timeout=5"))
        #expect(!FeedSettingsError.badValue(.cookie, value: "abc", expected: "x").description.contains("abc"))
        #expect(!FeedSettingsError.badValue(.proxy, value: "u:pw@h", expected: "x").description.contains("pw"))
    }

    @Test(arguments: [
        ("https://alice:secret@example.org/feed", "https://alice:***@example.org/feed"),
        ("https://alice@example.org/feed", "https://alice@example.org/feed"),
        ("https://example.org/a:b@c", "https://example.org/a:b@c"),
        ("socks5h://u:p@127.0.0.1:1080", "socks5h://u:***@127.0.0.1:1080"),
    ])
    func passwordsInURLsAreMasked(url: String, shown: String) {
        #expect(RedactedURL.text(url) == shown)
        #expect(FetchError.httpStatus(401, url: URL(string: url)!).description.contains(shown))
    }

    /// A feed without a title is shown by its URL (the reader's lists, the podcast queue):
    /// never with the password in it.
    @Test func anUntitledFeedIsShownWithoutItsPassword() throws {
        let store = try ZeaderStore.inMemory()
        let context = store.container.viewContext
        context.performAndWait {
            let server = context.insert(Server.self)
            server.url = "https://alice:secret@example.org/feed"
            #expect(server.displayTitle == "https://alice:***@example.org/feed")
            server.title = "Alice's feed"
            #expect(server.displayTitle == "Alice's feed")
        }
    }

    @Test func feedOverTagOverAllOverGlobal() throws {
        var scopes = FeedSettingsScopes()
        scopes.add(.feed("https://a/"), try FeedSettings(parsing: "timeout 3"))
        scopes.add(.tag("t"), try FeedSettings(parsing: "timeout 2; max-items 9"))
        scopes.add(.all, try FeedSettings(parsing: "timeout 1; user-agent X"))
        let a = scopes.effective(url: "https://a/", tags: "t", stored: nil)
        #expect(a.number(.timeout) == 3 && a.number(.maxItems) == 9 && a.value(.userAgent) == "X")
        #expect(scopes.effective(url: "https://a/", tags: "t", stored: "timeout 4").number(.timeout) == 4)
        #expect(scopes.effective(url: "https://b/", tags: "T", stored: nil).number(.timeout) == 2)
        #expect(scopes.effective(url: "https://b/", tags: nil, stored: nil).number(.timeout) == 1)
    }

    @Test func dueFollowsTheInterval() throws {
        let settings = try FeedSettings(parsing: "reload-interval 60")
        let now = Date()
        #expect(FeedSettingsScopes.isDue(lastRefresh: nil, settings: settings, now: now))
        #expect(!FeedSettingsScopes.isDue(lastRefresh: now.addingTimeInterval(-1800), settings: settings, now: now))
        #expect(FeedSettingsScopes.isDue(lastRefresh: now.addingTimeInterval(-3600), settings: settings, now: now))
        #expect(FeedSettingsScopes.isDue(lastRefresh: now, settings: FeedSettings(), now: now))
    }

    @Test(arguments: [
        ("https://a.example/rss tech < timeout 5", "https://a.example/rss tech ", "timeout 5"),
        ("https://a.example/rss \"a < b\" < max-items 3", "https://a.example/rss \"a < b\" ", "max-items 3"),
        ("https://a.example/rss tech # < not settings", "https://a.example/rss tech # < not settings", nil),
        ("https://a.example/rss <tag>", "https://a.example/rss <tag>", nil),
    ])
    func urlsLinesSplitAtTheirSettings(line: String, before: String, settings: String?) {
        let split = NewsboatURLs.splitSettings(line)
        #expect(split.line == before)
        #expect(split.settings == settings)
    }

    @Test func aUrlsFileWithSettingsComesBackWordForWordAndAChangeIsWritten() throws {
        let original = """
            # feeds
            https://a.example/rss tech "~A"  <  reload-interval 60;max-items 50
            https://b.example/rss < user-agent "Mozilla/5.0 (X11; Linux)"; full-article yes
            https://c.example/rss

            """
        let library = FeedLibrary(store: try ZeaderStore.inMemory())
        defer { withExtendedLifetime(library) {} }
        _ = try library.importSubscriptions(data: Data(original.utf8), source: "urls")
        let context = library.store.container.viewContext
        var written = try context.performAndWait { try FeedURLsEditing.text(in: context) }
        #expect(written == original)
        let feeds = try library.servers()
        #expect(feeds.first { $0.url == "https://b.example/rss" }?.fullArticle == true)
        #expect(feeds.first { $0.url == "https://a.example/rss" }?.settings.number(.maxItems) == 50)
        try library.setFeedSetting(url: "https://c.example/rss", key: .timeout, value: "7")
        context.performAndWait { context.refreshAllObjects() }
        written = try context.performAndWait { try FeedURLsEditing.text(in: context) }
        #expect(written.contains("https://c.example/rss < timeout 7\n"), "\(written)")
        #expect(written.contains("<  reload-interval 60;max-items 50"))
        // Settings removed from a line in the editor are removed from the feed.
        let edited = written.replacingOccurrences(of: " < timeout 7", with: "")
        _ = try context.performAndWait { try FeedURLsEditing.apply(edited, in: context) }
        let settings = try context.performAndWait {
            try Server.findAll(in: context).first { $0.url == "https://c.example/rss" }?.settings
        }
        #expect(settings == nil)
    }
}
