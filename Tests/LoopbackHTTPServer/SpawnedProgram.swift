import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A program a test starts that inherits none of the test process's descriptors beyond its
/// standard input (`/dev/null`), output and error (a file). For servers that live while other
/// tests run: Foundation's `Process` closes in the child only the descriptors that were open
/// when it listed `/proc/self/fd`, so a socket or pipe another thread opens between that list
/// and the spawn leaks into the child. A server holding another test's listener or pipe keeps
/// that port alive or that pipe without an end of file for as long as it runs.
///
/// Stopped with ``kill()`` (SIGKILL: the test process's threads block SIGTERM, and a child
/// starts with their mask). Nothing else reaps it: `Process` waits for its own children by pid.
///
/// ```swift
/// let server = try SpawnedProgram("/usr/bin/nghttpd", ["--verbose", "0", "key.pem", "cert.pem"], output: log)
/// defer { server.kill() }
/// ```
public final class SpawnedProgram: Sendable {
    public let pid: pid_t
    private let ended = Mutex<Int32?>(nil)

    /// Starts `path` with `arguments`, its output and errors appended to `output`.
    public init(_ path: String, _ arguments: [String], output: URL) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output.path, O_WRONLY | O_CREAT | O_APPEND, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        guard closeFromThree(&actions) else {
            throw SpawnError(message: "posix_spawn_file_actions_addclosefrom_np is missing (glibc 2.34 or later needed)")
        }
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        // The test process blocks signals in its threads: the program must not inherit that
        // mask (it would ignore a SIGTERM), nor ignored dispositions.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        var allSignals = sigset_t()
        sigfillset(&allSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setsigdefault(&attributes, &allSignals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, path, &actions, &attributes, argv, environ)
        guard spawned == 0 else { throw SpawnError(message: "cannot run \(path): \(String(cString: strerror(spawned)))") }
        self.pid = pid
    }

    /// Whether it still runs (reaps it if it has ended).
    public var isRunning: Bool { status(waiting: false) == nil }

    /// How it ended, as `waitpid` reports it (`nil` while it runs).
    public var waitStatus: Int32? { status(waiting: false) }

    /// Waits for it to end by itself; how it ended, as `waitpid` reports it.
    @discardableResult
    public func waitForExit() -> Int32 { status(waiting: true) ?? 0 }

    /// Kills it and waits for it to end.
    public func kill() {
        if isRunning { _ = Glibc.kill(pid, SIGKILL) }
        _ = status(waiting: true)
    }

    /// "exit N", "signal N" or "running".
    public var statusDescription: String {
        guard let status = waitStatus else { return "running" }
        return status & 0x7f == 0 ? "exit \((status >> 8) & 0xff)" : "signal \(status & 0x7f)"
    }

    private func status(waiting: Bool) -> Int32? {
        ended.withLock { ended in
            if ended == nil {
                var status: Int32 = 0
                var result: pid_t
                repeat { result = waitpid(pid, &status, waiting ? 0 : WNOHANG) } while result < 0 && errno == EINTR
                if result == pid { ended = status }
            }
            return ended
        }
    }
}

/// Adds "close every descriptor from 3 up" to `actions` (glibc's
/// `posix_spawn_file_actions_addclosefrom_np`, done in the child at the moment of the spawn,
/// so nothing opened meanwhile by another thread escapes it). Looked up at run time: Swift's
/// Glibc module does not export it. False when this glibc lacks it.
public func closeFromThree(_ actions: UnsafeMutablePointer<posix_spawn_file_actions_t>) -> Bool {
    typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") else {
        return false
    }
    return unsafeBitCast(symbol, to: AddCloseFrom.self)(actions, 3) == 0
}

/// Why a program could not be started.
public struct SpawnError: Error, CustomStringConvertible {
    public let message: String
    public var description: String { message }
}
