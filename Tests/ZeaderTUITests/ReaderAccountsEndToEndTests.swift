import Foundation
import Testing

@testable import ZeaderKit

/// Runs `Tests/e2e/reader_accounts_tmux.sh`: the real reader in tmux on a store with a local
/// feed and two sync accounts, `up` (a Google Reader API on 127.0.0.1) and `down` (nothing
/// listening): each synced feed shows its account, and the status line names the one that
/// failed, at start and after R.
@Suite struct ReaderAccountsEndToEndTests {
    @Test(.timeLimit(.minutes(3))) func twoAccountsInTmux() async throws {
        let server = try TravelGReaderServer()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("za-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("z.sqlite")
        let store = try ZeaderStore.open(at: url)
        let context = store.container.newBackgroundContext()
        try context.performAndWait {
            let feed = context.insert(Server.self)
            feed.url = "exec:printf ''"
            feed.title = "Here only"
            try context.save()
        }
        let sync = FeedSync(store: store)
        try sync.addAccount(apiURL: server.apiURL, user: "alice", token: "t", name: "up", localFeeds: .keep)
        try sync.addAccount(
            apiURL: "http://127.0.0.1:1/api/greader.php", user: "alice", token: "t", name: "down", localFeeds: .keep)
        try store.container.store.close()
        let (status, text) = try await runEndToEndScript(
            "Tests/e2e/reader_accounts_tmux.sh", environment: ["ZEADER_ACCOUNTS_DB": url.path])
        #expect(status == 0, "\(text)")
        #expect(text.contains(" checks, 0 failed"), "\(text)")
    }
}
