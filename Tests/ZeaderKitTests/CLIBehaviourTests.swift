import Foundation
import Testing

@testable import ZeaderKit

/// The command line's side of the shared use cases, one behaviour per test (the reader's
/// side is in ZeaderTUITests' `SharedUseCaseTests`).
@Suite("zeader command line: one behaviour per test", .serialized)
struct CLIBehaviourTests {
    @Test func itemsAreListedNewestFirst() throws {
        let db = try storeWithItems(["oldest", "middle", "newest"])
        defer { try? FileManager.default.removeItem(at: db.deletingLastPathComponent()) }
        let r = try AssertCommand(["items", "--json"], db: db)
        let ids = (try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]])?.map { $0["id"] as? String }
        #expect(ids == ["g2", "g1", "g0"])
    }

    @Test func aLimitKeepsTheNewest() throws {
        let db = try storeWithItems(["oldest", "middle", "newest"])
        defer { try? FileManager.default.removeItem(at: db.deletingLastPathComponent()) }
        try AssertCommand(["items", "--limit", "1"], db: db, stdoutContains: "newest")
    }

    @Test func searchMatchesWordBeginningsIgnoringAccents() throws {
        let db = try storeWithItems(["Café déjà vu", "Other"])
        defer { try? FileManager.default.removeItem(at: db.deletingLastPathComponent()) }
        try AssertCommand(["items", "--search", "CAFE dej"], db: db, stdoutContains: "Café déjà vu")
    }

    @Test func searchDoesNotMatchInsideWords() throws {
        let db = try storeWithItems(["Café déjà vu"])
        defer { try? FileManager.default.removeItem(at: db.deletingLastPathComponent()) }
        try AssertCommand(["items", "--search", "afe"], db: db, stdout: "")
    }

    @Test func searchCombinesWithOtherFilters() throws {
        let db = try storeWithItems(["swift one", "swift two"])
        defer { try? FileManager.default.removeItem(at: db.deletingLastPathComponent()) }
        try AssertCommand(["items", "--search", "swift", "--where", "title ENDSWITH 'one'"], db: db, stdoutContains: "swift one")
        try AssertCommand(
            ["items", "--search", "swift", "--where", "nosuchkey == 1"], db: db, status: 2, stderrContains: "nosuchkey")
    }

    @Test func markReadCountsWhatItChanged() throws {
        let db = try storeWithItems(["a", "b"])
        defer { try? FileManager.default.removeItem(at: db.deletingLastPathComponent()) }
        try AssertCommand(["mark-read", "--feed", "https://a.example/feed"], db: db, stdout: "marked 2 items read\n")
        try AssertCommand(["mark-read", "--all"], db: db, stdout: "marked 0 items read\n")
    }

    @Test func addRefusesAFeedSubscribedAlready() throws {
        let db = try storeWithItems([])
        defer { try? FileManager.default.removeItem(at: db.deletingLastPathComponent()) }
        try AssertCommand(
            ["add", "https://a.example/feed"], db: db, status: 1,
            stderr: "zeader add: already subscribed: https://a.example/feed\n")
    }

    @Test func aStoreFolderThatCannotBeMadeIsNamed() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("file")
        try Data("x".utf8).write(to: file)
        try AssertCommand(
            ["list"], db: file.appendingPathComponent("sub/z.sqlite"), status: 1,
            stderrContains: "zeader list: cannot create the store's folder \(file.path)/sub: ")
    }
}
