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
        let words = first.split(separator: " ").map(String.init)
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
        var pid: pid_t = 0
        var cArguments = argv.map { strdup($0) }
        cArguments.append(nil)
        defer { for pointer in cArguments { free(pointer) } }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
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
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let status = posix_spawnp(&pid, argv[0], &actions, &attributes, cArguments, environ)
        guard status == 0 else {
            return .failure(
                RefusedLink(link: argv.last ?? "", reason: "cannot run \(argv[0]): \(String(cString: strerror(status)))"))
        }
        var exitStatus: Int32 = 0
        while waitpid(pid, &exitStatus, 0) < 0 && errno == EINTR {}
        return .success((exitStatus >> 8) & 0xFF)
    }

    /// Adds "close every descriptor from 3 up" to `actions`: glibc's
    /// `posix_spawn_file_actions_addclosefrom_np` (2.34 and later), done in the child at the
    /// spawn, so a descriptor another thread opens meanwhile is closed too. Looked up at run
    /// time, as Swift's Glibc module does not export it; without it the child inherits what is
    /// not close-on-exec, as before.
    private static func closeDescriptorsFromThree(_ actions: UnsafeMutablePointer<posix_spawn_file_actions_t>) {
        typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np")
        else { return }
        _ = unsafeBitCast(symbol, to: AddCloseFrom.self)(actions, 3)
    }
}
