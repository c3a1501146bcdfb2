import Feeds
import Foundation

/// Opens links safely: only `http`, `https` and `mailto`. The config's `browser` runs as
/// newsboat runs it, through `sh -c` with the URL quoted in place of `%u` (``ShellCommand``);
/// with `run-through-shell no`, and for `$BROWSER` and `xdg-open`, the browser's words are
/// executed with the URL as an argument of its own (no shell parses it).
///
/// ```swift
/// let argv = try LinkOpener.command(for: "https://swift.org", browser: "lynx -dump")   // ["/bin/sh", "-c", "lynx -dump 'https://swift.org'"]
/// ```
public enum LinkOpener {
    /// A link that may not be opened.
    public struct RefusedLink: Error, CustomStringConvertible, Equatable {
        public let link: String
        public let reason: String
        public var description: String { "not opening \(link): \(reason)" }
    }

    /// The argument vector to run: the config's `browser` through the shell (unless
    /// `throughShell` is false), else the browser's words (`browser`, else `$BROWSER`, else
    /// `xdg-open`), then the URL, or the URL in place of `%u` (newsboat's form).
    public static func command(
        for link: String, browser: String?, throughShell: Bool = true,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(RefusedLink) -> [String] {
        guard !link.unicodeScalars.contains(where: { $0.properties.isWhitespace || $0.properties.generalCategory == .control })
        else {
            throw RefusedLink(link: link, reason: "it contains spaces or control characters")
        }
        guard let url = URL(string: link), let scheme = url.scheme?.lowercased() else {
            throw RefusedLink(link: link, reason: "not an absolute URL")
        }
        guard ["http", "https", "mailto"].contains(scheme) else {
            throw RefusedLink(link: link, reason: "only http, https and mailto links are opened")
        }
        if throughShell, let browser, !browser.isEmpty {
            do throws(ShellCommand.UnbalancedQuotes) {
                return ShellCommand.argv(try ShellCommand.substituting(link, in: browser))
            } catch {
                throw RefusedLink(link: link, reason: error.description)
            }
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
