import Foundation
import Synchronization

/// The one way Zeader runs a program: `argv` as it is (no shell), found on `$PATH`, started
/// as from a shell — it holds only the descriptors it is given as 0 to 2 (none of ours: a
/// signal pipe, libcurl's sockets, the store), every signal at its default and none blocked —
/// with an optional deadline (the whole process group is killed then) and output cap.
///
/// ```swift
/// let counted = try Subprocess.run(["wc", "-l"], input: Data("a\nb\n".utf8), outputLimit: 1024)
/// counted.termination   // .exited(0); counted.output holds "2\n"
/// ```
public enum Subprocess {
    /// Why a program could not be started.
    ///
    /// ```swift
    /// do { _ = try Subprocess.spawn(["zeader-no-such-program"]) } catch { print(error) }   // cannot run zeader-no-such-program: not found
    /// ```
    public enum Failure: Error, Equatable, Sendable, CustomStringConvertible {
        /// The command had no words.
        case emptyCommand
        /// The system refused to start `program`, with its reason.
        case cannotRun(program: String, reason: String)

        public var description: String {
            switch self {
            case .emptyCommand: "no command given"
            case .cannotRun(let program, let reason): "cannot run \(program): \(reason)"
            }
        }
    }

    /// How a program ended.
    ///
    /// ```swift
    /// if case .exited(0) = try Subprocess.run(["true"]).termination { print("done") }
    /// ```
    public enum Termination: Equatable, Sendable, CustomStringConvertible {
        /// It exited with this status.
        case exited(Int32)
        /// A signal ended it.
        case signalled(Int32)

        public var description: String {
            switch self {
            case .exited(let status): "exit status \(status)"
            case .signalled(let signal): "killed by signal \(signal)"
            }
        }
    }

    /// What ``run(_:input:standardOutput:standardError:outputLimit:timeout:)`` saw.
    ///
    /// ```swift
    /// if try Subprocess.run(["true"], timeout: .seconds(5)).timedOut { print("took too long") }
    /// ```
    public struct Outcome: Equatable, Sendable {
        /// How the program ended.
        public var termination: Termination
        /// Its standard output, when captured (at most the limit).
        public var output: Data
        /// It was killed at the deadline.
        public var timedOut: Bool
        /// It was killed for writing more than the output limit.
        public var outputTooLarge: Bool
    }

    /// Starts `argv` with `standardInput`, `standardOutput` and `standardError` as its
    /// descriptors 0, 1 and 2, and nothing else of ours; returns its process id (to wait for
    /// with ``wait(_:)``). `newProcessGroup` makes it lead a group of its own, so that
    /// ``kill(group:)`` ends its children too.
    ///
    /// ```swift
    /// let child = try Subprocess.spawn(["true"])
    /// let termination = Subprocess.wait(child)   // .exited(0)
    /// ```
    public static func spawn(
        _ argv: [String], standardInput: Int32 = 0, standardOutput: Int32 = 1, standardError: Int32 = 2,
        newProcessGroup: Bool = false
    ) throws(Failure) -> pid_t {
        guard let program = argv.first, !program.isEmpty else { throw .emptyCommand }
        var cArguments = argv.map { strdup($0) }
        cArguments.append(nil)
        defer { for pointer in cArguments { free(pointer) } }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        // dup2 onto itself clears close-on-exec, so a descriptor given as its own number is kept.
        posix_spawn_file_actions_adddup2(&actions, standardInput, 0)
        posix_spawn_file_actions_adddup2(&actions, standardOutput, 1)
        posix_spawn_file_actions_adddup2(&actions, standardError, 2)
        closeDescriptorsFromThree(&actions)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        var allSignals = sigset_t()
        sigfillset(&allSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setsigdefault(&attributes, &allSignals)
        var flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF
        if newProcessGroup {
            posix_spawnattr_setpgroup(&attributes, 0)
            flags |= POSIX_SPAWN_SETPGROUP
        }
        posix_spawnattr_setflags(&attributes, Int16(flags))
        var pid: pid_t = 0
        // "Text file busy": a program file some process still holds open for writing (one
        // being saved, or a descriptor a process forking at that moment has yet to close).
        var pause: useconds_t = 10_000
        while true {
            let status = posix_spawnp(&pid, program, &actions, &attributes, cArguments, environ)
            if status == 0 { return pid }
            if status == ETXTBSY && pause <= 160_000 {
                usleep(pause)
                pause *= 2
                continue
            }
            throw .cannotRun(program: program, reason: status == ENOENT ? "not found" : String(cString: strerror(status)))
        }
    }

    /// Waits for `pid` to end (blocking the calling thread: call it from a thread of its own
    /// or through ``run(_:input:standardOutput:standardError:outputLimit:timeout:)``).
    ///
    /// ```swift
    /// Subprocess.wait(try Subprocess.spawn(["false"]))   // .exited(1)
    /// ```
    @discardableResult
    public static func wait(_ pid: pid_t) -> Termination {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { return .exited(-1) }
        }
        let signal = status & 0x7F
        return signal == 0 ? .exited((status >> 8) & 0xFF) : .signalled(signal)
    }

