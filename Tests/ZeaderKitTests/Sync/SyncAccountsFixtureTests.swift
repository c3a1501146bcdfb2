import Foundation
import ObjectGraph
import Testing

@testable import ZeaderKit

/// `Fixtures/zeader-v11-ttrss.sqlite` was written by the program of model version 11
/// (`zeader add --no-fetch 'exec:printf x'`, `sync add` of a Tiny Tiny RSS account on the
/// loopback address, `add` of a feed served there, two syncs, `flag` of one item, `add
/// --no-fetch` of a second feed): one unnamed account, a synced feed of two items (the flag
/// not pushed), a feed queued for subscription and a command feed. `….sqlite.sync` is its
/// token file, the session and password in it made up.
@Suite("A store written by model version 11 with one Tiny Tiny RSS account")
struct SyncAccountsFixtureTests {
    static let feed = "http://127.0.0.1:18931/feed.xml"
    static let queued = "http://127.0.0.1:18931/queued.xml"
    static let command = "exec:printf x"

    /// A copy of the fixture and its token file, as `z.sqlite` in a new directory.
    static func copyOfFixture() throws -> URL {
        let source = try #require(Bundle.module.url(forResource: "Fixtures/zeader-v11-ttrss", withExtension: "sqlite"))
        let directory = try temporaryDirectory()
        let copy = directory.appendingPathComponent("z.sqlite")
        try FileManager.default.copyItem(at: source, to: copy)
        try FileManager.default.copyItem(atPath: source.path + ".sync", toPath: copy.path + ".sync")
        return copy
    }

    @Test("opened, its account is named by its host, speaks TT-RSS, and has its feeds, queue, lists and token")
    func theAccountIsNamedWithItsFeeds() throws {
        let url = try Self.copyOfFixture()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let opened = try ZeaderStore.open(at: url)
        let store = opened.container.store
        #expect(try store.metadata(forKey: "objectgraph.version") == String(ZeaderModel.current.version))
        let status = try #require(try FeedSync(store: opened).status())
        #expect(status.name == "127.0.0.1")
        #expect(status.service == .ttrss)
        #expect(status.user == "fixture")
        #expect(status.pending == 2)  // the queued subscription and the flag
        let context = opened.container.newBackgroundContext()
        try context.performAndWait { () throws -> Void in
            func account(_ feed: String) throws -> String? {
                try #require(try Server.findFirst(byAttribute: "url", value: .string(feed), in: context)).account
            }
            #expect(try account(Self.feed) == "127.0.0.1")
            #expect(try account(Self.queued) == "127.0.0.1")
            #expect(try account(Self.command) == nil)
            #expect(try SyncChange.findAll(in: context).allSatisfy { $0.account == "127.0.0.1" })
            let items = try FeedItem.findAll(in: context)
            #expect(items.count == 2)
            #expect(items.allSatisfy { $0.syncID != nil })
            #expect(items.filter(\.flagged).count == 1)
        }
        #expect(try store.metadata(forKey: "zeader.sync.unread.127.0.0.1") == "1,1")
        #expect(try store.metadata(forKey: "zeader.sync.unread") == nil)
        #expect(try store.metadata(forKey: "zeader.sync.service") == nil)
        #expect(!FileManager.default.fileExists(atPath: url.path + ".sync"))
        #expect(try String(contentsOfFile: url.path + ".sync.127.0.0.1", encoding: .utf8).contains("fixture-session"))
        #expect(try FeedSync(store: opened).localFeeds().count == 1)  // the command feed
    }

    @Test("the named account takes a second one beside it, each feed staying where it was")
    func aSecondAccountBesideIt() throws {
        let url = try Self.copyOfFixture()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let store = try ZeaderStore.open(at: url)
        try FeedSync(store: store).addAccount(
            apiURL: "http://127.0.0.1:9/api/fever.php", user: "bob", token: "k", name: "home", localFeeds: .keep)
        #expect(try FeedSync(store: store).statuses().map(\.name) == ["127.0.0.1", "home"])
        #expect(try FeedSync(store: store, account: "home").status()?.pending == 0)
        #expect(try FeedSync(store: store, account: "127.0.0.1").status()?.pending == 2)
        #expect(try FeedSync(store: store).localFeeds().count == 1)  // the command feed
    }
}
