import Foundation
import ObjectGraph
import Testing

@testable import ZeaderKit

/// The id `zeader items --json` prints for a synced item is the server's (`greader:<id>`),
/// the same on every device of the account whatever guid each stored, and every command
/// that takes item ids accepts it and the guid.
@Suite("Sync: item ids are the same on every device")
struct SyncStableItemIDTests {
    static let feedURL = "http://fake.example/one.xml"

    /// A store at `directory/name` with the account of `server`; with `localHistory`, the
    /// feed refreshed here before joining: its items under the feed's own guids.
    static func device(
        _ name: String, in directory: URL, server: FakeGReaderServer, localHistory ids: [UInt64] = []
    ) async throws -> FeedSync {
        let store = try ZeaderStore.open(at: directory.appendingPathComponent(name))
        if !ids.isEmpty {
            let context = store.container.newBackgroundContext()
            try context.performAndWait {
                let feed = context.insert(Server.self)
                feed.url = feedURL
                for id in ids {
                    let item = context.insert(FeedItem.self)
                    item.guid = "urn:feed-own-guid:\(id)"
                    item.link = "http://fake.example/\(id)"
                    item.title = "Item \(id)"
                    item.server = feed
                }
                try context.save()
            }
        }
        let sync = FeedSync(store: store)
        try sync.addAccount(apiURL: server.apiURL, user: "alice", token: "t")
        _ = try await sync.sync()
        return sync
    }

    static func ids(_ sync: FeedSync) throws -> [String: String] {
        let items = try FeedLibrary(store: sync.store).items(ItemQuery())
        return Dictionary(items.map { ($0.title ?? "", $0.id) }, uniquingKeysWith: { a, _ in a })
    }

    @Test func aDeviceWithLocalHistoryAndAFreshOnePrintTheSameIDs() async throws {
        let server = try FakeGReaderServer()
        let ids = (1...3).map { FakeGReaderServer.now - 3_600_000_000 + $0 }
        server.add(ids: ids)
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let a = try await Self.device("a.sqlite", in: directory, server: server, localHistory: ids)
        let b = try await Self.device("b.sqlite", in: directory, server: server)

        let onA = try Self.ids(a)
        let onB = try Self.ids(b)
        #expect(onA.count == 3)
        #expect(onA == onB)
        #expect(Set(onA.values) == Set(ids.map { "greader:\($0)" }))
        // The JSON carries it too.
        let json = ItemSummary.json(try FeedLibrary(store: a.store).items(ItemQuery()))
        #expect(json.contains(#""id":"greader:\#(ids[0])""#), "\(json)")

        // B's id flags the item on A, and A's own guid still works.
        let title = "Item \(ids[0])"
        let libraryA = FeedLibrary(store: a.store)
        #expect(try libraryA.setFlag(true, ids: [try #require(onB[title])]) == 1)
        #expect(try libraryA.items(ItemQuery()).first { $0.title == title }?.flagged == true)
        #expect(try libraryA.setFlag(false, ids: ["urn:feed-own-guid:\(ids[0])"]) == 1)
        // On B, whose guid is the link, both the link and the id work, in one call.
        #expect(try FeedLibrary(store: b.store).setFlag(true, ids: ["http://fake.example/\(ids[1])", "greader:\(ids[2])"]) == 2)
    }

