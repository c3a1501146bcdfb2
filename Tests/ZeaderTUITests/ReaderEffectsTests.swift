import Dispatch
import Foundation
import Synchronization
import Testing
import ZeaderKit

@testable import ZeaderConfig
@testable import ZeaderTUI

/// Effects recorded instead of performed: no program runs, no timer fires, no task starts.
/// Every program is said to exit with `exitStatus`.
final class RecordingEffects: ReaderEffects, Sendable {
    struct Log {
        var programs: [ProgramRun] = []
        var notifications: [String] = []
        var repeating: [Int] = []
        var delays: [TimeInterval] = []
        var tasks = 0
    }

    let log = Mutex(Log())
    let exitStatus: Int32

    init(exitStatus: Int32 = 0) { self.exitStatus = exitStatus }

    var programs: [ProgramRun] { log.withLock { $0.programs } }

    func run(_ program: ProgramRun, backend: TerminalBackend) -> Result<Int32, ProgramRun.Failure> {
        log.withLock { $0.programs.append(program) }
        return .success(exitStatus)
    }

    func notify(command: String, message: String, finished: @escaping @Sendable (String?) -> Void)
        throws(ProgramRun.Failure)
    {
        log.withLock { $0.notifications.append("\(command) \(message)") }
    }

    func repeating(every seconds: Int, on queue: DispatchQueue, _ fire: @escaping @Sendable () -> Void) -> EffectTimer {
        log.withLock { $0.repeating.append(seconds) }
        return EffectTimer {}
    }

    func once(after seconds: TimeInterval, on queue: DispatchQueue, _ fire: @escaping @Sendable () -> Void) -> EffectTimer {
        log.withLock { $0.delays.append(seconds) }
        return EffectTimer {}
    }

    func task(_ work: @escaping @Sendable () async -> Void) {
        log.withLock { $0.tasks += 1 }
    }
}

/// Which effect a key produces, checked without running a program or waiting for a timer.
@Suite struct ReaderEffectsTests {
    @Test func openingALinkHandsTheBrowserToTheRunner() throws {
        var config = ReaderConfig()
        config.browser = "lynx -dump"
        let effects = RecordingEffects()
        let h = try Harness(config: config, effects: effects)
        h.type(.enter, .enter)
        let link = try #require(h.queue.sync { h.app.state.article?.link })
        #expect(h.type(.character("o")).contains("Opened \(link)"))
        #expect(effects.programs == [ProgramRun(argv: ["/bin/sh", "-c", "lynx -dump '\(link)'"], purpose: .browser(link: link))])
        #expect(h.backend.suspendCount == 0)  // the recording runner takes no terminal
        // A browser that fails is named with its status.
        let failing = RecordingEffects(exitStatus: 3)
        let g = try Harness(config: config, effects: failing)
        #expect(g.type(.enter, .enter, .character("o")).contains("lynx exited with status 3"))
    }

    @Test func pipeToAndBookmarkAreProgramsForTheRunner() throws {
        var config = ReaderConfig()
        config.articleCommands.bookmarkCommand = "bookmark-it"
        let effects = RecordingEffects()
        let h = try Harness(config: config, effects: effects)
        h.type(.enter, .enter, .character("|"))
        h.type(text: "wc -l")
        #expect(h.type(.enter).contains("Piped to wc"))
        let pipe = try #require(effects.programs.first)
        #expect(pipe.argv == ["/bin/sh", "-c", "wc -l"] && pipe.purpose == .pipe)
        #expect(String(decoding: pipe.input ?? Data(), as: UTF8.self).contains("Welcome to Zeader"))
        #expect(h.type(.control("b")).contains("Bookmarked "))
        let bookmark = try #require(effects.programs.last)
        #expect(bookmark.argv.first == "bookmark-it")
        #expect(effects.programs.count == 2)
    }

    @Test func editURLsHandsTheEditorToTheRunner() throws {
        let effects = RecordingEffects()
        let h = try Harness(effects: effects)
        #expect(h.type(.character("E")).contains("No changes to the feeds"))  // the editor saved nothing
        let editor = try #require(effects.programs.first)
        guard case .editor(let path) = editor.purpose else {
            Issue.record("\(editor.purpose)")
            return
        }
        #expect(editor.argv.last == path)
        #expect(!FileManager.default.fileExists(atPath: path))  // the urls file is removed after
    }

    @Test func timersAndTasksGoThroughTheRunner() throws {
        var config = ReaderConfig()
        config.refreshIntervalMinutes = 10
        let effects = RecordingEffects()
        let h = try Harness(config: config, refresher: NewItemsRefresher(), effects: effects)
        #expect(effects.log.withLock { $0.repeating } == [600])
        h.type(.character("R"))
        #expect(effects.log.withLock { $0.tasks } == 1)  // the refresh, started and not run
        #expect(h.screen.contains("Refreshing 0/1"))
    }
}
