import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// newsboat's feeds from programs: `exec:COMMAND` (the program's output is the feed) and
/// `filter:COMMAND:URL` (the feed at URL, passed through the program's standard input
/// and output). The command is split into words (double and single quotes group,
/// a backslash escapes, a leading `~/` is the home folder) and run directly — never
/// through a shell — with the fetcher's total timeout and body cap; a program that fails
/// is reported with its exit status and the first line of its standard error.
///
/// ```swift
/// CommandFeed(subscription: "filter:~/bin/clean --strict:https://example.org/feed")?.argv   // ["/home/u/bin/clean", "--strict"]
/// ```
public struct CommandFeed: Sendable, Equatable {
    /// The program and its arguments.
    public var argv: [String]
    /// For `filter:`, the feed the program reads on its standard input.
    public var sourceURL: URL?

    /// Reads an `exec:` or `filter:` subscription; nil for anything else or an empty command.
    public init?(subscription text: String, environment: [String: String] = ProcessInfo.processInfo.environment) {
        let lowered = text.lowercased()
        let command: Substring
        if lowered.hasPrefix("exec:") {
            command = text.dropFirst(5)
            sourceURL = nil
        } else if lowered.hasPrefix("filter:") {
            let rest = text.dropFirst(7)
            // newsboat splits at the first colon: the command, then the URL.
            guard let colon = rest.firstIndex(of: ":"), let url = URL(string: String(rest[rest.index(after: colon)...])),
                let scheme = url.scheme?.lowercased(), ["http", "https", "file"].contains(scheme)
            else { return nil }
            command = rest[..<colon]
            sourceURL = url
        } else {
            return nil
        }
        var words = CommandWords.split(String(command))
        guard let first = words.first, !first.isEmpty else { return nil }
        if first.hasPrefix("~/") {
            let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
            words[0] = home + first.dropFirst()
        }
        argv = words
    }

    /// Whether `text` is written as an `exec:` or `filter:` subscription.
    public static func isCommand(_ text: String) -> Bool {
        let lowered = text.lowercased()
        return lowered.hasPrefix("exec:") || lowered.hasPrefix("filter:")
    }

    /// The URL a ``FeedRequest`` carries for `text`: the text itself where it is a URL; for
    /// a command (which may hold spaces), the text percent-encoded, which the fetcher decodes.
    ///
    /// ```swift
    /// let request = FeedRequest(url: CommandFeed.requestURL("exec:~/bin/feed --all")!)
    /// ```
    public static func requestURL(_ text: String) -> URL? {
        guard isCommand(text), let colon = text.firstIndex(of: ":") else { return URL(string: text) }
        let scheme = text[..<colon].lowercased()
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "%")
        guard let rest = text[text.index(after: colon)...].addingPercentEncoding(withAllowedCharacters: allowed) else {
            return nil
        }
        return URL(string: scheme + ":" + rest)
    }

    /// The subscription text a request URL of ``requestURL(_:)`` stands for.
    static func subscription(of url: URL) -> String {
        url.absoluteString.removingPercentEncoding ?? url.absoluteString
    }

}

