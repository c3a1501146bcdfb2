import Dispatch
import Feeds
import Foundation
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
        let app = queue.sync {
            let backend = CursesBackend(
                useColor: useColor, colorRules: config.colorRules, highlightRules: config.highlightRules)
            FatalSignalRestore.install()  // after the backend, whose own handlers it replaces
            return ReaderApp(
                model: model, backend: backend, config: effectiveConfig, queue: queue, refresher: refresher,
                fetcher: fetcher)
        }
        store.container.startWatchingOtherProcesses()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            queue.async {
                app.onQuit = {
                    app.backend.end()
                    continuation.resume()
                }
                app.start()
                let thread = Thread {
                    FatalSignalRestore.prepareThread()
                    inputLoop(app: app, queue: queue, store: store)
                }
                thread.name = "zeader.input"
                thread.start()
            }
        }
        store.container.stopWatchingOtherProcesses()
        store.checkpoint()
    }

    /// Waits for keys or signals and hands them to the UI queue.
    private static func inputLoop(app: ReaderApp, queue: DispatchQueue, store: ZeaderStore) {
        var fds = [
            pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0),
            pollfd(fd: signalPipe.read, events: Int16(POLLIN), revents: 0),
        ]
        while true {
            fds[0].revents = 0
            fds[1].revents = 0
            let ready = poll(&fds, 2, 1000)
            if ready < 0 && errno != EINTR { break }
            if fds[1].revents & Int16(POLLIN) != 0 {
                var byte: UInt8 = 0
                if read(signalPipe.read, &byte, 1) == 1 {
                    let done = queue.sync { () -> Bool in
                        if Int32(byte) == SIGWINCH {
                            app.handle(.resize)
                            return app.hasQuit
                        }
                        app.backend.end()
                        // Outside the signal handler: leave no `-wal` for the next start to recover.
                        store.container.stopWatchingOtherProcesses()
                        store.checkpoint()
                        try? store.container.store.close()
                        exit(128 + Int32(byte))
                    }
                    if done { return }
                }
            }
            if fds[0].revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 {
                if fds[0].revents & Int16(POLLHUP | POLLERR) != 0 {
                    queue.sync { app.quit() }
                    return
                }
                let done = queue.sync { () -> Bool in
                    app.handleInput()
                    return app.hasQuit
                }
                if done { return }
            }
            if queue.sync(execute: { app.hasQuit }) { return }
        }
    }
}

/// Why the reader cannot start.
public enum ReaderTerminalError: Error, CustomStringConvertible {
    case notATerminal
    public var description: String {
        switch self {
        case .notATerminal: return "the reader needs a terminal on standard input and output (use the subcommands in scripts)"
        }
    }
}
