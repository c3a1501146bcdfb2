import Dispatch
import Feeds
import Foundation
import Synchronization
import ZeaderConfig
import ZeaderKit

/// Runs a ``ReaderApp`` in the real terminal: curses, an input thread that waits on
/// standard input without blocking the UI queue, and signals (SIGWINCH resizes;
/// SIGINT, SIGTERM and SIGHUP restore the terminal, checkpoint the store and exit (the
/// handler only writes to a pipe; the input thread does the rest); fatal signals restore it
/// and end the process, see ``FatalSignalRestore``).
///
/// ```swift
/// try await ReaderTerminal.run(store: store, config: config, refresher: nil)
/// ```
public enum ReaderTerminal {
    /// Signals reach the input thread through this pipe (written by the handler, which
    /// may only call async-signal-safe functions such as write(2)).
    private static let signalPipe: (read: Int32, write: Int32) = {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { return (-1, -1) }
        _ = fcntl(fds[1], F_SETFL, O_NONBLOCK)
        return (fds[0], fds[1])
    }()

    /// Runs the reader until the user quits.
    public static func run(
        store: ZeaderStore, config: ReaderConfig, refresher: ReaderRefresher?, fetcher: FeedFetcher?
    ) async throws {
        guard isatty(STDIN_FILENO) == 1, isatty(STDOUT_FILENO) == 1 else {
            throw ReaderTerminalError.notATerminal
        }
        guard canReadTerminal() else { throw ReaderTerminalError.notInForeground }
        let queue = store.container.viewContext.queue
        let model = ReaderModel(store: store, smartFeeds: config.smartFeeds)
        let useColor = config.useColor && (ProcessInfo.processInfo.environment["NO_COLOR"] ?? "").isEmpty
        var effectiveConfig = config
        effectiveConfig.useColor = useColor

        _ = signalPipe
        for signalNumber in [SIGINT, SIGTERM, SIGHUP, SIGWINCH] {
            signal(signalNumber) { number in
                var byte = UInt8(truncatingIfNeeded: number)
                _ = write(ReaderTerminal.signalPipe.write, &byte, 1)
            }
        }
        FatalSignalRestore.saveTerminalModes()
        // Asked before curses reads the keyboard, which would take the answers for keys.
        let graphics = TerminalGraphics.detect(
            config.pictures.display, input: STDIN_FILENO, output: STDOUT_FILENO,
            environment: ProcessInfo.processInfo.environment)
        let app = queue.sync {
            let backend = CursesBackend(
                useColor: useColor, colorRules: config.colorRules, highlightRules: config.paintedHighlights)
            FatalSignalRestore.install()  // after the backend, whose own handlers it replaces
            return ReaderApp(
                model: model, backend: backend, config: effectiveConfig, queue: queue, refresher: refresher,
                fetcher: fetcher)
        }
        queue.sync {
            (app.pictures.display, app.pictures.passthrough) = (graphics.display, graphics.passthrough)
            if let cell = TerminalGraphics.cellPixels(of: STDOUT_FILENO) { app.pictures.cellPixels = cell }
            app.pictures.sixelLimit = graphics.answers.sixelLimit
        }
        store.container.startWatchingOtherProcesses()
        let inputEnd = Mutex<TerminalInputEnd?>(nil)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            queue.async {
                app.onQuit = {
                    app.backend.end()
                    continuation.resume()
                }
                app.start()
                // Keys typed before the start, read with the terminal's answers.
                for key in TerminalGraphics.keys(typedAhead: graphics.answers.typedAhead) where !app.hasQuit { app.handle(key) }
                let thread = Thread {
                    FatalSignalRestore.prepareThread()
                    if let reason = inputLoop(app: app, queue: queue, store: store) {
                        // Kept before quitting: quitting resumes `run`, which reads it.
                        inputEnd.withLock { $0 = reason }
                        queue.sync { app.quit() }
                    }
                }
                thread.name = "zeader.input"
                thread.start()
            }
        }
        store.container.stopWatchingOtherProcesses()
        store.checkpoint()
        // Changes quitting could not push: said once the screen is restored; nothing is lost,
        // so the exit status stays 0.
        if let notice = queue.sync(execute: { app.quitNotice }) {
            try? FileHandle.standardError.write(contentsOf: Data("zeader: \(notice)\n".utf8))
        }
        if let reason = inputEnd.withLock({ $0 }) { throw ReaderTerminalError.inputEnded(reason) }
    }

    /// Waits for keys or signals and hands them to the UI queue; returns why input ended
    /// (the caller quits the app), or nil when the user quit. A terminal that stays readable without giving keys is
    /// waited on less often rather than in a busy loop.
    private static func inputLoop(app: ReaderApp, queue: DispatchQueue, store: ZeaderStore) -> TerminalInputEnd? {
        let input = TerminalInput(input: STDIN_FILENO, signals: signalPipe.read)
        var emptyWakeups = 0
        while true {
            switch input.next(timeout: 1000) {
            case .idle:
                emptyWakeups = 0
            case .signal(let number):
                let done = queue.sync { () -> Bool in
                    if number == SIGWINCH {
                        app.handle(.resize)
                        return app.hasQuit
                    }
                    app.backend.end()
                    // A signal ends the reader at once: the changes not pushed stay queued, and
                    // the restored terminal is told so.
                    if let notice = app.keptChangesNotice(signal: number) {
                        try? FileHandle.standardError.write(contentsOf: Data("zeader: \(notice)\n".utf8))
                    }
                    // Outside the signal handler: leave no `-wal` for the next start to recover.
                    store.container.stopWatchingOtherProcesses()
                    store.checkpoint()
                    try? store.container.store.close()
                    exit(128 + number)
                }
                if done { return nil }
            case .ended(let reason):
                return reason
            case .keys:
                let (done, gotKeys) = queue.sync { () -> (Bool, Bool) in
                    let gotKeys = app.handleInput()
                    return (app.hasQuit, gotKeys)
                }
                if done { return nil }
                emptyWakeups = gotKeys ? 0 : emptyWakeups + 1
                if emptyWakeups > 64 { usleep(50_000) }
            }
            if queue.sync(execute: { app.hasQuit }) { return nil }
        }
    }

    /// Whether the reader may read the terminal on standard input: it is in the terminal's
    /// foreground process group. Its keys are read on threads that block SIGTTIN, so in the
    /// background a read fails (EIO) rather than stopping the reader until `fg`; and under
    /// `timeout`, which keeps its own process group, a stop would last until the timeout.
    static func canReadTerminal() -> Bool { isForeground() }

    /// Whether this process group is the terminal's foreground (or stdin has no terminal
    /// to ask).
    private static func isForeground() -> Bool {
        let foreground = tcgetpgrp(STDIN_FILENO)
        return foreground < 0 || foreground == getpgrp()
    }
}

/// Why the reader cannot start.
public enum ReaderTerminalError: Error, CustomStringConvertible {
    case notATerminal
    /// The terminal's foreground belongs to another process group and reads fail rather
    /// than stop the reader until it is brought to the foreground.
    case notInForeground
    /// The terminal stopped giving input; the screen was restored first.
    case inputEnded(TerminalInputEnd)

    public var description: String {
        switch self {
        case .notATerminal: return "the reader needs a terminal on standard input and output (use the subcommands in scripts)"
        case .notInForeground:
            return
                "the reader cannot read keys: it is not in the terminal's foreground process group (started in the background, or by a program such as timeout; use timeout --foreground)"
        case .inputEnded(let reason): return "the reader stopped: \(reason)"
        }
    }
}
