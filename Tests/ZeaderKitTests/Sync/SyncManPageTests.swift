import Foundation
import Testing

/// The man page documents sync: its commands, what it needs besides them (the password's
/// sources, the token file, the reader's syncs, a private CA) and the conflict rule.
@Suite("man page: sync")
struct SyncManPageTests {
    static let page = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("man/zeader.1")

    /// The man page's `sync` entries, from `sync add` to the next command that is not sync's.
    static func syncSection() throws -> String {
        let text = try String(contentsOf: page, encoding: .utf8)
        let start = try #require(text.range(of: ".BI \"sync add\""))
        let end = try #require(text.range(of: "\n.TP\n.B podcasts", range: start.upperBound..<text.endIndex))
        return String(text[start.lowerBound..<end.lowerBound])
    }

    @Test func commandsConfigurationAndTheConflictRule() throws {
        let section = try Self.syncSection()
        for command in [
            ".BI \"sync add\"", ".BR sync \" [\" \\-\\-account", ".BR \"sync status\"", ".BR \"sync login\"",
            ".BR \"sync remove\" \" [\" \\fIACCOUNT\\fR ] \" \" [ \\-\\-force ]", ".BI \"sync move\"",
        ] {
            #expect(section.contains(command), "no \(command) in the sync section")
        }
        for configuration in [
            "ZEADER_SYNC_PASSWORD", "\\-\\-password\\-command", "<store>.sync", "0600", "refresh\\-interval", "ca\\-file",
            "{\"name\",\"url\",\"user\",\"lastSync\",\"pending\"}", "<store>.sync.ACCOUNT", "\\-\\-name",
        ] {
            #expect(section.contains(configuration), "the sync section does not mention \(configuration)")
        }
        #expect(section.contains(".B Conflicts:"))
        #expect(section.contains("not yet pushed wins over the server's state"))
        #expect(section.contains("the one that syncs\nlast wins"))
        // The token file and the password's variable are in FILES and ENVIRONMENT too.
        let text = try String(contentsOf: Self.page, encoding: .utf8)
        let files = try #require(text.range(of: ".SH FILES"))
        let environment = try #require(text.range(of: ".SH ENVIRONMENT"))
        #expect(text[files.upperBound..<environment.lowerBound].contains("<store>.sync"))
        #expect(text[environment.upperBound...].contains("ZEADER_SYNC_PASSWORD"))
    }

    @Test func joiningAnAccountSaysHowItemsMatchAndWhoseStateWins() throws {
        let section = try Self.syncSection()
        #expect(section.contains(".B Joining an account:"))
        for rule in ["guid", "trailing slash", "site link", "title and published\ndate", "read on either side"] {
            #expect(section.range(of: rule, options: .regularExpression) != nil, "the joining rule does not say \(rule)")
        }
    }

    @Test func eachServiceAndWhatItCannotPush() throws {
        let section = try Self.syncSection()
        for words in [
            "Google Reader API", "Fever API", "fever.php", "\\-\\-service fever", "cannot subscribe",
            "no call to subscribe, unsubscribe, rename or file a feed in a\nfolder", "one line naming the\nservice",
        ] {
            #expect(section.contains(words), "the sync section does not say \(words)")
        }
    }
}
