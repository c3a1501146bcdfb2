import Foundation
import ObjectGraph
import Testing

@testable import ZeaderKit

/// Every tag of a feed travels as a label, a removal on one device reaches the others, and
/// with a server that keeps one folder per feed no tag is lost on any device.
@Suite("Sync: every tag of a feed")
struct SyncTagsTests {
    static let feed = (id: "feed/1", url: "http://fake.example/one.xml")

    /// A device (a store of its own) with the account of `server`, synced once.
    static func device(_ name: String, in directory: URL, server: FakeGReaderServer) async throws -> FeedSync {
        let sync = FeedSync(store: try ZeaderStore.open(at: directory.appendingPathComponent(name)))
        try sync.addAccount(apiURL: server.apiURL, user: "alice", token: "t")
        _ = try await sync.sync()
        return sync
    }

    static func tags(_ sync: FeedSync, _ url: String = feed.url) throws -> [String] {
        try FeedLibrary(store: sync.store).servers().first { $0.url == url }?.tags ?? []
    }

    static func tag(_ sync: FeedSync, add: [String] = [], remove: [String] = []) throws {
        try FeedLibrary(store: sync.store).tag(url: feed.url, add: add, remove: remove)
    }

    static func labels(_ server: FakeGReaderServer) -> Set<String> {
        Set(server.shared.state.withLock { $0.labels[feed.id] ?? [] })
    }

    static func world(oneFolder: Bool = false) async throws -> (FakeGReaderServer, FeedSync, FeedSync, URL) {
        let server = try FakeGReaderServer()
        server.update { state in
            state.subscriptions = [feed]
            state.oneFolder = oneFolder
        }
        let directory = try temporaryDirectory()
        let a = try await device("a.sqlite", in: directory, server: server)
        let b = try await device("b.sqlite", in: directory, server: server)
        return (server, a, b, directory)
    }

    @Test func everyTagRoundTripsAndARemovalReachesTheOtherDevice() async throws {
        let (server, a, b, directory) = try await Self.world()
        defer { try? FileManager.default.removeItem(at: directory) }
        try Self.tag(a, add: ["tech", "apple", "Two Words"])
        _ = try await a.sync()
        #expect(Self.labels(server) == ["apple", "tech", "Two Words"])
        _ = try await b.sync()
        #expect(try Self.tags(b) == ["apple", "tech", "Two Words"])
        #expect(try Self.tags(a) == ["apple", "tech", "Two Words"])

        // Removed on B: gone from the server and from A; the others stay everywhere.
        try Self.tag(b, remove: ["tech"])
        _ = try await b.sync()
        #expect(Self.labels(server) == ["apple", "Two Words"])
        _ = try await a.sync()
        #expect(try Self.tags(a) == ["apple", "Two Words"])
        #expect(try Self.tags(b) == ["apple", "Two Words"])

        // All removed on A.
        try Self.tag(a, remove: ["apple", "two words"])
        _ = try await a.sync()
        #expect(Self.labels(server).isEmpty)
        _ = try await b.sync()
        #expect(try Self.tags(b).isEmpty)
    }

    @Test func aLabelAddedElsewhereSinceTheLastSyncIsNotRemovedByThisDevicesPush() async throws {
        let (server, a, b, directory) = try await Self.world()
        defer { try? FileManager.default.removeItem(at: directory) }
        try Self.tag(a, add: ["apple"])
        _ = try await a.sync()
        _ = try await b.sync()
        try Self.tag(b, add: ["news"])
        _ = try await b.sync()
        // A changes its tags before it has seen B's.
        try Self.tag(a, add: ["linux"])
        _ = try await a.sync()
        #expect(Self.labels(server) == ["apple", "news", "linux"])
        #expect(try Self.tags(a) == ["apple", "linux", "news"])
    }

    @Test func aNewSubscriptionCarriesEveryTag() async throws {
        let server = try FakeGReaderServer()
        server.update { $0.subscriptions = [] }
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try ZeaderStore.open(at: directory.appendingPathComponent("a.sqlite"))
        let context = store.container.newBackgroundContext()
        try context.performAndWait {
            let feed = context.insert(Server.self)
            feed.url = "http://fake.example/new.xml"
            feed.tags = FeedTags.normalized(["b", "a", "c"])
            try context.save()
        }
        let sync = FeedSync(store: store)
        try sync.addAccount(apiURL: server.apiURL, user: "alice", token: "t")
        _ = try await sync.sync()
        let labels = server.shared.state.withLock { $0.labels }
        #expect(labels.count == 1)
        #expect(Set(labels.values.first ?? []) == ["a", "b", "c"])
        // The first tag is the edit's last `a=`: a server keeping one folder files the feed there.
        let edit = try #require(server.shared.state.withLock { $0.posts }.first { $0.hasPrefix("subscription/edit ") })
        #expect(edit.contains("a=user%2F-%2Flabel%2Fc&a=user%2F-%2Flabel%2Fa") || edit.hasSuffix("label%2Fa"), "\(edit)")
        #expect(try Self.tags(sync, "http://fake.example/new.xml") == ["a", "b", "c"])
    }

