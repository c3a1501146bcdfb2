import Foundation
import Testing

@testable import ZeaderKit

/// Runs `Tests/e2e/rename_feed_tmux.sh`: the real reader in tmux renames a feed of an account
/// with `i` and undoes it with `z`; each reaches the server (a Google Reader API on 127.0.0.1)
/// as a `subscription/edit` with the title.
@Suite struct ReaderRenameEndToEndTests {
    @Test(.timeLimit(.minutes(3))) func renameInTmux() async throws {
        let server = try TravelGReaderServer()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("zr-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("z.sqlite")
        let store = try ZeaderStore.open(at: url)
        try FeedSync(store: store).addAccount(apiURL: server.apiURL, user: "alice", token: "t", name: "up")
        try store.container.store.close()
        let (status, text) = try await runEndToEndScript(
            "Tests/e2e/rename_feed_tmux.sh", environment: ["ZEADER_RENAME_DB": url.path])
        #expect(status == 0, "\(text)")
        #expect(text.contains(" checks, 0 failed"), "\(text)")
        let titles = server.posts(to: "subscription/edit").compactMap { fields in
            fields.contains { $0 == ("ac", "edit") } ? fields.first { $0.0 == "t" }?.1 : nil
        }
        #expect(titles == ["Read later", "One"])
    }
}
