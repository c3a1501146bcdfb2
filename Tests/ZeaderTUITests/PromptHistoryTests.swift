import Foundation
import Testing

@testable import ZeaderConfig
@testable import ZeaderTUI

/// newsboat's prompt history (`history-limit`): Up and Down in the search and command-line
/// prompts, and the files `history.search` and `history.cmdline`.
@Suite struct PromptHistoryTests {
    func folder() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("zeader-history-\(UUID())")
    }

    func harness(limit: String?, stateIn folder: URL?) throws -> Harness {
        var config = try ReaderConfig.parse(limit.map { "history-limit \($0)\n" } ?? "", file: "c")
        config.viewStateURL = folder?.appendingPathComponent("views")
        return try Harness(config: config)
    }

    func prompt(_ h: Harness) -> Prompt? { h.queue.sync { h.app.state.prompt } }

    @Test func upAndDownRecallTheSearchesTyped() throws {
        let h = try harness(limit: nil, stateIn: nil)
        for word in ["swift", "linux", "ncurses"] {
            h.type(.character("/"))
            h.type(text: word)
            h.type(.enter)
        }
        h.type(.character("/"))
        h.type(text: "draft")
        h.type(.up)
        #expect(prompt(h) == .search(text: "ncurses"))
        h.type(.up, .up)
        #expect(prompt(h) == .search(text: "swift"))
        // The oldest stays.
        h.type(.up)
        #expect(prompt(h) == .search(text: "swift"))
        h.type(.down)
        #expect(prompt(h) == .search(text: "linux"))
        // Down past the newest: what was typed.
        h.type(.down, .down)
        #expect(prompt(h) == .search(text: "draft"))
        // The command line has its own.
        h.type(.escape, .character(":"), .up)
        #expect(prompt(h) == .cmdline(text: ""))
    }

    @Test func theLastLinesAreSavedAsNewsboatsFilesAndReadAtStart() throws {
        let folder = folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let h = try harness(limit: "2", stateIn: folder)
        for word in ["one", "two", "three"] {
            h.type(.character("/"))
            h.type(text: word)
            h.type(.enter)
        }
        h.type(.character(":"))
        h.type(text: "set show-read-feeds no")
        h.type(.enter)
        let search = try String(contentsOf: folder.appendingPathComponent("history.search"), encoding: .utf8)
        #expect(search == "two\nthree\n")
        let cmdline = try String(contentsOf: folder.appendingPathComponent("history.cmdline"), encoding: .utf8)
        #expect(cmdline == "set show-read-feeds no\n")
        // A new reader recalls them.
        let next = try harness(limit: "2", stateIn: folder)
        next.type(.character("/"), .up)
        #expect(prompt(next) == .search(text: "three"))
    }

    @Test func zeroSavesNothingAndABadFileLineIsLeftOut() throws {
        let folder = folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let h = try harness(limit: "0", stateIn: folder)
        h.type(.character("/"))
        h.type(text: "kept for now")
        h.type(.enter, .character("/"), .up)
        #expect(prompt(h) == .search(text: "kept for now"))
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("history.search").path))
        // A history file is read as text the user typed: a line with escape sequences is dropped.
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data("fine\n\u{1B}]0;owned\u{07}\n".utf8).write(to: folder.appendingPathComponent("history.search"))
        let history = PromptHistory(limit: 10, folder: folder)
        #expect(history.entries[.search] == ["fine"])
    }
}
