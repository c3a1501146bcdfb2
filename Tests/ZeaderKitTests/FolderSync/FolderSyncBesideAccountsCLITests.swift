import Foundation
import Testing

@testable import ZeaderKit

/// `zeader sync` in a store with a server account and a sync folder: it syncs both, one
/// failing never stops the other (each named on stderr, exit 1); `--account folder` syncs the
/// folder alone.
@Suite("Folder sync beside accounts", .serialized)
struct FolderSyncBesideAccountsCLITests {
    @Test("sync runs every account and the folder; either failing is named and the other still runs")
    func syncRunsBoth() async throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // An account whose server has gone (127.0.0.1:1), one read change not pushed.
        let db = try await SyncMessagesCLITests.store(
            in: dir, localFeed: "http://127.0.0.1:1/local.xml", syncedFeed: "http://127.0.0.1:1/synced.xml")
        let folder = dir.appendingPathComponent("Shared")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let added = try zeader(["sync", "add", "folder:\(folder.path)", "--db", db], in: dir)
        #expect(added.status == 0, "\(added.stderr)")

        // Another device subscribed to a feed: the folder sync brings it although the account fails.
        let other = folder.appendingPathComponent("zeader-sync/otherdev1")
        try FileManager.default.createDirectory(at: other, withIntermediateDirectories: true)
        try #"{"feed":"https://other.example/feed.xml","op":"sub","t":"mitvfg1s.0.otherdev1","v":true}"#.appending("\n")
            .write(to: other.appendingPathComponent("log-1.jsonl"), atomically: true, encoding: .utf8)

        let both = try zeader(["sync", "--db", db], in: dir)
        #expect(both.status == 1)
        #expect(both.stderr.contains("zeader sync: 127.0.0.1: "), "\(both.stderr)")
        #expect(both.stderr.contains("cannot reach the sync server"), "\(both.stderr)")
        #expect(both.stdout.contains("folder sync: "), "\(both.stdout)")
        let list = try zeader(["list", "--json", "--db", db], in: dir)
        #expect(list.stdout.contains("https://other.example/feed.xml"), "\(list.stdout)")

        // The folder alone: no account tried.
        let alone = try zeader(["sync", "--account", "folder", "--db", db], in: dir)
        #expect(alone.status == 0, "\(alone.stderr)")
        #expect(alone.stdout.hasPrefix("folder sync: "), "\(alone.stdout)")
        #expect(alone.stderr.isEmpty, "\(alone.stderr)")
        let status = try zeader(["sync", "status", "--account", "folder", "--db", db], in: dir)
        #expect(status.stdout.contains("other devices: otherdev1"), "\(status.stdout)")

        // The folder gone too: both named, one line each.
        try FileManager.default.moveItem(at: folder, to: dir.appendingPathComponent("Moved"))
        let neither = try zeader(["sync", "--db", db], in: dir)
        #expect(neither.status == 1)
        let lines = neither.stderr.split(separator: "\n")
        #expect(lines.count == 2, "\(neither.stderr)")
        #expect(lines.contains { $0.hasPrefix("zeader sync: 127.0.0.1: ") }, "\(neither.stderr)")
        #expect(
            lines.contains { $0 == "zeader sync: folder: sync folder \(folder.path) is missing or not a folder" },
            "\(neither.stderr)")
        let folderAlone = try zeader(["sync", "--account", "folder", "--db", db], in: dir)
        #expect(folderAlone.status == 2, "\(folderAlone.stderr)")
        #expect(folderAlone.stderr.contains("is missing or not a folder"), "\(folderAlone.stderr)")

        // One account named: the folder is left alone.
        let one = try zeader(["sync", "--account", "127.0.0.1", "--db", db], in: dir)
        #expect(one.status == 1)
        #expect(!one.stderr.contains("folder"), "\(one.stderr)")
        #expect(try zeader(["sync", "login", "--account", "folder", "--db", db], in: dir).status == 2)
    }

    @Test("folder names the sync folder, so no account may take it")
    func folderIsNotAnAccountName() {
        #expect(!SyncAccounts.isValidName("folder"))
        #expect(!SyncAccounts.isValidName("Folder"))
        #expect(SyncAccounts.isValidName("folders"))
    }
}