extension FeedFetcher {
    /// Runs an `exec:` or `filter:` feed (see ``CommandFeed``).
    func fetchCommand(_ request: FeedRequest) async -> FetchOutcome {
        guard let command = CommandFeed(subscription: CommandFeed.subscription(of: request.url)) else {
            return .failed(.invalidURL(request.url, reason: "an exec: or filter: feed needs a command (filter: also a URL)"))
        }
        var input: Data? = nil
        if let source = command.sourceURL {
            switch await fetch(FeedRequest(url: source)) {
            case .fetched(let body, _): input = body
            case .failed(let error): return .failed(error)
            case .notModified(let metadata), .gone(let metadata):
                return .failed(.httpStatus(metadata.status, url: source))
            case .deferred(let until, let metadata): return .deferred(until: until, metadata)
            }
        }
        let limit = limits.maxBodySize
        let timeout = TimeInterval(limits.totalMilliseconds) / 1000
        let url = request.url
        let stdin = input
        return await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(returning: Self.run(command, input: stdin, url: url, limit: limit, timeout: timeout))
            }
        }
    }

    /// Runs the program, feeding `input` (if any) to its standard input, and reads its
    /// standard output up to `limit` bytes within `timeout` seconds (then it is killed).
    private static func run(_ command: CommandFeed, input: Data?, url: URL, limit: Int, timeout: TimeInterval)
        -> FetchOutcome
    {
        let launched: Launched
        do {
            launched = try launch(command, feedingInput: input != nil)
        } catch {
            return .failed(.transport(url: url, message: "cannot run \(command.argv[0]): \(reason(error))"))
        }
        let (process, output, errors, feeding) = (launched.process, launched.output, launched.errors, launched.feeding)
        if let input {
            // A thread of its own: a program that writes before it has read everything
            // would otherwise block us both.
            Thread.detachNewThread {
                // A program that exits without reading all of its input must fail its own
                // feed, not end this process: with SIGPIPE blocked on this thread, the write
                // fails with EPIPE, and the signal it leaves pending here is taken back.
                var pipeSignal = sigset_t()
                sigemptyset(&pipeSignal)
                sigaddset(&pipeSignal, SIGPIPE)
                pthread_sigmask(SIG_BLOCK, &pipeSignal, nil)
                let handle = feeding.fileHandleForWriting
                try? handle.write(contentsOf: input)
                try? handle.close()
                var noWait = timespec(tv_sec: 0, tv_nsec: 0)
                _ = sigtimedwait(&pipeSignal, nil, &noWait)
            }
        }
        let stderrText = Mutex<Data>(Data())
        let stderrRead = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            let data = (try? errors.fileHandleForReading.read(upToCount: 4096)) ?? nil
            stderrText.withLock { $0 = data ?? Data() }
            stderrRead.signal()
            _ = try? errors.fileHandleForReading.readToEnd()  // drain, so the program never blocks on it
        }
        let (body, failure) = readOutput(output.fileHandleForReading.fileDescriptor, limit: limit, timeout: timeout)
        if failure != nil, process.isRunning {
            // Its process group too, when Foundation made it a leader: a script's children
            // (a `sleep`, a `curl`) would otherwise outlive it holding the pipes.
            kill(-process.processIdentifier, SIGKILL)
            kill(process.processIdentifier, SIGKILL)
        }
        try? output.fileHandleForReading.close()
        process.waitUntilExit()
        switch failure {
        case .tooLarge: return .failed(.tooLarge(url: url, limit: limit))
        case .timedOut: return .failed(.timedOut(url: url, seconds: timeout, kind: .total))
        case nil: break
        }
        guard process.terminationReason == .exit, process.terminationStatus == 0 else {
            _ = stderrRead.wait(timeout: .now() + 1)
            let firstLine =
                String(decoding: stderrText.withLock { $0 }, as: UTF8.self)
                .split(whereSeparator: \.isNewline).first.map { DisplayWidth.sanitizeForTerminal(String($0)) } ?? ""
            let how =
                process.terminationReason == .exit
                ? "exit status \(process.terminationStatus)" : "killed by signal \(process.terminationStatus)"
            return .failed(
                .transport(url: url, message: "\(command.argv[0]) failed (\(how))" + (firstLine.isEmpty ? "" : ": \(firstLine)")))
        }
        return .fetched(body: body, metadata: FetchMetadata(finalURL: url, status: 200))
    }

    private struct Launched {
        let process: Process
        let output: Pipe
        let errors: Pipe
        let feeding: Pipe
    }

    /// Starts the program with fresh pipes. "Text file busy" (a program file that some
    /// process still holds open for writing: one being saved, or a descriptor a process
    /// forking at that moment has not yet closed on exec) is retried a few times, about
    /// a third of a second in all, before it is the fetch's error.
    private static func launch(_ command: CommandFeed, feedingInput: Bool) throws -> Launched {
        var pause: useconds_t = 10_000
        while true {
            let process = Process()
            if command.argv[0].contains("/") {
                process.executableURL = URL(fileURLWithPath: command.argv[0])
                process.arguments = Array(command.argv.dropFirst())
            } else {
                // Looked up in PATH by env; `--`: a program named like an option is still the program.
                process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
                process.arguments = ["--"] + command.argv
            }
            let launched = Launched(process: process, output: Pipe(), errors: Pipe(), feeding: Pipe())
            process.standardOutput = launched.output
            process.standardError = launched.errors
            process.standardInput = feedingInput ? launched.feeding : FileHandle.nullDevice
            do {
                try process.run()
                return launched
            } catch  where posixCode(error) == ETXTBSY && pause <= 160_000 {
                usleep(pause)
                pause *= 2
            }
        }
    }

    /// The POSIX error behind a Foundation error (Process reports one as its underlying error).
    private static func posixCode(_ error: any Error) -> Int32? {
        let error = error as NSError
        if error.domain == NSPOSIXErrorDomain { return Int32(error.code) }
        return (error.userInfo[NSUnderlyingErrorKey] as? NSError).flatMap { posixCode($0) }
    }

    /// What went wrong, in the system's words when there is a POSIX error behind it.
    private static func reason(_ error: any Error) -> String {
        posixCode(error).map { String(cString: strerror($0)) } ?? error.localizedDescription
    }

    private enum OutputFailure { case tooLarge, timedOut }

    /// Reads `descriptor` to its end, at most `limit` bytes, polling so that the deadline
    /// holds even when a grandchild keeps the pipe open.
    private static func readOutput(_ descriptor: Int32, limit: Int, timeout: TimeInterval) -> (Data, OutputFailure?) {
        let deadline = Date().addingTimeInterval(timeout)
        var body = Data()
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { return (body, .timedOut) }
            var pollfd = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&pollfd, 1, Int32(min(left, 1) * 1000) + 1)
            if ready < 0 {
                if errno == EINTR { continue }
                return (body, nil)
            }
            if ready == 0 { continue }
            let count = read(descriptor, &buffer, buffer.count)
            if count < 0 {
                if errno == EINTR { continue }
                return (body, nil)
            }
            if count == 0 { return (body, nil) }
            guard body.count + count <= limit else { return (body, .tooLarge) }
            body.append(contentsOf: buffer[0..<count])
        }
    }
}
