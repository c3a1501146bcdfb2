import Foundation
import LoopbackHTTPServer
import Testing

@testable import ZeaderKit

/// A feed that moves (301) while two devices share a folder, through the `zeader` binary:
/// the device whose refresh follows the redirect sends the move, the other device's feed
/// follows it (no second feed), and the marks made on either side under either URL meet.
@Suite("Folder sync of a feed that moved", .serialized)
struct FolderSyncMoveCLITests {
    @Test("a 301 followed on one device moves the feed on the other, keeping both sides' marks")
    func permanentRedirect() async throws {
        let routes = Routes()
        let feed = rss(title: "Moving", guids: ["o1", "o2", "o3"])
        routes["/old.xml"] = .ok(feed)
        try await withLoopbackServer(routes.handler) { http in
            let base = try temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: base) }
            let (a, b, folder) = try FolderSyncCLITests.devices(in: base)
            let old = http.url("/old.xml").absoluteString
            let new = http.url("/new.xml").absoluteString

            try a.run(["add", old, "--tag", "news"])
            try a.run(["refresh"])
            try a.run(["sync", "add", "folder:\(folder.path)"])
            try b.run(["sync", "add", "folder:\(folder.path)"])
            try b.run(["refresh"])
            #expect(try b.items().count == 3)
            try a.run(["flag", "o1", "--feed", old])
            try b.run(["flag", "o2", "--feed", old])
            try a.run(["sync"])
            try b.run(["sync"])

            // The feed moves; A's refresh follows the redirect and sends the move.
            routes["/old.xml"] = .redirect(301, to: new)
            routes["/new.xml"] = .ok(feed)
            let moved = try a.run(["refresh"])
            #expect(moved.stderr.contains(new), "\(moved.stderr)")
            try a.run(["flag", "o3", "--feed", new])
            try a.run(["sync"])
            // B, not told yet, reads everything under the old URL, then syncs.
            try b.run(["mark-read", "--feed", old])
            try b.run(["sync"])
            try a.run(["sync"])

            for device in [a, b] {
                let feeds = try device.feeds()
                #expect(feeds.map { $0["url"] as? String } == [new], "\(feeds)")
                #expect(feeds.first?["tags"] as? [String] == ["news"], "\(feeds)")
                let items = try device.items()
                #expect(items.count == 3)
                #expect(items.allSatisfy { $0["read"] as? Bool == true }, "\(items)")
                #expect(items.allSatisfy { $0["flagged"] as? Bool == true }, "\(items)")
            }
            // B fetches the new URL itself now: no second feed, no "moved to a feed already subscribed".
            let refresh = try b.run(["refresh"])
            #expect(!refresh.stderr.contains("already"), "\(refresh.stderr)")
            #expect(try b.feeds().count == 1)
            #expect(try b.run(["sync"]).stdout.hasPrefix("folder sync: 0 changes sent"))
        }
    }
}
