import Feeds
import Foundation
import Synchronization
import Testing

@testable import ZeaderTUI

#if canImport(Glibc)
    import Glibc
#endif

/// A stack overflow on a thread with an alternate signal stack (a prepared thread, a guarded
/// thread) still puts the terminal back: this test bundle runs itself again as a child on a
/// pseudo-terminal, the child switches the terminal to raw mode and overflows a thread's
/// stack, and the parent looks at the terminal's modes once the child is dead.
@Suite("FatalSignalRestore: a stack overflow restores the terminal")
struct FatalSignalRestoreTests {
    static let childVariable = "ZEADER_FATAL_SIGNAL_CHILD"

    @Test func stackOverflowOnAPreparedThreadRestoresTheTerminal() async throws {
        let run = try await runChild(mode: "handler")
        #expect([SIGSEGV, SIGBUS].contains(run.signal), "the child should die of the overflow, not \(run)")
        #expect(run.modes.c_lflag & tcflag_t(ICANON) != 0, "canonical mode is back")
        #expect(run.modes.c_lflag & tcflag_t(ECHO) != 0, "echo is back")
        #expect(run.output.contains("\u{1B}[?1049l"), "the normal screen is back")
    }

    /// The control: without the handler the same child leaves the terminal raw, so the test
    /// above sees the handler's work and not a terminal that was never changed.
    @Test func withoutTheHandlerTheTerminalStaysRaw() async throws {
        let run = try await runChild(mode: "no-handler")
        #expect([SIGSEGV, SIGBUS].contains(run.signal), "the child should die of the overflow, not \(run)")
        #expect(run.modes.c_lflag & tcflag_t(ICANON) == 0)
        #expect(run.modes.c_lflag & tcflag_t(ECHO) == 0)
    }

    /// Work over untrusted input runs on a guarded thread (parsing, article layout): an
    /// overflow there restores the terminal too, on a thread the test did not prepare.
    @Test func stackOverflowOnAGuardedThreadRestoresTheTerminal() async throws {
        let run = try await runChild(mode: "guarded-thread")
        #expect([SIGSEGV, SIGBUS].contains(run.signal), "the child should die of the overflow, not \(run)")
        #expect(run.modes.c_lflag & tcflag_t(ICANON) != 0, "canonical mode is back")
        #expect(run.modes.c_lflag & tcflag_t(ECHO) != 0, "echo is back")
        #expect(run.output.contains("\u{1B}[?1049l"), "the normal screen is back")
    }

    /// The control for the guarded thread: with the handler installed, the same overflow on
    /// a Dispatch worker (no alternate stack) ends the process before the handler can run.
    @Test func stackOverflowOnADispatchWorkerLeavesTheTerminalRaw() async throws {
        let run = try await runChild(mode: "dispatch-worker")
        #expect([SIGSEGV, SIGBUS].contains(run.signal), "the child should die of the overflow, not \(run)")
        #expect(run.modes.c_lflag & tcflag_t(ICANON) == 0)
        #expect(!run.output.contains("\u{1B}[?1049l"))
    }

    /// The child's part; does nothing unless the parent test started this bundle for it.
    @Test func childOverflowsItsStack() {
        guard let mode = ProcessInfo.processInfo.environment[Self.childVariable] else { return }
        FatalSignalRestore.saveTerminalModes()
        var raw = termios()
        tcgetattr(STDIN_FILENO, &raw)
        cfmakeraw(&raw)
        tcsetattr(STDIN_FILENO, TCSANOW, &raw)
        if mode != "no-handler" { FatalSignalRestore.install() }
        switch mode {
        case "guarded-thread":
            print(GuardedThreads.runAndWait { overflow(0) })
        case "dispatch-worker":
            DispatchQueue.global().async { print(overflow(0)) }
        default:
            let thread = Thread {
                FatalSignalRestore.prepareThread()
                print(overflow(0))
            }
            thread.stackSize = 512 * 1024
            thread.start()
        }
        sleep(30)  // the overflow ends the process long before
    }

    // MARK: - The parent's part

    struct ChildRun: CustomStringConvertible {
        var signal: Int32?
        var modes: termios
        var output: String
        var description: String { "signal \(signal.map(String.init) ?? "none")" }
    }

