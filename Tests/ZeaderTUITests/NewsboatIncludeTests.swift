import Foundation
import Testing

@testable import ZeaderConfig

/// newsboat's `include FILE`: the file's lines read in place (relative to the including file,
/// `~` expanded); a cycle is an error naming the files, a missing file a warning.
@Suite struct NewsboatIncludeTests {
    let dir: URL

    init() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("zinc-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("sub"), withIntermediateDirectories: true)
    }

    func write(_ text: String, _ name: String) throws -> URL {
        let url = dir.appendingPathComponent(name)
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url
    }

    @Test(arguments: ["include keys", "include \"keys\"", "include ./keys", "include sub/../keys", "  include   keys  # mine"])
    func anIncludedFilesLinesAreReadInPlace(line: String) throws {
        defer { try? FileManager.default.removeItem(at: dir) }
        _ = try write("bind-key x delete-feed\nconfirm-exit yes\n", "keys")
        let config = try ReaderConfig.load(from: try write("bind-key x quit\n\(line)\nunbind-key d\n", "config"))
        #expect(config.keyMap.action(for: .character("x")) == .deleteFeed)  // after the line before, as written there
        #expect(config.keyMap.action(for: .character("d")) == nil)
        #expect(config.behaviour.confirmExit)
        #expect(config.warnings.isEmpty)
    }

    @Test func aPathIsRelativeToTheIncludingFileAndTildeIsHome() throws {
        defer { try? FileManager.default.removeItem(at: dir) }
        _ = try write("include ../colors\n", "sub/keys")
        _ = try write("color listfocus yellow blue bold\n", "colors")
        let config = try ReaderConfig.load(from: try write("include sub/keys\n", "config"))
        #expect(config.colorRules.map(\.element) == ["listfocus"])
        #expect(ReaderConfig.includedPath("~/x", from: "/etc/config").hasSuffix("/x"))
        #expect(!ReaderConfig.includedPath("~/x", from: "/etc/config").contains("~"))
        #expect(ReaderConfig.includedPath("x", from: "/etc/zeader/config") == "/etc/zeader/x")
    }

    @Test func anIncludedFilesBadLineNamesThatFileAndLine() throws {
        defer { try? FileManager.default.removeItem(at: dir) }
        let keys = try write("\nrefresh-interval soon\nfrobnicate 1\n", "keys")
        let config = try write("include keys\n", "config")
        #expect {
            try ReaderConfig.load(from: config)
        } throws: { error in
            (error as? ReaderConfigError)
                == ReaderConfigError(file: keys.path, line: 2, message: "refresh-interval needs a number of minutes (0 = off)")
        }
        let problems = ReaderConfig.check(at: config)
        #expect(problems.map(\.description).contains("\(keys.path):3: warning: unknown directive 'frobnicate' (line ignored)"))
    }

    @Test func aFileThatIncludesItselfIsRefusedNamingTheChain() throws {
        defer { try? FileManager.default.removeItem(at: dir) }
        _ = try write("include config\n", "b")
        _ = try write("include b\n", "a")
        let config = try write("include a\n", "config")
        #expect {
            try ReaderConfig.load(from: config)
        } throws: { error in
            guard let error = error as? ReaderConfigError else { return false }
            return error.file.hasSuffix("/b") && error.message.contains("includes itself")
                && error.message.contains(config.path)
        }
        let direct = try write("include self\n", "self")
        #expect(throws: ReaderConfigError.self) { try ReaderConfig.load(from: direct) }
    }

    @Test func aMissingOrUnreadableFileIsAWarningNamingIt() throws {
        defer { try? FileManager.default.removeItem(at: dir) }
        _ = try write("", "empty")
        let text = """
            include "~/.newsboat/colors-zeader-test-missing"
            include sub
            include `[[ -f ~/x ]] && echo ~/x || echo /dev/null`
            include empty
            bind-key x quit

            """
        let config = try ReaderConfig.load(from: try write(text, "config"))
        #expect(config.keyMap.action(for: .character("x")) == .quit)
        #expect(config.warnings.map(\.line) == [1, 2, 3])
        #expect(config.warnings[0].message.contains("colors-zeader-test-missing: no such file"))
        #expect(config.warnings[2].message.contains("backticks"))
        #expect(throws: ReaderConfigError.self) { try ReaderConfig.parse("include\n", file: "c") }
    }
}
