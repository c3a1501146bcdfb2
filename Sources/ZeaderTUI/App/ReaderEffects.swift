import Dispatch
import Feeds
import Foundation
import ZeaderConfig

/// A program the reader asks to run in the foreground: it gets the terminal until it exits.
///
/// ```swift
/// let run = ProgramRun(argv: ["lynx", "https://swift.org"], purpose: .browser(link: "https://swift.org"))
/// ```
public struct ProgramRun: Equatable, Sendable {
    /// Why the program runs: what its exit means on the status line (`.pipe`,
    /// `.browser(link: url)`).
    public enum Purpose: Equatable, Sendable {
        /// `browser` on a link.
        case browser(link: String)
        /// `$VISUAL`/`$EDITOR` on the feeds as a urls file (edit-urls).
        case editor(path: String)
        /// The article's text piped to a command (pipe-to).
        case pipe
        /// `bookmark-cmd` with the item's link.
        case bookmark(link: String)
        /// `player` on a downloaded episode (the podcast queue's pb-play).
        case player(file: String)
    }

    /// Why a program could not be started: the words for the status line
    /// (`ProgramRun.Failure("lynx: not found")`).
    public struct Failure: Error, Equatable, Sendable, CustomStringConvertible {
        public let description: String

        public init(_ description: String) { self.description = description }
    }

    public var argv: [String]
    /// Given on its standard input (nothing when nil).
    public var input: Data?
    public var purpose: Purpose

    public init(argv: [String], input: Data? = nil, purpose: Purpose) {
        self.argv = argv
        self.input = input
        self.purpose = purpose
    }
}

/// A timer or a delayed call started through ``ReaderEffects``; `cancel()` stops it.
///
/// ```swift
/// let timer = effects.repeating(every: 600, on: queue) { refresh() }
/// timer.cancel()
/// ```
public struct EffectTimer {
    private let stop: () -> Void

    public init(cancel: @escaping () -> Void) { stop = cancel }

    public func cancel() { stop() }
}

/// Everything the reader's update asks of the world besides a change of state: programs to
/// run, background tasks and timers. ``ReaderApp`` does none of these itself; it hands each
/// to its effects runner, ``LiveEffects`` in the reader and a recording one in tests (which
/// then run no program and wait for no timer).
///
/// ```swift
/// let app = ReaderApp(model: model, backend: backend, config: config, queue: queue, effects: LiveEffects())
/// ```
public protocol ReaderEffects: AnyObject {
    /// Runs `program` with the terminal handed to it (`backend` suspended meanwhile) and waits
    /// for it: its exit status (128 + N for signal N), or why it could not start.
    func run(_ program: ProgramRun, backend: TerminalBackend) -> Result<Int32, ProgramRun.Failure>
    /// Starts `notify-program` (`command`, with `message`) and does not wait; `finished` gets
    /// its problem, or nil, on any thread. Throws when it cannot start.
    func notify(command: String, message: String, finished: @escaping @Sendable (String?) -> Void)
        throws(ProgramRun.Failure)
    /// Calls `fire` on `queue` every `seconds`, the first time after `seconds`.
    func repeating(every seconds: Int, on queue: DispatchQueue, _ fire: @escaping @Sendable () -> Void) -> EffectTimer
    /// Calls `fire` on `queue` once, after `seconds`.
    func once(after seconds: TimeInterval, on queue: DispatchQueue, _ fire: @escaping @Sendable () -> Void) -> EffectTimer
    /// Runs `work` off the reader's queue (a fetch, a refresh, a push); it reports back with
    /// `queue.async`.
    func task(_ work: @escaping @Sendable () async -> Void)
}

/// The effects runner of the real reader: programs through ``Subprocess`` (closed descriptors,
/// default signals), Dispatch timers, detached tasks.
///
/// ```swift
/// let effects: any ReaderEffects = LiveEffects()
/// ```
public final class LiveEffects: ReaderEffects {
    public init() {}

    public func run(_ program: ProgramRun, backend: TerminalBackend) -> Result<Int32, ProgramRun.Failure> {
        backend.suspend()
        defer { backend.resume() }
        switch program.purpose {
        case .browser, .editor, .player:
            return LinkOpener.run(program.argv).mapError { ProgramRun.Failure($0.description) }
        case .pipe, .bookmark:
            do { return .success(try CommandRunner.run(program.argv, input: program.input)) } catch {
                return .failure(ProgramRun.Failure(error.description))
            }
        }
    }

    public func notify(command: String, message: String, finished: @escaping @Sendable (String?) -> Void)
        throws(ProgramRun.Failure)
    {
        do { try RefreshNotifier.start(command, message: message) { problem in finished(problem?.description) } } catch {
            throw ProgramRun.Failure(error.description)
        }
    }

    public func repeating(every seconds: Int, on queue: DispatchQueue, _ fire: @escaping @Sendable () -> Void)
        -> EffectTimer
    {
        let timer = DispatchSource.makeTimerSource(queue: queue)
        let interval = DispatchTimeInterval.seconds(max(1, seconds))
        timer.schedule(deadline: .now() + interval, repeating: interval)
        timer.setEventHandler(handler: fire)
        timer.resume()
        return EffectTimer { timer.cancel() }
    }

    public func once(after seconds: TimeInterval, on queue: DispatchQueue, _ fire: @escaping @Sendable () -> Void)
        -> EffectTimer
    {
        let work = DispatchWorkItem(block: fire)
        queue.asyncAfter(deadline: .now() + seconds, execute: work)
        return EffectTimer { work.cancel() }
    }

    public func task(_ work: @escaping @Sendable () async -> Void) {
        Task.detached { await work() }
    }
}