    private func runChild(mode: String) async throws -> ChildRun {
        // posix_openpt and friends are not in Swift's Glibc module; these are the ioctls they
        // use (TIOCSPTLCK and TIOCGPTN, the same numbers on every Linux architecture we run on).
        // O_CLOEXEC: a program another test starts meanwhile must not inherit either side.
        let master = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC)
        try #require(master >= 0)
        // The reader's thread owns `master` from here on and closes it when it ends.
        let output = PtyReader(master)
        defer { _ = output.finish() }
        var unlock: Int32 = 0
        var number: Int32 = -1
        try #require(ioctl(master, 0x4004_5431, &unlock) == 0 && ioctl(master, 0x8004_5430, &number) == 0)
        let slave = open("/dev/pts/\(number)", O_RDWR | O_NOCTTY | O_CLOEXEC)
        try #require(slave >= 0)
        defer { close(slave) }
        var cooked = termios()
        tcgetattr(slave, &cooked)
        try #require(cooked.c_lflag & tcflag_t(ICANON | ECHO) == tcflag_t(ICANON | ECHO), "a new pty starts cooked")

        let child = Process()
        child.executableURL = URL(fileURLWithPath: try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
        child.arguments = ["--testing-library", "swift-testing", "--filter", "FatalSignalRestoreTests/childOverflowsItsStack"]
        child.environment = ProcessInfo.processInfo.environment.merging([
            Self.childVariable: mode,
            // Swift's own crash handler would otherwise catch the overflow in the control run.
            "SWIFT_BACKTRACE": "enable=no",
        ]) { $1 }
        let terminal = FileHandle(fileDescriptor: slave, closeOnDealloc: false)
        child.standardInput = terminal
        child.standardOutput = terminal
        child.standardError = FileHandle.nullDevice
        // Waits without holding a thread: blocking one of the two the test pool has on a busy
        // machine stalls every other test for as long as the child takes to start.
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            child.terminationHandler = { _ in continuation.resume() }
            do {
                try child.run()
            } catch {
                child.terminationHandler = nil
                continuation.resume(throwing: error)
            }
        }
        var modes = termios()
        tcgetattr(slave, &modes)
        let signal = child.terminationReason == .uncaughtSignal ? child.terminationStatus : nil
        return ChildRun(signal: signal, modes: modes, output: output.finish())
    }
}

/// Reads a pty's master side on a thread of its own (so the child never blocks on a full
/// pty) until told to finish; that thread owns the descriptor and closes it as it ends.
/// Closing it anywhere else would race the thread's `poll`/`read`: the number could
/// meanwhile belong to another test's socket or pipe, which the thread would then read from.
private final class PtyReader: Sendable {
    private let master: Int32
    private let collected = Mutex((text: [UInt8](), done: false))
    private let ended = DispatchSemaphore(value: 0)

    init(_ master: Int32) {
        self.master = master
        _ = fcntl(master, F_SETFL, fcntl(master, F_GETFL) | O_NONBLOCK)
        Thread.detachNewThread { [self] in
            while !collected.withLock({ $0.done }) { readAvailable() }
            readAvailable()  // what the child wrote last
            close(master)
            ended.signal()
        }
    }

    private func readAvailable() {
        var descriptor = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
        guard poll(&descriptor, 1, 50) > 0 else { return }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = read(master, &buffer, buffer.count)
        if count > 0 { collected.withLock { $0.text += buffer[0..<count] } }
    }

    /// Stops the thread, waits until it has closed the descriptor, and returns what it read.
    /// Idempotent. Waits at most one `poll` round (50 ms) and one read.
    func finish() -> String {
        let first = collected.withLock { state -> Bool in
            defer { state.done = true }
            return !state.done
        }
        if first { ended.wait() }
        return collected.withLock { String(decoding: $0.text, as: UTF8.self) }
    }
}

/// Recurses until the stack runs out; the frame's buffer keeps the compiler from turning the
/// recursion into a loop.
@inline(never)
private func overflow(_ depth: Int) -> Int {
    var frame = [Int](repeating: depth, count: 4)
    return frame.withUnsafeMutableBufferPointer { buffer in
        var local = (depth, depth &+ 1, depth &+ 2, depth &+ 3, depth &+ 4, depth &+ 5, depth &+ 6, depth &+ 7)
        return withUnsafeMutablePointer(to: &local) { overflow($0.pointee.0 &+ 1) &+ buffer[0] &+ $0.pointee.7 }
    }
}
