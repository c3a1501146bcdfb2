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
        words[0] = HomePath.expanding(first, environment: environment)
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
    /// standard output up to `limit` bytes within `timeout` seconds (then it is killed, with
    /// its process group: a script's children would otherwise outlive it holding the pipes).
    private static func run(_ command: CommandFeed, input: Data?, url: URL, limit: Int, timeout: TimeInterval)
        -> FetchOutcome
    {
        var errors: [Int32] = [-1, -1]
        guard pipe(&errors) == 0 else {
            return .failed(.transport(url: url, message: "cannot run \(command.argv[0]): \(String(cString: strerror(errno)))"))
        }
        for descriptor in errors { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
        let stderrText = Mutex<Data>(Data())
        let stderrRead = DispatchSemaphore(value: 0)
        let errorOutput = errors[0]
        Thread.detachNewThread {
            var buffer = [UInt8](repeating: 0, count: 4096)
            var count = read(errorOutput, &buffer, buffer.count)
            while count < 0 && errno == EINTR { count = read(errorOutput, &buffer, buffer.count) }
            stderrText.withLock { $0 = Data(buffer[0..<max(count, 0)]) }
            stderrRead.signal()
            // Drained to its end, so the program never blocks on it.
            while count > 0 || (count < 0 && errno == EINTR) { count = read(errorOutput, &buffer, buffer.count) }
            close(errorOutput)
        }
        let outcome: Subprocess.Outcome
        do {
            outcome = try Subprocess.run(
                command.argv, input: input, standardError: errors[1], outputLimit: limit,
                timeout: .milliseconds(Int64(timeout * 1000)))
            close(errors[1])
        } catch {
            close(errors[1])
            return .failed(.transport(url: url, message: error.description))
        }
        if outcome.outputTooLarge { return .failed(.tooLarge(url: url, limit: limit)) }
        if outcome.timedOut { return .failed(.timedOut(url: url, seconds: timeout, kind: .total)) }
        guard outcome.termination == .exited(0) else {
            _ = stderrRead.wait(timeout: .now() + 1)
            let firstLine =
                String(decoding: stderrText.withLock { $0 }, as: UTF8.self)
                .split(whereSeparator: \.isNewline).first.map { DisplayWidth.sanitizeForTerminal(String($0)) } ?? ""
            return .failed(
                .transport(
                    url: url,
                    message: "\(command.argv[0]) failed (\(outcome.termination))" + (firstLine.isEmpty ? "" : ": \(firstLine)")))
        }
        return .fetched(body: outcome.output, metadata: FetchMetadata(finalURL: url, status: 200))
    }
}