    @Test func aServerWithOneFolderPerFeedLosesNoTagOnAnyDevice() async throws {
        let (server, a, b, directory) = try await Self.world(oneFolder: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try Self.tag(a, add: ["tech", "apple"])
        _ = try await a.sync()
        #expect(Self.labels(server) == ["apple"])  // the first tag
        _ = try await a.sync()
        #expect(try Self.tags(a) == ["apple", "tech"])
        _ = try await b.sync()
        #expect(try Self.tags(b) == ["apple"])

        // B's own tag the server cannot hold stays on B, and A's on A, sync after sync.
        try Self.tag(b, add: ["zed"])
        for _ in 0..<2 {
            _ = try await b.sync()
            _ = try await a.sync()
        }
        #expect(Self.labels(server) == ["apple"])
        #expect(try Self.tags(b) == ["apple", "zed"])
        #expect(try Self.tags(a) == ["apple", "tech"])

        // A tag added on B that sorts first does not move the feed out of its folder: A
        // keeps the folder's tag (the server never dropped it).
        try Self.tag(b, add: ["aaa"])
        _ = try await b.sync()
        _ = try await a.sync()
        #expect(Self.labels(server) == ["apple"])
        #expect(try Self.tags(a) == ["apple", "tech"])
        #expect(try Self.tags(b) == ["aaa", "apple", "zed"])
        try Self.tag(b, remove: ["aaa"])
        _ = try await b.sync()

        // The folder's tag removed on A: the server files the feed under A's next tag, and
        // B loses the removed tag (the server held it), keeps its own, gains the new one.
        try Self.tag(a, remove: ["apple"])
        _ = try await a.sync()
        #expect(Self.labels(server) == ["tech"])
        _ = try await b.sync()
        #expect(try Self.tags(b) == ["tech", "zed"])
        _ = try await a.sync()
        #expect(try Self.tags(a) == ["tech"])
    }

    @Test func thePullRule() {
        #expect(SyncLabels.merge(local: ["apple", "tech"], labels: ["apple"], kept: ["apple"]) == "apple,tech")
        #expect(SyncLabels.merge(local: ["apple", "tech"], labels: ["apple"], kept: ["apple", "tech"]) == "apple")
        #expect(SyncLabels.merge(local: ["Apple"], labels: [], kept: ["APPLE"]) == nil)
        #expect(SyncLabels.merge(local: ["apple"], labels: ["news"], kept: nil) == "apple,news")
        #expect(SyncLabels.decode(SyncLabels.encode(["u": ["a", "b"]])) == ["u": ["a", "b"]])
        #expect(SyncLabels.decode("not json") == nil)
        // FreshRSS sends labels HTML-escaped; an id-only category gives its name.
        let listed = try? GReaderClient.subscriptionList(
            Data(
                #"{"subscriptions":[{"id":"feed/1","categories":[{"id":"user/-/label/R&amp;D","label":"R&amp;D"},"#
                    .utf8) + Data(#"{"id":"user/-/label/news"},{"label":""}]}]}"#.utf8))
        #expect(listed?.first?.labels == ["R&D", "news"])
        #expect(SyncLabels.encode(["b": ["x"], "a": ["y"]]) == #"{"a":["y"],"b":["x"]}"#)
        #expect(SyncLabels.ordered(["aaa", "apple", "b"], held: ["Apple"]) == ["apple", "aaa", "b"])
        #expect(SyncLabels.ordered(["aaa", "apple"], held: ["other"]) == ["aaa", "apple"])
    }

    @Test func theManPageSaysWhenAPullRemovesATag() throws {
        let section = try SyncManPageTests.syncSection()
        #expect(section.contains("one folder per feed"))
        #expect(section.contains("never removed by a pull"))
    }
}

/// Feeds a sync adds come in the server's list order, after the ones already here.
@Suite("Sync: the order of the feeds a sync adds")
struct SyncFeedOrderTests {
    @Test func feedsComeInTheServersListOrderOnEveryDevice() async throws {
        let server = try FakeGReaderServer()
        let listed = ["c", "a", "b"].map { (id: "feed/\($0)", url: "http://fake.example/\($0).xml") }
        server.update { $0.subscriptions = listed }
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let fresh = try await SyncTagsTests.device("a.sqlite", in: directory, server: server)
        #expect(try FeedLibrary(store: fresh.store).servers().map(\.url) == listed.map(\.url))

        // A device with a feed of its own keeps it first; the server's follow in its order.
        let store = try ZeaderStore.open(at: directory.appendingPathComponent("b.sqlite"))
        let context = store.container.newBackgroundContext()
        try context.performAndWait {
            let feed = context.insert(Server.self)
            feed.url = "http://fake.example/own.xml"
            try context.save()
        }
        let other = FeedSync(store: store)
        try other.addAccount(apiURL: server.apiURL, user: "alice", token: "t")
        _ = try await other.sync()
        _ = try await other.sync()
        let urls = try FeedLibrary(store: store).servers().map(\.url)
        #expect(urls.first == "http://fake.example/own.xml")
        #expect(Array(urls.dropFirst().prefix(3)) == listed.map(\.url))
    }

    @Test func theManPageSaysMovesAreNotSynced() throws {
        let section = try SyncManPageTests.syncSection()
        #expect(section.contains("subscription\\-ordering"))
    }
}
