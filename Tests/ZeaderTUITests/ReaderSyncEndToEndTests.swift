import Foundation
import LoopbackHTTPServer
import Testing

/// Runs `Tests/e2e/reader_sync_freshrss.sh`: the real reader in tmux with a real FreshRSS on
/// 127.0.0.1. Quitting pushes the read made in the reader; an open reader shows another
/// device's read within its `sync-interval`; quitting with the server gone exits 0 and says
/// how many changes are kept.
@Suite(
    .enabled(
        if: freshRSSCanRun,
        "needs PHP 8.1+ (php-cli php-sqlite3 php-xml php-mbstring php-curl php-intl php-zip php-gmp), ../shared/servers/freshrss and tmux"
    ))
struct ReaderSyncEndToEndTests {
    @Test(.timeLimit(.minutes(6))) func readerPushesOnQuitAndShowsAnotherDevicesRead() async throws {
        // Seconds alone, minutes with the whole suite running.
        let (status, text) = try await runEndToEndScript("Tests/e2e/reader_sync_freshrss.sh")
        #expect(status == 0, "\(text)")
        #expect(text.contains(" checks, 0 failed"), "\(text)")
    }
}

/// PHP, tmux and `freshrss.sh` (`$ZEADER_FRESHRSS`, else beside the repository) are here.
private let freshRSSCanRun: Bool = {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    let environment = ProcessInfo.processInfo.environment["ZEADER_FRESHRSS"] ?? ""
    let script =
        environment.isEmpty
        ? root.deletingLastPathComponent().appendingPathComponent("shared/servers/freshrss/freshrss.sh").path
        : environment
    let manager = FileManager.default
    return manager.isExecutableFile(atPath: script)
        && ["/usr/bin/php", "/usr/local/bin/php"].contains { manager.isExecutableFile(atPath: $0) }
        && ["/usr/bin/tmux", "/usr/local/bin/tmux"].contains { manager.isExecutableFile(atPath: $0) }
}()