    @Test func everyCommandThatTakesIDsAcceptsTheServersIDInItsForms() async throws {
        let server = try FakeGReaderServer()
        let id = FakeGReaderServer.now - 3_600_000_000
        server.add(ids: [id])
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let a = try await Self.device("a.sqlite", in: directory, server: server, localHistory: [id])
        let hex = String(id, radix: 16)
        let forms = [
            "greader:\(id)", "GReader:\(id)", " greader:\(id)\n", "greader:000\(id)",
            "tag:google.com,2005:reader/item/" + String(repeating: "0", count: 16 - hex.count) + hex,
            "TAG:google.com,2005:reader/item/" + (String(repeating: "0", count: 16 - hex.count) + hex).uppercased(),
        ]
        let library = FeedLibrary(store: a.store)
        for form in forms {
            #expect(try library.setFlag(true, ids: [form], feed: Self.feedURL) == 1, "\(form)")
            #expect(try library.setFlag(false, ids: [form]) == 1, "\(form)")
            let context = a.store.container.newBackgroundContext()
            let found = try context.performAndWait { try FeedLibrary.items(ids: [form], feed: nil, in: context).count }
            #expect(found == 1, "\(form)")
        }
        // Not ids of this item: another number, the bare number; each named in the error.
        for wrong in ["greader:\(id + 1)", "\(id)"] {
            #expect(throws: ZeaderError.noSuchItem(id: wrong, feed: nil)) { try library.setFlag(true, ids: [wrong]) }
        }
        // No id at all: no number, a sign, a number too large; each named as a typing error.
        for wrong in ["greader:", "greader:-\(id)", "greader:18446744073709551616"] {
            #expect(throws: ZeaderError.invalidItemID(wrong, .notAServerNumber)) { try library.setFlag(true, ids: [wrong]) }
        }
        #expect(try library.items(ItemQuery()).allSatisfy { !$0.flagged })
    }

    @Test func localItemsKeepTheirGuidAsID() throws {
        #expect(ItemID.printed(guid: "urn:x", syncID: nil) == "urn:x")
        #expect(ItemID.printed(guid: "urn:x", syncID: "42") == "greader:42")
        #expect(ItemID.serverID("greader:42") == "42")
        #expect(ItemID.serverID("greader:0") == nil)
        #expect(ItemID.serverID("greader:4 2") == nil)
        #expect(ItemID.serverID("https://example.org/greader:42") == nil)
        #expect(ItemID.serverID("tag:google.com,2005:reader/item/2a") == nil)  // the long form has 16 digits
    }

    @Test func anIDThatCanNameNoItemIsATypingErrorNotAMissingItem() throws {
        #expect(ItemID.problem(with: "") == .empty)
        #expect(ItemID.problem(with: " \n") == .empty)
        #expect(ItemID.problem(with: "GREADER:x") == .notAServerNumber)
        #expect(ItemID.problem(with: " greader:0 ") == .notAServerNumber)
        #expect(ItemID.problem(with: "Tag:Google.com,2005:reader/item/2a") == .notSixteenHexDigits)
        #expect(ItemID.problem(with: "greader:42") == nil)
        #expect(ItemID.problem(with: "urn:x") == nil)
        let store = try makeStore()
        let context = store.container.viewContext
        try context.performAndWait {
            let server = context.insert(Server.self)
            server.url = "https://x.example/feed"
            let item = context.insert(FeedItem.self)
            item.guid = "greader:x"
            item.server = server
            try context.save()
        }
        let library = FeedLibrary(store: store)
        // A stored guid of that shape is still found by its guid.
        #expect(try library.setFlag(true, ids: ["greader:x"]) == 1)
        // Among ids that match nothing, the one that could never match is named.
        #expect(throws: ZeaderError.invalidItemID("greader:y", .notAServerNumber)) {
            try library.setFlag(true, ids: ["urn:none", "greader:y"])
        }
        #expect(throws: ZeaderError.noSuchItem(id: "urn:none", feed: nil)) { try library.setFlag(true, ids: ["urn:none"]) }
    }

    @Test func theManPageAndTheContractSayWhatAnIDIs() throws {
        let man = try String(contentsOf: SyncManPageTests.page, encoding: .utf8)
        #expect(man.contains("greader:"))
        let root = SyncManPageTests.page.deletingLastPathComponent().deletingLastPathComponent()
        let architecture = try String(contentsOf: root.appendingPathComponent("docs/ARCHITECTURE.md"), encoding: .utf8)
        #expect(architecture.contains("`greader:`"))
    }
}
