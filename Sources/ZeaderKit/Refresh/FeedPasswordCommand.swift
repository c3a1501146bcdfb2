import Feeds
import Foundation
import Synchronization

/// A feed's HTTP password from its `password-command` setting (``FeedSettingKey/passwordCommand``):
/// the command's words run as argv (a shell only when the user's words name one), its
/// first line of output the password, sent as the feed's login to its own server only. The
/// setting comes only from the user's config, urls file or `zeader set`, never from data
/// (``BackupSettings``, ``FeedSettingsEditing/applyLine(_:to:url:allowingPrograms:)``).
///
/// ```swift
/// let outcome = await FeedPasswordCommand.password(#"pass show "feeds/example""#)
/// ```
public enum FeedPasswordCommand {
    /// The most a password command may print (`FeedPasswordCommand.outputLimit   // 64 KiB`).
    public static let outputLimit = 64 * 1024
    /// How long it may run, a prompt for a passphrase included (`FeedPasswordCommand.timeout   // 60 s`).
    public static let timeout: Duration = .seconds(60)

    /// The first line `command` prints (its words split as ``CommandWords`` splits them);
    /// for a command that cannot run, fails, runs too long or prints nothing, the problem.
    ///
    /// ```swift
    /// let outcome = await FeedPasswordCommand.password("secret-tool lookup feed example")   // .password("…")
    /// ```
    public static func password(_ command: String) async -> Outcome {
        var argv = CommandWords.split(command)
        guard let program = argv.first, !program.isEmpty else { return .problem(.commandCouldNotRun(reason: "no program")) }
        argv[0] = HomePath.expanding(program)
        let outcome: Subprocess.Outcome
        do {
            outcome = try await Subprocess.run(argv, outputLimit: outputLimit, timeout: timeout)
        } catch {
            return .problem(.commandCouldNotRun(reason: error.description))
        }
        guard !outcome.outputTooLarge else { return .problem(.commandOutputTooLarge(limit: outputLimit)) }
        guard !outcome.timedOut, outcome.termination == .exited(0) else { return .problem(.commandFailed(outcome.termination)) }
        // Any line break ends it: "\r\n" is one Character, so splitting on "\n" alone misses it.
        let line = String(decoding: outcome.output, as: UTF8.self)
            .split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).first
        guard let line, !line.isEmpty else { return .problem(.commandPrintedNothing) }
        return .password(String(line))
    }

    /// What a password command gave: the password, or why none.
    ///
    /// ```swift
    /// if case .password(let password) = await FeedPasswordCommand.password(command) { request.network.password = password }
    /// ```
    public enum Outcome: Sendable, Equatable {
        case password(String)
        case problem(ZeaderError.PasswordProblem)
    }

    /// The passwords of one refresh, by command: feeds that share a command run it once.
    final class Cache: Sendable {
        private let running = Mutex<[String: Task<Outcome, Never>]>([:])

        /// The password `command` gives, run at most once.
        func password(_ command: String) async -> Outcome {
            let task = running.withLock { tasks in
                if let task = tasks[command] { return task }
                let task = Task { await FeedPasswordCommand.password(command) }
                tasks[command] = task
                return task
            }
            return await task.value
        }
    }
}
