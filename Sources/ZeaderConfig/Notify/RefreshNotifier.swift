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
        let counts = NotifyCounts(summary, unreadPerFeed: [])
        return message(newItems: counts.newItems, inFeeds: counts.newFeeds)
    }

    /// The notification of `new` items stored in `feeds` feeds (0: not known, as after a sync),
    /// nil when there are none.
    ///
    /// ```swift
    /// RefreshNotifier.message(newItems: 3, inFeeds: 1)   // "Zeader: 3 new items in 1 feed"
    /// ```
    public static func message(newItems new: Int, inFeeds feeds: Int) -> String? {
        guard new > 0 else { return nil }
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

    /// Why the notifier did not end well, as one line of Zeader's own (its output is not shown).
    ///
    /// ```swift
    /// RefreshNotifier.Problem.exited(program: "false", status: 1).description   // "notify-program: false exited with status 1"
    /// ```
    public enum Problem: Error, Equatable, Sendable, CustomStringConvertible {
        /// It could not be started (no words, not found, not executable).
        case cannotStart(Subprocess.Failure)
        /// It exited with a status other than 0.
        case exited(program: String, status: Int32)
        /// A signal ended it.
        case signalled(program: String, signal: Int32)

        public var description: String {
            switch self {
            case .cannotStart(let failure): "notify-program: \(failure.description)"
            case .exited(let program, let status): "notify-program: \(program) exited with status \(status)"
            case .signalled(let program, let signal): "notify-program: \(program) killed by signal \(signal)"
            }
        }
    }

    /// Starts `command` with `message` appended to its words (``CommandWords``; a leading `~/`
    /// is `$HOME`), its standard input, output and error on /dev/null, without waiting.
    /// `onExit` receives the problem (nil for exit status 0) when it ends. Returns its process id.
    ///
    /// ```swift
    /// try RefreshNotifier.start("notify-send -u low", message: "Zeader: 1 new item") { problem in … }
    /// ```
    @discardableResult
    public static func start(
        _ command: String, message: String, onExit: @escaping @Sendable (Problem?) -> Void
    ) throws(Problem) -> pid_t {
        var argv = CommandWords.split(command)
        guard let program = argv.first else { throw .cannotStart(.emptyCommand) }
        argv[0] = HomePath.expanding(program)
        let name = argv[0]
        let nullDevice = open("/dev/null", O_RDWR | O_CLOEXEC)
        defer { if nullDevice >= 0 { close(nullDevice) } }
        let pid: pid_t
        do {
            pid = try Subprocess.spawn(
                argv + [message], standardInput: nullDevice, standardOutput: nullDevice, standardError: nullDevice)
        } catch {
            throw .cannotStart(error)
        }
        Thread.detachNewThread {
            switch Subprocess.wait(pid) {
            case .exited(0): onExit(nil)
            case .exited(let status): onExit(.exited(program: name, status: status))
            case .signalled(let signal): onExit(.signalled(program: name, signal: signal))
            }
        }
        return pid
    }

    /// Runs `command` with `message` and waits for it at most `timeout` (a notifier still
    /// running then is left to finish on its own); returns the problem, nil when it exited 0
    /// or is still running.
    ///
    /// ```swift
    /// if let problem = await RefreshNotifier.run("my-notifier", message: "Zeader: 1 new item") { print(problem) }
    /// ```
    public static func run(_ command: String, message: String, timeout: Duration = .seconds(2)) async -> Problem? {
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
    ) async -> Problem? {
        guard let program = program(configured: configured, environment: environment) else { return nil }
        return await run(program.command, message: message, timeout: timeout, reportsFailure: !program.isFallback)
    }

    /// Waits for the notifier's end or the deadline, whichever comes first: both try to take
    /// the one continuation, and only the first resumes it.
    private static func run(_ command: String, message: String, timeout: Duration, reportsFailure: Bool) async -> Problem? {
        let problem = await withCheckedContinuation { (continuation: CheckedContinuation<Problem?, Never>) in
            let waiting = Mutex<CheckedContinuation<Problem?, Never>?>(continuation)
            let finish: @Sendable (Problem?) -> Void = { problem in
                waiting.withLock { $0.take() }?.resume(returning: problem)
            }
            do throws(Problem) {
                try start(command, message: message, onExit: finish)
            } catch {
                finish(error)
                return
            }
            // Clamped to a year, so that a huge timeout cannot overflow Int.
            let nanoseconds = min(max(timeout / .nanoseconds(1), 0), 365 * 24 * 3600 * 1e9)
            let deadline = DispatchTime.now() + .nanoseconds(Int(nanoseconds))
            DispatchQueue.global().asyncAfter(deadline: deadline) { finish(nil) }
        }
        return reportsFailure ? problem : nil
    }
}