    /// Kills the process group `pid` leads (and `pid` itself, should it have left it).
    ///
    /// ```swift
    /// let child = try Subprocess.spawn(["sleep", "9"], newProcessGroup: true)
    /// Subprocess.kill(group: child)
    /// Subprocess.wait(child)   // .signalled(SIGKILL)
    /// ```
    public static func kill(group pid: pid_t) {
        _ = Glibc.kill(-pid, SIGKILL)
        _ = Glibc.kill(pid, SIGKILL)
    }

    /// Runs `argv` to its end: `input` on its standard input (else /dev/null), its standard
    /// output captured when `outputLimit` is given (killed past it), else to
    /// `standardOutput`; killed with its whole process group at `timeout`. Blocks the calling
    /// thread; see the `async` form for tasks.
    ///
    /// ```swift
    /// let slow = try Subprocess.run(["sh", "-c", "sleep 9"], timeout: .milliseconds(100))   // slow.timedOut
    /// ```
    public static func run(
        _ argv: [String], input: Data? = nil, standardOutput: Int32 = 1, standardError: Int32 = 2,
        outputLimit: Int? = nil, timeout: Duration? = nil
    ) throws(Failure) -> Outcome {
        let nullDevice = open("/dev/null", O_RDWR | O_CLOEXEC)
        defer { if nullDevice >= 0 { close(nullDevice) } }
        let inputPipe = input == nil ? nil : try makePipe(program: argv.first ?? "")
        let outputPipe = outputLimit == nil ? nil : try makePipe(program: argv.first ?? "")
        let pid: pid_t
        do {
            pid = try spawn(
                argv, standardInput: inputPipe?.read ?? nullDevice, standardOutput: outputPipe?.write ?? standardOutput,
                standardError: standardError, newProcessGroup: timeout != nil)
        } catch {
            for descriptor in [inputPipe?.read, inputPipe?.write, outputPipe?.read, outputPipe?.write] {
                if let descriptor { close(descriptor) }
            }
            throw error
        }
        if let inputPipe {
            close(inputPipe.read)
            feed(input ?? Data(), to: inputPipe.write)
        }
        if let outputPipe { close(outputPipe.write) }
        let ended = DispatchSemaphore(value: 0)
        let termination = Mutex<Termination>(.exited(-1))
        Thread.detachNewThread {
            let status = wait(pid)
            termination.withLock { $0 = status }
            ended.signal()
        }
        let deadline = timeout.map { DispatchTime.now() + .nanoseconds(Int($0 / .nanoseconds(1))) }
        var output = Data()
        var timedOut = false
        var tooLarge = false
        if let outputPipe, let outputLimit {
            (output, timedOut, tooLarge) = read(outputPipe.read, limit: outputLimit, deadline: deadline)
            // Killed before its pipe closes, so that it ends by our signal, not a SIGPIPE.
            if timedOut || tooLarge { kill(group: pid) }
            close(outputPipe.read)
        }
        // A program may close its output and go on: the deadline holds for its end too.
        if !timedOut && !tooLarge, let deadline {
            if ended.wait(timeout: deadline) == .timedOut { timedOut = true } else { ended.signal() }
        }
        if timedOut || tooLarge { kill(group: pid) }
        ended.wait()
        return Outcome(
            termination: termination.withLock { $0 }, output: output, timedOut: timedOut, outputTooLarge: tooLarge)
    }

