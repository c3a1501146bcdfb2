import Foundation
import Testing

/// Runs `Tests/e2e/folder_sync_tmux.sh`: two stores sharing one folder, the real reader open
/// on one in tmux; the other device's read shows after the reader's refresh, and a read made
/// in the reader reaches the other device.
@Suite(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux"), "needs tmux"))
struct FolderSyncEndToEndTests {
    @Test(.timeLimit(.minutes(3))) func readerShowsAnotherDevicesReadThroughTheFolder() async throws {
        let (status, text) = try await runEndToEndScript("Tests/e2e/folder_sync_tmux.sh")
        #expect(status == 0, "\(text)")
        #expect(text.contains(" checks, 0 failed"), "\(text)")
    }
}
