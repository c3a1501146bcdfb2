import Foundation
import Testing

@testable import Feeds

/// One rule for `~` in every path and program the user writes (commands, download and save
/// folders, ca-file, notify-program).
@Suite struct HomePathTests {
    @Test(arguments: [
        ("~", "/home/ada"), ("~/", "/home/ada/"), ("~/bin/run feed", "/home/ada/bin/run feed"),
        ("~ada/bin", "~ada/bin"), ("/usr/bin/true", "/usr/bin/true"), ("bin/~/x", "bin/~/x"), ("", ""),
        ("~~/x", "~~/x"),
    ])
    func aLeadingTildeIsTheHomeFolder(path: String, expanded: String) {
        #expect(HomePath.expanding(path, environment: ["HOME": "/home/ada"]) == expanded)
    }

    @Test func withoutHomeTheAccountsHomeFolderIsUsed() {
        for environment in [[:], ["HOME": ""]] {
            #expect(HomePath.expanding("~/x", environment: environment) == NSHomeDirectory() + "/x")
        }
    }

    /// Each place that reads a path or a program the user wrote expands it the same way.
    @Test func commandFeedsExpandAsEveryOtherPlace() throws {
        let feed = try #require(CommandFeed(subscription: "exec:~/bin/feed --all", environment: ["HOME": ""]))
        #expect(feed.argv == [NSHomeDirectory() + "/bin/feed", "--all"])
    }
}
