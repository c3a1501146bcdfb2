import Foundation
import Testing

@testable import ZeaderKit

extension SyncFreshRSSTests {
    /// The request count of a `zeader sync` summary line (`… (7 requests)`).
    static func requestCount(_ line: String) -> Int? {
        guard let open = line.lastIndex(of: "(") else { return nil }
        return Int(line[line.index(after: open)...].prefix { $0.isNumber })
    }

    /// `items --unread --json` of `store`: the unread items' titles.
    static func unreadTitles(_ world: World, _ store: URL) async throws -> Set<String> {
        let r = try await world.zeader(store, ["items", "--unread", "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        let list = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]] ?? []
        return Set(list.map { $0["title"] as? String ?? "" })
    }

    @Test("mark all read of 20,000 items is pushed in a few requests; the other device sees every item read, new ones too")
    func markAllReadAtScale() async throws {
        let world = try await World()
        let names = ["m1", "m2", "m3", "m4"]
        for name in names { world.feeds.setItems(["\(name)-0"], of: name) }
        try await world.addAccount(world.a)
        try await world.addAccount(world.b)
        for name in names {
            let r = try await world.zeader(world.a, ["add", world.feeds.url(name)])
            #expect(r.status == 0, "\(r.stderr)")
        }
        try await world.sync(world.a)
        // The server fetches the full feeds by its own refresh (a subscription's first fetch
        // of 5,000 items outlasts the client's timeout).
        for name in names { world.feeds.setItems((0..<5_000).map { "\(name)-\($0)" }, of: name) }
        try await world.refreshServer()
        try await world.sync(world.a)
        try await world.sync(world.b)
        #expect(try await world.feedList(world.b).values.map { $0["total"] as? Int ?? 0 }.reduce(0, +) == 20_000)

        // Items the server gets after A's last sync: B has them, A never sees them.
        world.feeds.setItems((0..<5_000).map { "m1-\($0)" } + ["late-1", "late-2"], of: "m1")
        try await world.refreshServer()
        try await world.sync(world.b)
        #expect(try await Self.unreadTitles(world, world.b).contains("Title late-1"))

        let r = try await world.zeader(world.a, ["mark-read", "--all"])
        #expect(r.status == 0, "\(r.stderr)")
        let line = try await world.sync(world.a)
        // A sync with nothing to push is 4 requests; the mark adds the action token and one
        // call, and pulling the two late items their ids and contents: 8, where one edit-tag
        // per 1,000 items made 27.
        #expect((Self.requestCount(line) ?? .max) <= 8, "\(line)")
        #expect(try await world.status(world.a)["pending"] as? Int == 0)

        try await world.sync(world.b)
        #expect(try await Self.unreadTitles(world, world.b) == [])
    }

    @Test("mark feed read reaches the other device for items it had unread that this device never saw; other feeds untouched")
    func markFeedReadEverywhere() async throws {
        let world = try await World()
        world.feeds.setItems(["f1", "f2", "f3"], of: "one")
        world.feeds.setItems(["g1", "g2"], of: "two")
        try await world.addAccount(world.a)
        try await world.addAccount(world.b)
        for name in ["one", "two"] {
            let r = try await world.zeader(world.a, ["add", world.feeds.url(name)])
            #expect(r.status == 0, "\(r.stderr)")
        }
        try await world.sync(world.a)
        try await world.sync(world.b)

        world.feeds.setItems(["f1", "f2", "f3", "f4", "f5"], of: "one")
        try await world.refreshServer()
        try await world.sync(world.b)
        // B reads one of A's items and one A never saw: only the others are left to A's mark.
        try world.setRead(world.b, "Title f1", true)
        try world.setRead(world.b, "Title f4", true)
        try await world.sync(world.b)

        var r = try await world.zeader(world.a, ["mark-read", "--feed", world.feeds.url("one")])
        #expect(r.status == 0, "\(r.stderr)")
        // Marked again before the sync: the two marks of one feed are one change.
        r = try await world.zeader(world.a, ["mark-read", "--feed", world.feeds.url("one")])
        #expect(r.status == 0, "\(r.stderr)")
        let pending = try await world.status(world.a)["pending"] as? Int
        #expect(pending == 4, "one mark and the three items it marked here")
        let line = try await world.sync(world.a)
        #expect((Self.requestCount(line) ?? .max) <= 8, "\(line)")
        #expect(try await world.status(world.a)["pending"] as? Int == 0)

        try await world.sync(world.b)
        #expect(try await Self.unreadTitles(world, world.b) == ["Title g1", "Title g2"])
        try await world.sync(world.a)
        #expect(try await Self.unreadTitles(world, world.a) == ["Title g1", "Title g2"])
    }
}
