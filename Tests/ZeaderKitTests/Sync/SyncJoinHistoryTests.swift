import Foundation
import ObjectGraph
import Testing

@testable import ZeaderKit

/// A feed with history here (items refreshed before it was synced) joining an account: each
/// stored item is matched to the server's copy by the identities both sides compute
/// (``ItemIdentity``), never stored twice, and its read and starred state made here is
/// kept and pushed (``FeedSync/merge(_:into:now:)``).
@Suite("Sync: a feed's history joins an account without twins")
struct SyncJoinHistoryTests {
    typealias Candidate = ItemIdentity.Candidate

    static let feedURL = "http://127.0.0.1:8080/feeds/all.xml"
    static let siteLink = "http://127.0.0.1:8080/blog/"
    static let day = Date(timeIntervalSince1970: 1_700_000_000)

    static func pairs(_ pulled: [Candidate], _ stored: [Candidate], site: String? = siteLink) -> [Int: Int] {
        ItemIdentity.pairs(pulled, stored, feedURL: feedURL, siteLink: site)
    }

    // MARK: - The same link, written differently

    @Test(arguments: [
        ("http://Example.ORG/a/b", "http://example.org/a/b"),
        ("HTTP://example.org/a/b", "http://example.org/a/b"),
        ("http://example.org/a/b/", "http://example.org/a/b"),
        ("http://example.org:80/a/b", "http://example.org/a/b"),
        ("https://example.org:443/a/b", "http://example.org/a/b"),
        ("https://example.org/a/b", "http://example.org/a/b"),
        ("http://example.org./a/b", "http://example.org/a/b"),
        ("http://example.org", "http://example.org/"),
        ("http://example.org/a/./c/../b", "http://example.org/a/b"),
        ("http://example.org/a/%7Eb", "http://example.org/a/~b"),
        ("http://example.org/a/%c3%a9", "http://example.org/a/%C3%A9"),
        ("http://example.org/a/b?", "http://example.org/a/b"),
        ("http://example.org/a/b#", "http://example.org/a/b"),
        ("  http://example.org/a/b\n", "http://example.org/a/b"),
        ("http://example.org/a/b/?x=1", "http://example.org/a/b?x=1"),
        ("http://example.org/café", "http://example.org/caf%c3%a9"),
        ("http://example.org/a b", "http://example.org/a%20b"),
    ])
    func theSameLinkWrittenDifferentlyIsOneKey(a: String, b: String) {
        #expect(ItemIdentity.normalizedLink(a) == ItemIdentity.normalizedLink(b), "\(a) vs \(b)")
    }

    @Test(arguments: [
        ("http://example.org/a/b", "http://example.org/a/c"),
        ("http://example.org/a/b", "http://example.org/A/b"),
        ("http://example.org/a/b?x=1", "http://example.org/a/b?x=2"),
        ("http://example.org/a/b", "http://example.org/a/b?x=1"),
        ("http://example.org/a/b#one", "http://example.org/a/b#two"),
        ("http://example.org/a/b", "http://example.net/a/b"),
        ("http://example.org:8080/a/b", "http://example.org/a/b"),
        ("http://example.org/a/%2F", "http://example.org/a//"),
    ])
    func differentLinksStayDifferent(a: String, b: String) {
        #expect(ItemIdentity.normalizedLink(a) != ItemIdentity.normalizedLink(b), "\(a) vs \(b)")
    }

    @Test func anEmptyLinkIsNoKey() {
        #expect(ItemIdentity.normalizedLink("") == nil)
        #expect(ItemIdentity.normalizedLink("  ") == nil)
    }

    // MARK: - Matching rules

    @Test func aGuidMatchesWhateverTheLinks() {
        let stored = [Candidate(guid: "urn:1", link: "http://a.example/x", title: "One")]
        let pulled = [Candidate(guid: "urn:1", link: "http://b.example/y", title: "One, edited")]
        #expect(Self.pairs(pulled, stored) == [0: 0])
        // Another guid and nothing else in common: not the same article.
        #expect(Self.pairs([Candidate(guid: "urn:2", link: "http://b.example/y", title: "Two")], stored) == [:])
    }

