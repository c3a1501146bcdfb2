import Foundation
import LoopbackHTTPServer
import Testing

@testable import ZeaderKit

/// A feed read with a login in its URL, through the `zeader` binary: the shared folder never
/// holds the login (nor the feed's cookie, nor a rule that names it), the other device gets
/// the feed without it and its `sync status` says it needs its own, and the two still match
/// the feed's items.
@Suite("Folder sync keeps logins on their device", .serialized)
struct FolderSyncSecretsCLITests {
    /// Every byte of every file under `folder`, as text.
    static func contents(of folder: URL) throws -> String {
        var text = ""
        let files = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)
        while let url = files?.nextObject() as? URL {
            if let data = try? Data(contentsOf: url) { text += String(decoding: data, as: UTF8.self) + "\n" }
        }
        return text
    }

    @Test("a feed URL's login, its cookie and a rule naming it never reach the folder; the feed does")
    func loginStaysHere() async throws {
        let routes = Routes()
        routes["/private.xml"] = .ok(rss(title: "Private", guids: ["p1", "p2"]))
        try await withLoopbackServer(routes.handler) { http in
            let base = try temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: base) }
            let (a, b, folder) = try FolderSyncCLITests.devices(in: base)
            let plain = http.url("/private.xml").absoluteString
            let withLogin = plain.replacingOccurrences(of: "http://", with: "http://alice:s3cretpw@")
            #expect(withLogin != plain)

            try a.run(["add", withLogin, "--title", "Private", "--tag", "work"])
            try a.run(["set", withLogin, "cookie", "session=c00kieval"])
            try a.run(["ignore", "add", #"title CONTAINS "ad""#, "--feed", withLogin])
            try a.run(["refresh"])
            let added = try a.run(["sync", "add", "folder:\(folder.path)"])
            #expect(added.stderr.contains("not sent to the sync folder: ignore rule 'http://***@"), "\(added.stderr)")
            #expect(!added.stderr.contains("s3cretpw"))
            try a.run(["mark-read", "--feed", withLogin])
            let sent = try a.run(["refresh"])
            #expect(!(sent.stdout + sent.stderr).contains("s3cretpw"))

            let shared = try Self.contents(of: folder)
            #expect(shared.contains(plain), "the feed travels: \(shared)")
            for secret in ["s3cretpw", "alice", "c00kieval"] { #expect(!shared.contains(secret), "\(secret) in \(shared)") }

            // B gets the feed without the login, its items matched to A's marks, and is told.
            try b.run(["sync", "add", "folder:\(folder.path)"])
            try b.run(["refresh"])
            #expect(try b.feed(plain)?["title"] as? String == "Private")
            #expect(try b.feed(withLogin) == nil)
            let items = try b.items().filter { $0["feed"] as? String == plain }
            #expect(items.count == 2)
            #expect(items.allSatisfy { $0["read"] as? Bool == true }, "\(items)")
            let status = try b.run(["sync", "status", "folder"]).stdout
            #expect(status.contains("needs a login here: \(plain) (another device reads it with one"), "\(status)")
            let json = try b.run(["sync", "status", "folder", "--json"]).stdout
            let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
            #expect(object["needsLogin"] as? [String] == [plain])
            // A, which has the login, is not told it needs one.
            #expect(!(try a.run(["sync", "status", "folder"]).stdout.contains("needs a login")))

            // B's flag reaches A's feed, which B names without the login.
            try b.run(["flag", "p1", "--feed", plain])
            try b.run(["sync"])
            try a.run(["sync"])
            let p1 = try a.items().first { $0["id"] as? String == "p1" }
            #expect(p1?["flagged"] as? Bool == true, "\(String(describing: p1))")
            #expect(!(try Self.contents(of: folder)).contains("s3cretpw"))
        }
    }

    @Test("the URL other devices get, and the logins found in a text")
    func sharedURL() {
        #expect(FolderSyncFeedURL.shared("https://alice:pw@example.org/feed.xml?x=1") == "https://example.org/feed.xml?x=1")
        #expect(FolderSyncFeedURL.shared("https://token@example.org/f") == "https://example.org/f")
        #expect(FolderSyncFeedURL.shared("https://example.org/a@b") == "https://example.org/a@b")
        #expect(FolderSyncFeedURL.shared("exec:cat /etc/passwd") == nil)
        #expect(FolderSyncFeedURL.hasLogin("https://example.org/a@b") == false)
        #expect(FolderSyncFeedURL.textHasLogin(#"feed.url == "https://a:pw@example.org/x""#))
        #expect(!FolderSyncFeedURL.textHasLogin(#"title CONTAINS "me@example.org""#))
        #expect(
            FolderSyncFeedURL.redacted("https://a:pw@x.org/1\thttps://b@y.org/@z")
                == "https://***@x.org/1\thttps://***@y.org/@z")
    }
}
