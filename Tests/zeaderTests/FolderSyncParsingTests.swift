import Testing

@testable import zeader

/// `sync add folder:PATH`, `sync status folder` and `sync remove folder` as the parser reads them.
@Suite struct FolderSyncParsingTests {
    @Test func aFolderNeedsNoUser() {
        AssertParse(SyncCommand.self, ["sync", "add", "folder:~/Sync", "--db", "x"]) {
            #expect($0.action == "add" && $0.apiURL == "folder:~/Sync" && $0.user == nil)
            #expect(FolderSyncCommand.names(action: $0.action, argument: $0.apiURL))
        }
        AssertParse(SyncCommand.self, ["sync", "add", "FOLDER:/media/sync"]) {
            #expect(FolderSyncCommand.names(action: $0.action, argument: $0.apiURL))
        }
        AssertParseFails(["sync", "add", "https://rss.example/api/greader.php"], message: "sync add needs --user NAME")
    }

    @Test func aFolderTakesNoServerOptions() {
        AssertParseFails(["sync", "add", "folder:/s", "--user", "me"], message: "a sync folder takes no --user")
        AssertParseFails(["sync", "add", "folder:/s", "--service", "fever"], message: "a sync folder takes no --user")
        AssertParseFails(["sync", "remove", "folder", "--force"], message: "a sync folder takes no --user")
        AssertParseFails(["sync", "add", "folder:/s", "--json"], message: "--json goes with sync status")
    }

    @Test func statusAndRemoveNameTheFolder() {
        AssertParse(SyncCommand.self, ["sync", "status", "folder", "--json"]) {
            #expect($0.json && FolderSyncCommand.names(action: $0.action, argument: $0.apiURL))
        }
        AssertParse(SyncCommand.self, ["sync", "remove", "folder"]) {
            #expect(FolderSyncCommand.names(action: $0.action, argument: $0.apiURL))
        }
        // Any other name is an account's.
        AssertParse(SyncCommand.self, ["sync", "remove", "elsewhere"]) {
            #expect(!FolderSyncCommand.names(action: $0.action, argument: $0.apiURL))
        }
    }
}
