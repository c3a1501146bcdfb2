import ArgumentParser
import Feeds
import Foundation

/// `zeader parse FILE [--base-url URL]`: parses one feed file and prints the JSON of
/// DESIGN.md's contract on stdout.
///
/// ```sh
/// zeader parse feed.xml --base-url https://example.org/feed.xml | jq .title
/// ```
struct ParseCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "parse",
        abstract: "Parse one feed file (RSS, RDF, Atom or JSON Feed) and print it as JSON.")

    @Argument(help: "The feed file to parse.")
    var file: String

    @Option(
        name: .customLong("base-url"),
        help: ArgumentHelp(
            "The feed's URL: relative links are resolved against it (after any xml:base).",
            valueName: "URL"))
    var baseURL: String?

    func validate() throws {
        if let baseURL, URL(string: baseURL)?.scheme == nil {
            throw ValidationError("--base-url '\(baseURL)' is not an absolute URL")
        }
    }

    func run() throws {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: file), options: .alwaysMapped)
        } catch {
            FileHandle.standardError.write(Data("zeader parse: cannot read \(file): \(Self.reason(error))\n".utf8))
            throw ExitCode.failure
        }
        do {
            let feed = try FeedParser.parse(data: data, url: baseURL.flatMap { URL(string: $0) })
            feed.writeContractJSON { chunk in Self.writeToStandardOutput(chunk) }
        } catch {
            let message = baseURL == nil ? "\(file): \(error.withoutSubject)" : "\(error)"
            FileHandle.standardError.write(Data("zeader parse: \(Self.oneLine(message))\n".utf8))
            throw ExitCode.failure
        }
    }

    /// Writes all of `bytes` to file descriptor 1 (no stdio buffer in between).
    private static func writeToStandardOutput(_ bytes: UnsafeRawBufferPointer) {
        guard var pointer = bytes.baseAddress else { return }
        var remaining = bytes.count
        while remaining > 0 {
            let written = write(STDOUT_FILENO, pointer, remaining)
            if written < 0 {
                if errno == EINTR { continue }
                return  // stdout closed (e.g. a pipe to `head`): nothing more to do
            }
            pointer += written
            remaining -= written
        }
    }

    private static func reason(_ error: Error) -> String {
        let nsError = error as NSError
        if let underlying = nsError.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain,
            let code = POSIXErrorCode(rawValue: Int32(underlying.code))
        {
            return String(cString: strerror(code.rawValue))
        }
        return oneLine(nsError.localizedDescription)
    }

    private static func oneLine(_ text: String) -> String {
        text.split(whereSeparator: \.isNewline).joined(separator: " ")
    }
}

extension FeedParseError {
    /// The description without the feed's name (the caller names the file).
    fileprivate var withoutSubject: String {
        let full = FeedParseError(reason, url: nil).description
        return full.hasPrefix("feed: ") ? String(full.dropFirst(6)) : full
    }
}
