import Foundation
import LoopbackHTTPServer
import Testing

@testable import ZeaderConfig
@testable import ZeaderTUI

/// `s` saves the article (text, or Markdown for `.md`), `|` pipes its text to a command
/// (no shell), `^B` runs `bookmark-cmd` with URL, title, description and feed title; the
/// directives parse with newsboat's names.
@Suite struct ArticleCommandsTests {
    private func folder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("zeader-article-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// The demo's "A Core Data-style stack" article, opened.
    private func openArticle(_ config: ReaderConfig = ReaderConfig()) throws -> Harness {
        let h = try Harness(width: 220, config: config)
        h.type(.character("j"), .enter)
        h.type(.down, .enter)
        return h
    }

    @Test func saveProposesSavePathAndWritesText() throws {
        let dir = try folder()
        var config = ReaderConfig()
        config.articleCommands.savePath = dir.path
        let h = try openArticle(config)
        let screen = h.type(.character("s"))
        #expect(screen.contains("Save to: \(dir.path)/A Core Data-style stack without Apple platforms.txt_"))
        let saved = h.type(.enter)
        let file = dir.appendingPathComponent("A Core Data-style stack without Apple platforms.txt")
        #expect(saved.contains("Saved to \(file.path)"))
        let text = try String(contentsOf: file, encoding: .utf8)
        #expect(text.hasPrefix("Feed: Swift on Linux\nTitle: A Core Data-style stack without Apple platforms\n"))
        #expect(text.contains("let items = try FeedItem.findAll"))
        // A second save does not replace the file.
        h.type(.character("s"))
        #expect(h.type(.enter).contains("already exists"))
    }

    @Test func saveAsMarkdownWhenTheNameEndsInMd() throws {
        let dir = try folder()
        let h = try openArticle()
        h.type(.character("s"), .control("u"))
        h.type(text: dir.appendingPathComponent("a.md").path)
        h.type(.enter)
        let text = try String(contentsOf: dir.appendingPathComponent("a.md"), encoding: .utf8)
        #expect(text.hasPrefix("# A Core Data-style stack without Apple platforms\n\n- Feed: Swift on Linux\n"))
        #expect(text.contains("- Author: Grace Hopper"))
    }

    @Test func saveIntoAMissingFolderSaysSo() throws {
        let h = try openArticle()
        h.type(.character("s"), .control("u"))
        h.type(text: "/nonexistent-zeader-dir/x.txt")
        #expect(h.type(.enter).contains("its folder does not exist"))
    }

    @Test func pipeRunsTheCommandThroughTheShellAsNewsboatUnlessToldNot() throws {
        let dir = try folder()
        // As newsboat: `sh -c`, so a pipeline or a redirection works.
        let shell = try openArticle()
        let piped = dir.appendingPathComponent("through-the-shell")
        shell.type(.character("|"))
        shell.type(text: "grep -c Title > \(piped.path)")
        #expect(shell.type(.enter).contains("Piped to grep"))
        #expect(try String(contentsOf: piped, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines) == "1")
        // run-through-shell no: the command's words, no shell.
        var config = ReaderConfig()
        config.runThroughShell = false
        let out = dir.appendingPathComponent("piped.txt")
        let h = try openArticle(config)
        #expect(h.type(.character("|")).contains("Pipe to command: _"))
        h.type(text: "sh -c \"cat > '\(out.path)'\"")
        #expect(h.type(.enter).contains("Piped to sh"))
        let text = try String(contentsOf: out, encoding: .utf8)
        #expect(text.contains("Title: A Core Data-style stack without Apple platforms"))
        // Without sh -c, '>' is only an argument: nothing is redirected.
        let stray = dir.appendingPathComponent("stray")
        h.type(.character("|"))
        h.type(text: "echo > \(stray.path)")
        h.type(.enter)
        #expect(!FileManager.default.fileExists(atPath: stray.path))
        h.type(.character("|"))
        h.type(text: "no-such-program-zeader")
        #expect(h.type(.enter).contains("cannot run no-such-program-zeader"))
        h.type(.character("|"))
        h.type(text: "false")
        #expect(h.type(.enter).contains("false exited with status 1"))
    }

    @Test func bookmarkRunsTheCommandWithFourArguments() throws {
        let dir = try folder()
        let out = dir.appendingPathComponent("bm.txt")
        var config = ReaderConfig()
        let script = dir.appendingPathComponent("bm.sh")
        try writeExecutableScript("printf '%s\\n' \"$@\" > '\(out.path)'", to: script)
        config.articleCommands.bookmarkCommand = script.path
        let h = try openArticle(config)
        #expect(h.type(.control("b")).contains("Bookmarked "))
        let lines = try String(contentsOf: out, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count >= 4)
        #expect(lines[0].hasPrefix("https://"))
        #expect(lines[1] == "A Core Data-style stack without Apple platforms")
        #expect(lines[lines.count - 2] == "Swift on Linux")
        let h2 = try openArticle()
        #expect(h2.type(.control("b")).contains("No bookmark-cmd in the config file"))
    }

    @Test func directivesParseWithNewsboatNames() throws {
        let config = try ReaderConfig.parse(
            """
            save-path ~/articles
            bookmark-cmd "bm add"
            notify-program "notify-send -a zeader"
            macro v open ; toggle-read
            macro w pipe-to
            """, file: "test")
        #expect(config.articleCommands.savePath == "~/articles")
        #expect(config.articleCommands.bookmarkCommand == "bm add")
        #expect(config.articleCommands.notifyProgram == "notify-send -a zeader")
        #expect(config.articleCommands.macros[.character("v")] == [.action(.open), .action(.toggleRead)])
        #expect(config.articleCommands.macros[.character("w")] == [.action(.pipeTo)])
        // A macro with an action Zeader lacks is a warning, and the macro is left out.
        let unknown = try ReaderConfig.parse("macro v nonsense", file: "t")
        #expect(unknown.articleCommands.macros[.character("v")] == nil)
        #expect(unknown.warnings.map(\.description).contains { $0.contains("nonsense") })
        #expect(throws: ReaderConfigError.self) { try ReaderConfig.parse("save-path", file: "t") }
        #expect(ArticleExport.expanded("~/a", environment: ["HOME": "/h"]) == "/h/a")
        #expect(try CommandRunner.arguments("grep -i \"swift linux\"") == ["grep", "-i", "swift linux"])
    }
}