    /// ``run(_:input:standardOutput:standardError:outputLimit:timeout:)`` on a thread of its
    /// own, so that the wait never holds one of the cooperative pool's few threads.
    ///
    /// ```swift
    /// let echoed = try await Subprocess.run(["echo", "3 new articles"], outputLimit: 1024, timeout: .seconds(2))
    /// ```
    public static func run(
        _ argv: [String], input: Data? = nil, standardOutput: Int32 = 1, standardError: Int32 = 2,
        outputLimit: Int? = nil, timeout: Duration? = nil
    ) async throws(Failure) -> Outcome {
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<Outcome, Failure>, Never>) in
            Thread.detachNewThread {
                continuation.resume(
                    returning: Result { () throws(Failure) -> Outcome in
                        try run(
                            argv, input: input, standardOutput: standardOutput, standardError: standardError,
                            outputLimit: outputLimit, timeout: timeout)
                    })
            }
        }
        return try result.get()
    }

    /// A close-on-exec pipe (the child gets its end through the spawn's dup2 only).
    private static func makePipe(program: String) throws(Failure) -> (read: Int32, write: Int32) {
        var descriptors: [Int32] = [-1, -1]
        guard pipe(&descriptors) == 0 else {
            throw .cannotRun(program: program, reason: String(cString: strerror(errno)))
        }
        // Swift's Glibc has no pipe2; a program another thread spawns meanwhile starts with
        // close-from-3 when it is ours, so only a foreign spawn could catch these open.
        for descriptor in descriptors { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
        return (descriptors[0], descriptors[1])
    }

    /// Writes `data` to `descriptor` and closes it, on a thread of its own: a program that
    /// writes before it has read everything would otherwise block us both. A program that
    /// exits without reading it all makes the write fail with EPIPE: SIGPIPE is blocked on
    /// that thread, and the pending signal it leaves is taken back, so it never ends us.
    private static func feed(_ data: Data, to descriptor: Int32) {
        Thread.detachNewThread {
            var pipeSignal = sigset_t()
            sigemptyset(&pipeSignal)
            sigaddset(&pipeSignal, SIGPIPE)
            pthread_sigmask(SIG_BLOCK, &pipeSignal, nil)
            data.withUnsafeBytes { bytes in
                var offset = 0
                while offset < bytes.count {
                    let written = write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                    if written < 0 {
                        if errno == EINTR { continue }
                        break
                    }
                    offset += written
                }
            }
            close(descriptor)
            var noWait = timespec(tv_sec: 0, tv_nsec: 0)
            _ = sigtimedwait(&pipeSignal, nil, &noWait)
        }
    }

    /// Reads `descriptor` to its end, at most `limit` bytes, polling so that the deadline
    /// holds even when a grandchild keeps the pipe open.
    private static func read(_ descriptor: Int32, limit: Int, deadline: DispatchTime?) -> (Data, timedOut: Bool, tooLarge: Bool) {
        var body = Data()
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            var wait: Int32 = 1000
            if let deadline {
                let now = DispatchTime.now().uptimeNanoseconds
                guard deadline.uptimeNanoseconds > now else { return (body, true, false) }
                wait = Int32(min((deadline.uptimeNanoseconds - now) / 1_000_000, 1000)) + 1
            }
            var pollfd = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&pollfd, 1, wait)
            if ready < 0 {
                if errno == EINTR { continue }
                return (body, false, false)
            }
            if ready == 0 { continue }
            let count = Glibc.read(descriptor, &buffer, buffer.count)
            if count < 0 {
                if errno == EINTR { continue }
                return (body, false, false)
            }
            if count == 0 { return (body, false, false) }
            guard body.count + count <= limit else { return (body, false, true) }
            body.append(contentsOf: buffer[0..<count])
        }
    }

    /// Adds "close every descriptor from 3 up" to `actions`: glibc's
    /// `posix_spawn_file_actions_addclosefrom_np` (2.34 and later), done in the child at the
    /// spawn, so a descriptor another thread opens meanwhile is closed too. Looked up at run
    /// time, as Swift's Glibc module does not export it; without it the child inherits what is
    /// not close-on-exec.
    private static func closeDescriptorsFromThree(_ actions: UnsafeMutablePointer<posix_spawn_file_actions_t>) {
        typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np")
        else { return }
        _ = unsafeBitCast(symbol, to: AddCloseFrom.self)(actions, 3)
    }
}
