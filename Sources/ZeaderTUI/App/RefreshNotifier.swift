import Feeds
import Foundation
import Synchronization
import ZeaderKit

/// `notify-program`: after a refresh that stored new items, runs the configured program with
/// the message ("Zeader: 12 new items in 3 feeds") as its last argument. As in newsboat, the
/// message is the program's argument; unlike newsboat, the command is split into words (no
/// shell), like pipe-to, so `notify-program "notify-send -u low"` works without a wrapper script.
///
/// Without `notify-program`, `notify-send -a zeader` runs when it is on the `PATH` and there
/// is a desktop session to show it (``program(configured:environment:)``); its failures are not
/// reported, since nobody asked for it. `notify-program ""` turns notifications off.
///
/// ```swift
/// if let message = RefreshNotifier.message(for: summary), let program = config.articleCommands.notifyProgram {
///     let problem = await RefreshNotifier.run(program, message: message)   // nil when it went well
/// }
/// ```
public enum RefreshNotifier {
    /// The notification of `summary`, nil when it stored no new items.
    public static func message(for summary: RefreshSummary) -> String? {
        let new = summary.progress.newItems
        guard new > 0 else { return nil }
        let feeds = summary.results.count { result in
            if case .updated(let newItems, _) = result.status { return newItems > 0 }
            return false
        }
        let items = new == 1 ? "1 new item" : "\(new) new items"
        // A refresh through a sync server reports totals only.
        guard feeds > 0 else { return "Zeader: \(items)" }
        return "Zeader: \(items) in \(feeds == 1 ? "1 feed" : "\(feeds) feeds")"
    }

    /// The command to run after a refresh with new items: `configured` (the `notify-program`
    /// line; empty: none), else `notify-send -a zeader` when `notify-send` is an executable in a
    /// folder of `PATH` and a desktop session is there (`DBUS_SESSION_BUS_ADDRESS`,
    /// `WAYLAND_DISPLAY` or `DISPLAY` set) — from cron there is none, so nothing runs.
    /// `isFallback` tells the caller to keep quiet about a failure.
    ///
    /// ```swift
    /// if let notifier = RefreshNotifier.program(configured: config.articleCommands.notifyProgram) { … }
    /// ```
    public static func program(
        configured: String?, environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> (command: String, isFallback: Bool)? {
        if let configured { return configured.isEmpty ? nil : (configured, false) }
        let session = ["DBUS_SESSION_BUS_ADDRESS", "WAYLAND_DISPLAY", "DISPLAY"].contains {
            !(environment[$0] ?? "").isEmpty
        }
        guard session else { return nil }
        let folders = (environment["PATH"] ?? "").split(separator: ":").map(String.init)
        guard folders.contains(where: { !$0.isEmpty && access($0 + "/" + fallbackProgram, X_OK) == 0 }) else { return nil }
        return (fallbackProgram + " -a zeader", true)
    }

    /// The notifier run when `notify-program` is not set (libnotify's).
    static let fallbackProgram = "notify-send"

    /// Starts `command` with `message` appended to its words, its standard input, output and
    /// error on /dev/null (a failure is reported in one line of Zeader's own), without waiting.
    /// `onExit` receives the one-line problem (nil for exit status 0) when it ends. Returns
    /// its process id.
    @discardableResult
    static func start(
        _ command: String, message: String, onExit: @escaping @Sendable (String?) -> Void
    ) throws(ExportError) -> pid_t {
        var argv = try CommandRunner.arguments(command)
        argv[0] = ArticleExport.expanded(argv[0])
        let name = argv[0]
        let nullDevice = open("/dev/null", O_RDWR | O_CLOEXEC)
        defer { if nullDevice >= 0 { close(nullDevice) } }
        let pid: pid_t
        do {
            pid = try Subprocess.spawn(
                argv + [message], standardInput: nullDevice, standardOutput: nullDevice, standardError: nullDevice)
        } catch {
            throw ExportError("notify-program: \(error.description)")
        }
        Thread.detachNewThread {
            switch Subprocess.wait(pid) {
            case .exited(0): onExit(nil)
            case .exited(let status): onExit("notify-program: \(name) exited with status \(status)")
            case .signalled(let signal): onExit("notify-program: \(name) killed by signal \(signal)")
            }
        }
        return pid
    }

    /// Runs `command` with `message` and waits for it at most `timeout` (a notifier still
    /// running then is left to finish on its own); returns the one-line problem, nil when it
    /// exited 0 or is still running.
    public static func run(_ command: String, message: String, timeout: Duration = .seconds(2)) async -> String? {
        await run(command, message: message, timeout: timeout, reportsFailure: true)
    }

    /// Runs the notifier ``program(configured:environment:)`` chose for `configured` with
    /// `message`, as ``run(_:message:timeout:)``; nil when there is none or it went well, and
    /// always nil for the fallback.
    ///
    /// ```swift
    /// if let problem = await RefreshNotifier.notify(configured: config.articleCommands.notifyProgram, message: message) { warn(problem) }
    /// ```
    public static func notify(
        configured: String?, message: String, environment: [String: String] = ProcessInfo.processInfo.environment,
        timeout: Duration = .seconds(2)
    ) async -> String? {
        guard let program = program(configured: configured, environment: environment) else { return nil }
        return await run(program.command, message: message, timeout: timeout, reportsFailure: !program.isFallback)
    }

    private static func run(_ command: String, message: String, timeout: Duration, reportsFailure: Bool) async -> String? {
        let outcome = Mutex<String??>(nil)
        do {
            _ = try start(command, message: message) { problem in
                outcome.withLock { $0 = .some(problem) }
            }
        } catch {
            return reportsFailure ? error.description : nil
        }
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while clock.now < deadline {
            if let done = outcome.withLock({ $0 }) { return reportsFailure ? done : nil }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return nil
    }
}

extension ReaderApp {
    /// Starts `notify-program` after a refresh that stored new items, without waiting; if it
    /// fails, the status line says so in one line. On `queue`.
    func notifyNewItems(_ summary: RefreshSummary) {
        guard let program = RefreshNotifier.program(configured: config.articleCommands.notifyProgram),
            let message = RefreshNotifier.message(for: summary)
        else { return }
        do {
            try effects.notify(command: program.command, message: message) { [self] problem in
                guard let problem, !program.isFallback else { return }
                queue.async { [self] in
                    state.say(.reader(.notifyFailed(problem)))
                    redraw()
                }
            }
        } catch {
            if !program.isFallback { state.say(.reader(.notifyFailed(error.description))) }
        }
    }
}
