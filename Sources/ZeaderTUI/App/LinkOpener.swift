import Feeds
import Foundation

/// Opens links safely: only `http`, `https` and `mailto`, by executing the browser with
/// the URL as its own argument (no shell ever parses it).
///
/// ```swift
/// let argv = try LinkOpener.command(for: "https://swift.org", browser: "lynx -dump")   // ["lynx", "-dump", "https://swift.org"]
/// ```
public enum LinkOpener {
    /// A link that may not be opened.
    public struct RefusedLink: Error, CustomStringConvertible, Equatable {
        public let link: String
        public let reason: String
        public var description: String { "not opening \(link): \(reason)" }
    }

    /// The argument vector to run: the browser's words (config `browser`, else
    /// `$BROWSER`, else `xdg-open`), then the URL, or the URL in place of `%u` (newsboat's form).
    public static func command(
        for link: String, browser: String?, environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(RefusedLink) -> [String] {
        guard !link.contains(where: { $0.isWhitespace || $0.asciiValue.map { $0 < 0x20 || $0 == 0x7F } == true }) else {
            throw RefusedLink(link: link, reason: "it contains spaces or control characters")
        }
        guard let url = URL(string: link), let scheme = url.scheme?.lowercased() else {
            throw RefusedLink(link: link, reason: "not an absolute URL")
        }
        guard ["http", "https", "mailto"].contains(scheme) else {
            throw RefusedLink(link: link, reason: "only http, https and mailto links are opened")
        }
        let chosen = [browser, environment["BROWSER"]].compactMap { $0 }.first { !$0.isEmpty } ?? "xdg-open"
        // $BROWSER may list alternatives separated by ':'; the first one is used.
        let first = chosen.split(separator: ":").first.map(String.init) ?? chosen
        // Split as every other command the user writes (pipe-to, player): quotes group.
        let words = CommandWords.split(first)
        // newsboat's `%u` places the URL (still one argument of its own: no shell quoting needed).
        if words.contains(where: { $0.contains("%u") }) {
            return words.map { $0.replacingOccurrences(of: "%u", with: link) }
        }
        return (words.isEmpty ? ["xdg-open"] : words) + [link]
    }

    /// Runs `argv` and waits for it; returns its exit status, or an error naming the program.
    /// The browser starts as from a shell: it inherits the terminal (descriptors 0 to 2) and
    /// no other descriptor of the reader's (its signal pipe, libcurl's sockets, which a
    /// browser left running in the background would otherwise hold open), no blocked
    /// signals and no ignored ones (the reader ignores SIGPIPE once it has piped to a command).
    public static func run(_ argv: [String]) -> Result<Int32, RefusedLink> {
        do throws(Subprocess.Failure) {
            switch Subprocess.wait(try Subprocess.spawn(argv)) {
            case .exited(let status): return .success(status)
            case .signalled(let signal): return .success(128 + signal)
            }
        } catch {
            return .failure(RefusedLink(link: argv.last ?? "", reason: error.description))
        }
    }
}