    /// Zeader resolves a relative item link against the feed's URL, FreshRSS against the site link.
    @Test(arguments: [
        // "post-1": under the feed's directory here, the site's there.
        ("http://127.0.0.1:8080/feeds/post-1", "http://127.0.0.1:8080/blog/post-1", siteLink),
        // "?p=7": the feed document here, the site's there.
        ("http://127.0.0.1:8080/feeds/all.xml?p=7", "http://127.0.0.1:8080/blog/?p=7", siteLink),
        // "/p/1": the same host here, the site's host there.
        ("http://127.0.0.1:8080/p/1", "http://localhost:9090/p/1", "http://localhost:9090/"),
        // "2024/a.html" against a site link without a trailing slash (its directory: the root).
        ("http://127.0.0.1:8080/feeds/2024/a.html", "http://127.0.0.1:8080/2024/a.html", "http://127.0.0.1:8080/blog"),
    ])
    func aRelativeLinkResolvedAgainstTheSiteLinkMatches(stored: String, pulled: String, site: String) {
        let here = [Candidate(link: stored, title: "A post", published: Self.day)]
        let there = [Candidate(link: pulled, title: "A post", published: Self.day)]
        #expect(Self.pairs(there, here, site: site) == [0: 0])
    }

    /// SimplePie resolves against an Atom feed's `self` link first, which may be anywhere.
    @Test(arguments: [
        "https://feeds.example.net/x/post-1",
        "http://127.0.0.1:8080/feeds/mirror/post-1/",
    ])
    func aRelativeLinkResolvedAgainstAnotherBaseMatchesByItsTail(pulled: String) {
        let here = [
            Candidate(link: "http://127.0.0.1:8080/feeds/post-1", title: "A post", published: Self.day),
            Candidate(link: "http://127.0.0.1:8080/feeds/post-2", title: "Another", published: Self.day + 60),
        ]
        #expect(Self.pairs([Candidate(link: pulled, title: "A post")], here) == [0: 0])
        #expect(Self.pairs([Candidate(link: pulled, published: Self.day)], here) == [0: 0])
        #expect(Self.pairs([Candidate(link: pulled, title: "Else", published: Self.day + 1)], here) == [:])
    }

    @Test func theExactLinkWinsOverARebasedOne() {
        // Two articles: "/blog/x" and "/feeds/x" both exist; each matches its own.
        let stored = [
            Candidate(link: "http://127.0.0.1:8080/feeds/x", title: "Same"),
            Candidate(link: "http://127.0.0.1:8080/blog/x", title: "Same"),
        ]
        let pulled = [Candidate(link: "http://127.0.0.1:8080/blog/x", title: "Same")]
        #expect(Self.pairs(pulled, stored) == [0: 1])
    }

    @Test func itemsSharingOneLinkAreToldApartByTitleThenDate() {
        let link = "http://127.0.0.1:8080/blog/changelog"
        let stored = [
            Candidate(link: link, title: "Version 2", published: Self.day.addingTimeInterval(86_400)),
            Candidate(link: link, title: "Version 1", published: Self.day),
        ]
        let pulled = [
            Candidate(link: link + "/", title: "Version 1", published: Self.day),
            Candidate(link: link, title: "Version 2", published: Self.day.addingTimeInterval(86_400)),
        ]
        #expect(Self.pairs(pulled, stored) == [0: 1, 1: 0])
        // The same title: the date tells them apart.
        let sameTitle = [
            Candidate(link: link, title: "Update", published: Self.day),
            Candidate(link: link, title: "Update", published: Self.day.addingTimeInterval(60)),
        ]
        let pulledSameTitle = [
            Candidate(link: link, title: "Update", published: Self.day.addingTimeInterval(60)),
            Candidate(link: link, title: "Update", published: Self.day),
        ]
        #expect(Self.pairs(pulledSameTitle, sameTitle) == [0: 1, 1: 0])
    }

