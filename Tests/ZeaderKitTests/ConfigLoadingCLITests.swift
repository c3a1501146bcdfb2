import Foundation
import Testing

@testable import ZeaderKit

/// Every command that reads the config file reads it one way: a file that does not load is one
/// line on stderr naming the file and line (sanitized like every line from outside), exit
/// status 1, and the store is not touched — not even created.
@Suite("zeader commands with a broken config file")
struct ConfigLoadingCLITests {
    /// A command that reads the config, and the name its error line starts with.
    struct Command: CustomTestStringConvertible, Sendable {
        var arguments: [String]
        var name: String
        var testDescription: String { name }
    }

    static let commands: [Command] = [
        Command(arguments: ["cleanup"], name: "zeader cleanup"),
        Command(arguments: ["ignore", "add", "title CONTAINS \"x\""], name: "zeader ignore add"),
        Command(arguments: ["ignore", "list"], name: "zeader ignore list"),
        Command(arguments: ["ignore", "remove", "1"], name: "zeader ignore remove"),
        Command(arguments: ["podcasts", "download"], name: "zeader podcasts download"),
        Command(arguments: ["podcasts", "play", "episode"], name: "zeader podcasts play"),
        Command(arguments: ["refresh"], name: "zeader refresh"),
        Command(arguments: ["refresh", "https://a.example/feed"], name: "zeader refresh"),
        Command(arguments: ["sync"], name: "zeader sync"),
        // The reader itself: no terminal is needed to find the config broken.
        Command(arguments: [], name: "zeader"),
    ]

    /// A broken config file's bytes, and the message its error line ends with.
    struct BrokenConfig: CustomTestStringConvertible, Sendable {
        var bytes: [UInt8]
        var line: Int
        var message: String
        var testDescription: String { message }
    }

    static let brokenConfigs: [BrokenConfig] = [
        // An escape sequence in the bad word reaches the terminal only as its plain letters.
        BrokenConfig(
            bytes: Array("refresh-interval 5\nsearch-highlight-colors \u{1B}[2Jx default\n".utf8), line: 2,
            message: "search-highlight-colors: unknown color in 'x default' (default, black … white, color0 … color255)"),
        BrokenConfig(bytes: [0x62, 0x72, 0xFF, 0xFE, 0x0A], line: 0, message: "cannot be read as UTF-8 text"),
    ]

    @Test(arguments: commands, brokenConfigs)
    func oneLineExitOneAndNoStore(_ command: Command, _ broken: BrokenConfig) throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let configDir = dir.appendingPathComponent("config/zeader")
        try FileManager.default.createDirectory(at: configDir, withIntermediateDirectories: true)
        let configFile = configDir.appendingPathComponent("config")
        try Data(broken.bytes).write(to: configFile)
        let db = dir.appendingPathComponent("z.sqlite")

        let r = try zeader(command.arguments + ["--db", db.path], in: dir)
        #expect(r.status == 1)
        #expect(r.stderr == "\(command.name): \(configFile.path):\(broken.line): \(broken.message)\n")
        #expect(r.stdout.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: db.path), "the store was created")
    }

    /// A store with an item and a sync account (so `refresh` would sync): its files and bytes
    /// stay as they were.
    @Test(arguments: commands)
    func anExistingStoreIsLeftAlone(_ command: Command) throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("z.sqlite")
        do {
            let store = try ZeaderStore.open(at: db)
            let context = store.container.newBackgroundContext(name: "fixture")
            try context.performAndWait { () throws in
                let server = try FeedSubscription.add(url: "https://a.example/feed", in: context)
                let item = context.insert(FeedItem.self)
                item.guid = "g1"
                item.title = "One"
                item.server = server
                try context.save()
            }
            _ = try FeedSync(store: store).addAccount(apiURL: "http://127.0.0.1:9/api/greader.php", user: "u", token: "t")
            // Closed here, so that nothing of this process writes the files while the command runs.
            try store.container.store.close()
        }
        let configDir = dir.appendingPathComponent("config/zeader")
        try FileManager.default.createDirectory(at: configDir, withIntermediateDirectories: true)
        let configFile = configDir.appendingPathComponent("config")
        try Data(Self.brokenConfigs[0].bytes).write(to: configFile)
        let files = { try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasPrefix("z.") }.sorted() }
        let (filesBefore, bytesBefore) = (try files(), try Data(contentsOf: db))

        let r = try zeader(command.arguments + ["--db", db.path], in: dir)
        #expect(r.status == 1)
        #expect(r.stderr == "\(command.name): \(configFile.path):2: \(Self.brokenConfigs[0].message)\n")
        #expect(try files() == filesBefore)
        #expect(try Data(contentsOf: db) == bytesBefore)
    }
}