    @Test func itemsWithoutLinksMatchByTitleAndDate() {
        let stored = [Candidate(title: "Note  one", published: Self.day), Candidate(title: "Note two", published: Self.day)]
        let pulled = [Candidate(link: "", title: "note one", published: Self.day)]
        #expect(Self.pairs(pulled, stored) == [0: 0])
        // The same title on another day: another note.
        #expect(Self.pairs([Candidate(title: "Note one", published: Self.day.addingTimeInterval(86_400))], stored) == [:])
        // No title: nothing to tell it by.
        #expect(Self.pairs([Candidate(title: nil, published: Self.day)], [Candidate(title: nil, published: Self.day)]) == [:])
    }

    @Test func twoDifferentArticlesAreNeverMerged() {
        let link = "http://127.0.0.1:8080/blog/page"
        // The same link, another title and another date: another article.
        #expect(
            Self.pairs(
                [Candidate(link: link, title: "Second", published: Self.day.addingTimeInterval(3_600))],
                [Candidate(link: link, title: "First", published: Self.day)]) == [:])
        // The same title under other links, on another day or with no date: other articles.
        #expect(
            Self.pairs(
                [Candidate(link: "http://127.0.0.1:8080/blog/b", title: "Weekly", published: Self.day)],
                [Candidate(link: "http://127.0.0.1:8080/blog/a", title: "Weekly", published: Self.day + 604_800)]) == [:])
        #expect(
            Self.pairs(
                [Candidate(link: "http://127.0.0.1:8080/blog/b", title: "Weekly", published: Self.day)],
                [Candidate(link: "http://127.0.0.1:8080/blog/a", title: "Weekly")]) == [:])
        // Another host, the same path, with no site link relating them, nor a title or a date.
        #expect(
            Self.pairs(
                [Candidate(link: "http://other.example/blog/a", title: "B")],
                [Candidate(link: "http://127.0.0.1:8080/blog/a", title: "A")], site: nil) == [:])
        // The same tail under another directory, another title and date.
        #expect(
            Self.pairs(
                [Candidate(link: "http://127.0.0.1:8080/blog/2024/index.html", title: "B", published: Self.day)],
                [Candidate(link: "http://127.0.0.1:8080/feeds/index.html", title: "A", published: Self.day + 60)]) == [:])
    }

    @Test func aLinkThatChangedForGoodMatchesByTitleAtTheSameSecond() {
        let stored = [
            Candidate(link: "http://example.org/2026/a", title: "Moved", published: Self.day),
            Candidate(link: "http://example.org/2026/b", title: "Other", published: Self.day),
        ]
        let pulled = [Candidate(link: "https://www.example.org/2026/a?utm_source=rss", title: "Moved", published: Self.day)]
        #expect(Self.pairs(pulled, stored) == [0: 0])
    }

    @Test func oneStoredItemMatchesAtMostOnePulledItem() {
        let link = "http://127.0.0.1:8080/blog/a"
        let stored = [Candidate(link: link, title: "A", published: Self.day)]
        let pulled = [
            Candidate(link: link, title: "A", published: Self.day),
            Candidate(link: link, title: "A", published: Self.day),
        ]
        #expect(Self.pairs(pulled, stored) == [0: 0])
    }

    // MARK: - Through a sync

    /// A store whose feed `http://fake.example/one.xml` (the fake server's `feed/1`) has
    /// `items` refreshed here before the account, and the account added.
    static func storeWithHistory(
        _ server: FakeGReaderServer, _ items: [(link: String?, title: String, read: Bool, flagged: Bool)],
        chunkSize: Int = 250
    ) throws -> (FeedSync, URL) {
        let directory = try temporaryDirectory()
        let store = try ZeaderStore.open(at: directory.appendingPathComponent("z.sqlite"))
        let context = store.container.newBackgroundContext()
        try context.performAndWait {
            let feed = context.insert(Server.self)
            feed.url = "http://fake.example/one.xml"
            feed.siteLink = "http://fake.example/site/"
            for (n, entry) in items.enumerated() {
                let item = context.insert(FeedItem.self)
                item.guid = "tag:fake.example,2026:\(n)"
                item.link = entry.link
                item.title = entry.title
                item.published = Self.day
                item.sortDate = Self.day
                item.firstSeen = Self.day
                item.server = feed
                item.read = entry.read
                item.flagged = entry.flagged
            }
            try context.save()
        }
        let sync = FeedSync(store: store, chunkSize: chunkSize)
        try sync.addAccount(apiURL: server.apiURL, user: "alice", token: "t")
        return (sync, directory)
    }

    struct StoredItem: Equatable {
        var title: String?
        var read: Bool
        var flagged: Bool
        var synced: Bool
        var pending: Bool
    }

    static func items(_ sync: FeedSync) throws -> [StoredItem] {
        let context = sync.store.container.newBackgroundContext()
        return try context.performAndWait {
            try FeedItem.findAll(sortedBy: "title", in: context).map {
                StoredItem(
                    title: $0.title, read: $0.read, flagged: $0.flagged, synced: $0.syncID != nil,
                    pending: $0.syncReadPending || $0.syncFlagPending)
            }
        }
    }

    /// The ids a POST of `edit-tag` added `state` to.
    static func added(_ state: String, in posts: [String]) -> Set<String> {
        var ids = Set<String>()
        for post in posts where post.hasPrefix("edit-tag ") {
            let pairs = FakeGReaderServer.query(post.dropFirst("edit-tag ".count))
            guard pairs.contains(where: { $0.0 == "a" && $0.1.hasSuffix("/state/com.google/" + state) }) else { continue }
            for (name, value) in pairs where name == "i" { ids.insert(value) }
        }
        return ids
    }

    /// Pulled in one chunk, and in chunks of two (the history indexed once, matched by each).
    @Test(arguments: [250, 2])
    func historyJoinsWithoutTwinsAndItsReadsAndStarsArePushedInTheSameSync(chunkSize: Int) async throws {
        let server = try FakeGReaderServer()
        let base = FakeGReaderServer.now - 3_600_000_000
        let ids = (1...6).map { base + UInt64($0) }
        server.update { state in
            state.items = [
                // A relative link the server resolved against the site link.
                .init(id: ids[0], link: "http://fake.example/site/relative", title: "Relative", published: 1_700_000_000),
                // A trailing slash and the host's case.
                .init(id: ids[1], link: "http://FAKE.example/slash/", title: "Slash", published: 1_700_000_000),
                // Two items sharing one link.
                .init(id: ids[2], link: "http://fake.example/shared", title: "Shared one", published: 1_700_000_000),
                .init(id: ids[3], link: "http://fake.example/shared", title: "Shared two", published: 1_700_000_000),
                // Read on the server (another device), unread here.
                .init(id: ids[4], link: "http://fake.example/theirs", title: "Theirs", published: 1_700_000_000, read: true),
                // Starred on the server, and not here.
                .init(id: ids[5], link: "http://fake.example/starred", title: "Starred there", starred: true),
            ]
        }
        let (sync, directory) = try Self.storeWithHistory(
            server,
            [
                ("http://fake.example/relative", "Relative", true, false),
                ("http://fake.example/slash", "Slash", false, true),
                ("http://fake.example/shared", "Shared two", true, true),
                ("http://fake.example/shared", "Shared one", false, false),
                ("http://fake.example/theirs", "Theirs", false, false),
                ("http://fake.example/starred", "Starred there", false, false),
            ], chunkSize: chunkSize)
        defer { try? FileManager.default.removeItem(at: directory) }

        _ = try await sync.sync()

        #expect(
            try Self.items(sync) == [
                StoredItem(title: "Relative", read: true, flagged: false, synced: true, pending: false),
                StoredItem(title: "Shared one", read: false, flagged: false, synced: true, pending: false),
                StoredItem(title: "Shared two", read: true, flagged: true, synced: true, pending: false),
                StoredItem(title: "Slash", read: false, flagged: true, synced: true, pending: false),
                StoredItem(title: "Starred there", read: false, flagged: true, synced: true, pending: false),
                StoredItem(title: "Theirs", read: true, flagged: false, synced: true, pending: false),
            ])
        // What this device had and the server lacked, pushed by this sync.
        let posts = server.shared.state.withLock { $0.posts }
        #expect(Self.added("read", in: posts) == [String(ids[0]), String(ids[3])])
        #expect(Self.added("starred", in: posts) == [String(ids[1]), String(ids[3])])
        #expect(try sync.status()?.pending == 0)
    }

    @Test func aStoredItemThatIsAnotherArticleIsKeptBesideTheServers() async throws {
        let server = try FakeGReaderServer()
        let id = FakeGReaderServer.now - 3_600_000_000
        // The same link, another title and another date.
        server.update {
            $0.items = [.init(id: id, link: "http://fake.example/page", title: "Second", published: 1_800_000_000)]
        }
        let (sync, directory) = try Self.storeWithHistory(server, [("http://fake.example/page", "First", true, true)])
        defer { try? FileManager.default.removeItem(at: directory) }

        _ = try await sync.sync()

        #expect(
            try Self.items(sync) == [
                StoredItem(title: "First", read: true, flagged: true, synced: false, pending: false),
                StoredItem(title: "Second", read: false, flagged: false, synced: true, pending: false),
            ])
        #expect(server.shared.state.withLock { $0.posts }.filter { $0.hasPrefix("edit-tag") }.isEmpty)
    }

    @Test func aFeedWithHistoryThatJoinsAfterTheFirstSyncIsMatchedToItsOlderItems() async throws {
        let server = try FakeGReaderServer()
        let old = FakeGReaderServer.now - 3_600_000_000
        server.update {
            $0.subscriptions = []
            $0.items = [
                .init(id: old, link: "http://fake.example/a", title: "A"),
                .init(id: old + 1, link: "http://fake.example/b", title: "B", read: true),
            ]
        }
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try ZeaderStore.open(at: directory.appendingPathComponent("z.sqlite"))
        let sync = FeedSync(store: store)
        try sync.addAccount(apiURL: server.apiURL, user: "alice", token: "t")
        _ = try await sync.sync()
        // A feed refreshed here only (a local feed), subscribed once another device has it.
        let context = store.container.newBackgroundContext()
        try context.performAndWait {
            let feed = context.insert(Server.self)
            feed.url = "http://fake.example/one.xml"
            for (n, title) in ["A", "B"].enumerated() {
                let item = context.insert(FeedItem.self)
                item.guid = "tag:\(n)"
                item.link = "http://fake.example/" + title.lowercased()
                item.title = title
                item.server = feed
                item.flagged = title == "A"
            }
            SyncQueue.queue(.subscribe, for: feed, in: context)
            try context.save()
        }
        server.update { $0.subscriptions = [("feed/1", "http://fake.example/one.xml")] }

        _ = try await sync.sync()

        #expect(
            try Self.items(sync) == [
                StoredItem(title: "A", read: false, flagged: true, synced: true, pending: false),
                StoredItem(title: "B", read: true, flagged: false, synced: true, pending: false),
            ])
        #expect(Self.added("starred", in: server.shared.state.withLock { $0.posts }) == [String(old)])
    }

    @Test func aGuidTheServerSendsMatchesAcrossDifferentLinks() async throws {
        let server = try FakeGReaderServer()
        let id = FakeGReaderServer.now - 3_600_000_000
        server.update {
            $0.items = [.init(id: id, link: "http://mirror.example/x", title: "Renamed", guid: "urn:uuid:42")]
        }
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try ZeaderStore.open(at: directory.appendingPathComponent("z.sqlite"))
        let context = store.container.newBackgroundContext()
        try context.performAndWait {
            let feed = context.insert(Server.self)
            feed.url = "http://fake.example/one.xml"
            let item = context.insert(FeedItem.self)
            item.guid = "urn:uuid:42"
            item.link = "http://fake.example/x"
            item.title = "Original"
            item.server = feed
            item.flagged = true
            try context.save()
        }
        let sync = FeedSync(store: store)
        try sync.addAccount(apiURL: server.apiURL, user: "alice", token: "t")
        _ = try await sync.sync()
        #expect(try Self.items(sync) == [StoredItem(title: "Renamed", read: false, flagged: true, synced: true, pending: false)])
    }
}
