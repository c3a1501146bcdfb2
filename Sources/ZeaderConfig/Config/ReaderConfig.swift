import Foundation
import ZeaderKit

/// The reader's settings, read from `$XDG_CONFIG_HOME/zeader/config`: one directive per
/// line, `#` starts a comment, arguments may be double-quoted.
///
/// ```text
/// bind-key x delete-feed        # keys: j, ^R, ENTER, SPACE, UP, PGDN …
/// unbind-key d
/// refresh-interval 30           # minutes; 0 turns auto-refresh off
/// sync-interval 2               # with a sync account: minutes (or 30s) between syncs; 0 = off
/// browser lynx                  # else $BROWSER, else xdg-open
/// smart-feed "Swift" read == NO AND title CONTAINS[cd] "swift"
/// color no                      # like NO_COLOR
/// ```
///
/// ```swift
/// let config = try ReaderConfig.load()   // the defaults when there is no file
/// ```
public struct ReaderConfig: Equatable, Sendable {
    /// A smart feed from the config file (stored ones come from the database).
    public struct SmartFeedDefinition: Equatable, Sendable {
        public var title: String
        public var predicateFormat: String
    }

    public var keyMap = KeyMap.default
    /// Minutes between automatic refreshes of all feeds; 0 = never.
    public var refreshIntervalMinutes = 0
    /// Seconds between the reader's syncs when the store has a sync account; 0 = never.
    /// `sync-interval 5` (minutes) or `sync-interval 30s`; five minutes by default.
    public var syncIntervalSeconds = ReaderConfig.defaultSyncIntervalSeconds
    /// The browser command; nil means `$BROWSER`, else `xdg-open`.
    public var browser: String?
    /// `run-through-shell no`: `browser` is split into words and executed with no shell, the
    /// URL an argument of its own; by default it runs through `sh -c` as newsboat runs it.
    public var runThroughShell = true
    public var smartFeeds: [SmartFeedDefinition] = []
    public var useColor = true
    // newsboat's directives: ReaderConfig+Newsboat.swift.
    /// Problems that do not stop the reader (unknown directives, newsboat's settings without an
    /// equivalent), each naming file:line; the reader shows the first on its status line.
    public var warnings: [ReaderConfigError] = []
    /// The lists' views as the config sets them (`show-read-feeds`, `feed-sort-order`…).
    public var views = ViewOptions()
    /// `full-article URL|tag:NAME|*`: feeds whose new items' full articles every refresh fetches,
    /// besides those marked in the store (``FullArticles``).
    public var fullArticleScopes: [FeedScope] = []
    /// `article-selector SITE SELECTOR`: sites' rules for their pages' full articles.
    public var articleSelectors: [ArticleSelectorRule] = []
    /// `always-download URL…` (newsboat's): feeds fetched whole at every refresh.
    public var alwaysDownload: Set<String> = []
    /// Where the reader remembers the views it was left with; nil: nowhere.
    public var viewStateURL: URL?
    /// The views as the config file alone sets them (``views`` has the remembered ones over
    /// them): what the state file records a choice against (``ViewStateFile``).
    public var viewsInConfigFile = ViewOptions()
    /// `reload-threads`: feeds fetched at a time by the reader's refresh; nil: the default.
    public var reloadThreads: Int?
    /// `color ELEMENT FG BG [ATTR…]` lines, newsboat's form.
    public var colorRules: [ColorRule] = []
    /// `highlight TARGET REGEX FG [BG [ATTR…]]` lines, newsboat's form (HighlightRule.swift).
    public var highlightRules: [HighlightRule] = []
    /// The lists' and titles' format strings, `datetime-format`, `text-width` (ReaderConfig+Formats.swift).
    public var formats = ListFormats()
    var autoReload = false
    var reloadTimeSetting: Int?
    /// `download-path`, `podcast-max-size`, `player` (see ``PodcastSettings``).
    public var podcasts = PodcastSettings()
    /// `max-items`, `keep-days`, `cleanup-keeps`, `cleanup-on-quit` (``RetentionPolicy``).
    public var retention = RetentionPolicy()
    /// `ignore SCOPE PREDICATE` lines: killfile rules (``Killfile``).
    public var ignoreRules: [Killfile.Rule] = []
    /// `rule PREDICATE -> ACTION…`: the rules that act on new items, in order (``ItemRules``;
    /// a rule whose one action is `ignore` is in ``ignoreRules``).
    public var itemRules: [ItemRules.Rule] = []
    /// `define-filter NAME FILTER` and `highlight-article` lines (ReaderConfig+NewsboatFilters.swift).
    public var definedFilters: [SmartFeedDefinition] = []
    public var articleHighlights: [ArticleHighlight] = []
    /// `save-path`, `bookmark-cmd`, `notify-program`, `macro` (``ArticleCommandsConfig``).
    public var articleCommands = ArticleCommandsConfig()
    /// `confirm-exit`, `refresh-on-startup`, `user-agent` and newsboat's other settings of how
    /// the reader behaves (``ReaderBehaviour``).
    public var behaviour = ReaderBehaviour()
    /// `search-highlight-colors`: the colours of the searched words in an article (``SearchHighlight``).
    public var searchHighlight: SearchHighlight?
    /// `scrolloff`, `wrap-scroll`: how the cursor moves in lists (``ListScrolling``).
    public var scrolling = ListScrolling()
    /// `notify-format`, `notify-always` and the terminal's signals (``NotifySettings``).
    public var notify = NotifySettings()
    /// `ca-file`: extra CA certificates for https (ReaderConfig+Trust.swift).
    public var caFile: String?
    /// `image-display`, `image-viewer`, `image-cache-size` (``PictureSettings``).
    public var pictures = PictureSettings()
    /// `feed SCOPE < key value; …` lines, and the global network directives (ReaderConfig+FeedSettings.swift).
    public var feedSettings = FeedSettingsScopes()
    public var networkSettings = FeedSettings()

    public init() {}

    /// The reader's sync interval when the config sets none: five minutes.
    ///
    /// ```swift
    /// ReaderConfig().syncIntervalSeconds == ReaderConfig.defaultSyncIntervalSeconds  // true
    /// ```
    public static let defaultSyncIntervalSeconds = 300

    /// The longest interval a timer is set to (a year): a larger number means "hardly ever",
    /// not an overflow.
    package static let longestIntervalSeconds = 365 * 24 * 3600

    /// `sync-interval`'s value in seconds: `5` or `5m` (minutes), `30s` (seconds), either case;
    /// nil when it is not a whole number of them (negative, a fraction, another unit).
    ///
    /// ```swift
    /// ReaderConfig.intervalSeconds("30s")  // 30
    /// ```
    static func intervalSeconds(_ text: String) -> Int? {
        var digits = Substring(text.lowercased())
        var unit = 60
        if digits.hasSuffix("s") {
            unit = 1
            digits = digits.dropLast()
        } else if digits.hasSuffix("m") {
            digits = digits.dropLast()
        }
        guard !digits.isEmpty, digits.allSatisfy(\.isASCII), digits.allSatisfy(\.isNumber) else { return nil }
        // Digits past Int's range are "hardly ever" too.
        guard let value = Int(digits) else { return longestIntervalSeconds }
        return min(value, longestIntervalSeconds / unit) * unit
    }

    /// The config file's path.
    public static func defaultURL(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        ZeaderPaths.configDirectory(environment: environment).appendingPathComponent("config")
    }

    /// Reads the config file at `url` (default: ``defaultURL(environment:)``); a missing
    /// file gives the defaults, a bad line throws an error naming the file and line.
    public static func load(from url: URL? = nil) throws -> ReaderConfig {
        let url = url ?? defaultURL()
        let viewState = url == defaultURL() ? ViewStateFile.defaultURL() : nil
        guard FileManager.default.fileExists(atPath: url.path) else {
            var config = ReaderConfig()
            config.rememberViews(at: viewState)
            return config
        }
        let text: String
        do { text = try String(contentsOf: url, encoding: .utf8) } catch {
            throw ReaderConfigError(file: url.path, line: 0, message: "cannot be read as UTF-8 text")
        }
        var config = try parse(text, file: url.path)
        config.rememberViews(at: viewState)
        return config
    }

    /// Where a `bind-key`/`unbind-key` line holds: every view, or one (``KeyView``).
    enum BindingScope {
        case everyView
        case view(KeyView)

        /// The view for ``KeyMap``, nil for every view.
        var view: KeyView? {
            if case .view(let view) = self { view } else { nil }
        }
    }

    /// The scope a line's view word names; nil, after a warning, for a view Zeader has no
    /// screen for (the file browsers).
    static func bindingScope(
        _ word: String?, warnings: inout [ReaderConfigError], fail: (String) -> ReaderConfigError
    ) throws -> BindingScope? {
        guard let word, word != "all" else { return .everyView }
        // A view newer newsboat may add loses only its own line.
        guard let view = KeyView(rawValue: word) else {
            warnings.append(
                fail(
                    "unknown view '\(word)' (one of: all, \(KeyView.allCases.map(\.rawValue).joined(separator: ", "))) (line ignored)"
                ))
            return nil
        }
        if [.filebrowser, .dirbrowser].contains(view) {
            warnings.append(fail("Zeader has no \(word) screen (line ignored)"))
            return nil
        }
        return .view(view)
    }

    /// The warning of a key name Zeader does not know: newsboat takes any name and binds
    /// nothing, so the line is ignored and the rest of the config still holds.
    ///
    /// ```swift
    /// ReaderConfig.unknownKey("F13")   // "unknown key 'F13' (…) (line ignored)"
    /// ```
    static func unknownKey(_ name: String) -> String {
        "unknown key '\(name)' (a character, ^A … ^Z, ENTER, SPACE, TAB, ESC, BACKSPACE, UP, DOWN, LEFT, RIGHT,"
            + " PPAGE, NPAGE, HOME, END, F1 … F12) (line ignored)"
    }

    /// Whether `directive` is one of newsboat's settings of one value, of which newsboat reads
    /// the first word and drops the others (an unquoted format or command): not its commands
    /// of several words (keys, colours, filters, lists of URLs).
    static func takesOneValue(_ directive: String) -> Bool {
        NewsboatCompatibility.directive(directive)?.isHonoured == true && !severalWords.contains(directive)
    }

    /// newsboat's directives that read every word after them.
    static let severalWords: Set<String> = [
        "bind-key", "unbind-key", "bind", "macro", "color", "highlight", "highlight-article", "ignore-article",
        "define-filter", "always-download", "run-on-startup", "include", "search-highlight-colors", "browser",
        "reset-unread-on-update", "opml-url",
    ]

    /// The warning of a setting written with more than one value.
    ///
    /// ```swift
    /// ReaderConfig.onlyFirstValue("articlelist-format", "%4i")   // "articlelist-format takes one value: …"
    /// ```
    static func onlyFirstValue(_ directive: String, _ first: String) -> String {
        "\(directive) takes one value: '\(first)' is used and the words after it are not, as newsboat does"
            + " (quote a value that holds spaces)"
    }

    /// Parses config text; `file` names it in errors.
    ///
    /// ```swift
    /// let config = try ReaderConfig.parse("bind-key x quit", file: "test")
    /// ```
    public static func parse(_ text: String, file: String) throws -> ReaderConfig {
        let (config, errors) = parseCollecting(text, file: file)
        if let first = errors.first { throw first }
        return config
    }

    /// Parses every line, collecting each bad line's error (``check(_:file:)`` reports them all).
    static func parseCollecting(_ text: String, file: String) -> (ReaderConfig, [ReaderConfigError]) {
        var config = ReaderConfig()
        var errors: [ReaderConfigError] = []
        config.read(text, chain: [file], errors: &errors)
        return (config, errors)
    }

    /// Applies every line of `text`, the last file of `chain` (the files being read, an
    /// `include`'s first: ReaderConfig+Include.swift), collecting each bad line's error.
    mutating func read(_ text: String, chain: [String], errors: inout [ReaderConfigError]) {
        let file = chain.last ?? ""
        // Files written on Windows (CRLF line ends, a byte order mark) read as any other.
        let text = text.hasPrefix("\u{FEFF}") ? String(text.dropFirst()) : text
        let lines = text.split(omittingEmptySubsequences: false) { $0 == "\n" || $0 == "\r\n" || $0 == "\r" }
        for (index, rawLine) in lines.enumerated() {
            let lineNumber = index + 1
            func fail(_ message: String) -> ReaderConfigError {
                ReaderConfigError(file: file, line: lineNumber, message: message)
            }
            do {
                let words = try Self.tokenize(String(rawLine)).get(orThrow: fail)
                if words.first == "include" {
                    try include(Array(words.dropFirst()), chain: chain, fail: fail, errors: &errors)
                } else {
                    try apply(String(rawLine), file: file, line: lineNumber, fail: fail)
                }
            } catch let error as ReaderConfigError {
                errors.append(error)
            } catch {
                errors.append(fail("\(error)"))
            }
        }
    }

    /// Applies one line of the config file.
    private mutating func apply(
        _ rawLine: String, file: String, line lineNumber: Int, fail: (String) -> ReaderConfigError
    ) throws {
        var config = self
        defer { self = config }
        let words = try Self.tokenize(String(rawLine)).get(orThrow: fail)
        guard let directive = words.first else { return }
        var arguments = Array(words.dropFirst())
        if arguments.count > 1, Self.takesOneValue(directive) {
            config.warnings.append(fail(Self.onlyFirstValue(directive, arguments[0])))
            arguments = [arguments[0]]
        }
        switch directive {
        case "bind-key":
            // newsboat's optional third word names the view the binding holds in (`all`: every one).
            guard arguments.count == 2 || arguments.count == 3 else { throw fail("bind-key needs a key and an action") }
            guard let key = Key(name: arguments[0]) else { return config.warnings.append(fail(Self.unknownKey(arguments[0]))) }
            guard let scope = try Self.bindingScope(arguments.dropFirst(2).first, warnings: &config.warnings, fail: fail) else {
                return
            }
            switch Action.resolve(configName: arguments[1]) {
            case .success(let action): config.keyMap.bind(key, to: action, in: Action.podboatView(for: action, in: scope.view))
            case .failure(let problem): config.warnings.append(fail("\(problem.message) (line ignored)"))
            }
        case "bind": try config.applyBind(arguments, fail: fail)  // newsboat's newer form (ReaderConfig+Bind.swift)
        case "unbind-key":
            // As with bind-key, newsboat's optional view word; `-a` unbinds every key.
            guard arguments.count == 1 || arguments.count == 2 else { throw fail("unbind-key needs one key, or -a") }
            guard let scope = try Self.bindingScope(arguments.dropFirst().first, warnings: &config.warnings, fail: fail) else {
                return
            }
            if arguments[0] == "-a" {
                config.keyMap.unbindAll()
            } else if let key = Key(name: arguments[0]) {
                config.keyMap.unbind(key, in: scope.view)
            } else {
                config.warnings.append(fail(Self.unknownKey(arguments[0])))
            }
        case "refresh-interval":
            guard arguments.count == 1, let minutes = Int(arguments[0]), minutes >= 0 else {
                throw fail("refresh-interval needs a number of minutes (0 = off)")
            }
            config.refreshIntervalMinutes = minutes
        case "sync-interval":
            guard arguments.count == 1, let seconds = Self.intervalSeconds(arguments[0]) else {
                throw fail("sync-interval needs a number of minutes, or of seconds ending in s (0 = off): 5, 30s")
            }
            config.syncIntervalSeconds = seconds
        case "browser":
            // Unquoted words (`browser firefox %u`) are one command, as newsboat reads them.
            guard !arguments.isEmpty else { throw fail("browser needs a command") }
            config.browser = arguments.joined(separator: " ")
        case "run-through-shell":
            guard arguments.count == 1, let yes = ["yes": true, "no": false][arguments[0].lowercased()] else {
                throw fail("run-through-shell needs yes or no")
            }
            config.runThroughShell = yes
        case "color":
            if arguments.count >= 3 {
                // An element, colour or attribute of a newer newsboat loses only its own line.
                switch ColorRule.parse(arguments) {
                case .success(let rule): config.colorRules.append(rule)
                case .failure(let problem): config.warnings.append(fail("\(problem.message) (line ignored)"))
                }
                return
            }
            guard arguments.count == 1, ["yes", "no"].contains(arguments[0]) else {
                throw fail("color needs yes or no, or newsboat's ELEMENT FOREGROUND BACKGROUND [ATTRIBUTE…]")
            }
            config.useColor = arguments[0] == "yes"
        case "highlight":
            // A highlight Zeader cannot read (a regular expression ICU refuses) only loses its colour.
            switch HighlightRule.parse(arguments) {
            case .success(let rule): config.highlightRules.append(rule)
            case .failure(let problem): config.warnings.append(fail("\(problem.message) (line ignored)"))
            }
        case "smart-feed":
            // The predicate is kept as written: its own quotes belong to it.
            guard arguments.count >= 2, let predicate = Self.rawRemainder(of: String(rawLine), afterWords: 2) else {
                throw fail("smart-feed needs a title and a predicate")
            }
            config.smartFeeds.append(SmartFeedDefinition(title: arguments[0], predicateFormat: predicate))
        case _ where Self.podboatDirectives.contains(directive):
            try config.applyPodboat(directive, arguments, fail: fail)
        case "ignore":
            // newsboat's ignore-article: a scope (*, a feed URL, tag:NAME), then the predicate as written.
            guard arguments.count >= 2, let predicate = Self.rawRemainder(of: String(rawLine), afterWords: 2) else {
                throw fail("ignore needs a scope (*, a feed URL or tag:NAME) and a predicate")
            }
            let rule = Killfile.Rule(scope: FeedScope(parsing: arguments[0]), predicateFormat: predicate)
            do { _ = try Killfile.compile(rule) } catch { throw fail(error.description) }
            config.ignoreRules.append(rule)
        case "rule":
            guard let text = Self.rawRemainder(of: String(rawLine), afterWords: 1) else {
                throw fail("rule needs a predicate, ->, and actions")
            }
            try config.applyRule(text, fail: fail)
        case _ where RetentionPolicy.directives.contains(directive):
            do { try config.retention.apply(directive: directive, arguments: arguments) } catch { throw fail(error.message) }
        case _ where ReaderBehaviour.directives.contains(directive):
            do {
                if let warning = try config.behaviour.apply(directive, arguments) { config.warnings.append(fail(warning.text)) }
            } catch {
                throw fail(error.text)
            }
        case _ where PictureSettings.directives.contains(directive):
            do { _ = try config.pictures.apply(directive, arguments) } catch { throw fail(error.message) }
        case _ where Self.isFeedSettingsDirective(directive):
            try config.applyFeedSettings(directive, arguments, rawLine: rawLine, fail: fail)
        case "ca-file":
            config.caFile = try Self.trustedCAFile(arguments).mapError { fail($0.message) }.get()
        case "download-full-page":
            // newsboat's page for items without content: Zeader's full article of every feed.
            guard arguments.count == 1, let yes = ["yes": true, "no": false][arguments[0].lowercased()] else {
                throw fail("download-full-page needs yes or no")
            }
            if yes { config.fullArticleScopes.append(.all) }
        case "full-article":
            guard arguments.count == 1 else { throw fail("full-article needs one feed URL, tag:NAME, or * (every feed)") }
            config.fullArticleScopes.append(FeedScope(parsing: arguments[0]))
        case "always-download":
            guard !arguments.isEmpty else { throw fail("always-download needs one or more feed URLs") }
            // Quoted URLs in real configs carry stray spaces.
            config.alwaysDownload.formUnion(arguments.map { $0.trimmingCharacters(in: .whitespaces) })
        case "article-selector":
            // The selector may be written unquoted, with its spaces.
            guard arguments.count >= 2 else {
                throw fail("article-selector needs a site (a host, a feed URL, tag:NAME or *) and a CSS selector")
            }
            do {
                config.articleSelectors.append(
                    try ArticleSelectorRule(site: arguments[0], selector: arguments.dropFirst().joined(separator: " ")))
            } catch {
                throw fail(error.description)
            }
        case "keep-articles-days":
            // newsboat's name for keep-days.
            do { try config.retention.apply(directive: "keep-days", arguments: arguments) } catch {
                throw fail(error.message.replacingOccurrences(of: "keep-days", with: "keep-articles-days"))
            }
        default:
            // `save-path`, `bookmark-cmd`, `notify-program`, `macro` (ArticleCommandsConfig).
            do {
                if try config.articleCommands.apply(directive, arguments) { return }
            } catch {
                guard error.isWarning else { throw fail(error.message) }
                config.warnings.append(fail(error.message))
                return
            }
            try config.applyNewsboat(directive, arguments, fail: fail)
        }
    }

    /// The text of `line` after its first `count` words (quoted words count as one),
    /// trimmed; nil when nothing follows.
    static func rawRemainder(of line: String, afterWords count: Int) -> String? {
        var index = line.startIndex
        for _ in 0..<count {
            while index < line.endIndex, line[index].isWhitespace { index = line.index(after: index) }
            var quoted = false
            while index < line.endIndex {
                let c = line[index]
                if quoted {
                    if c == "\\" { index = line.index(after: index) } else if c == "\"" { quoted = false }
                } else if c == "\"" {
                    quoted = true
                } else if c.isWhitespace {
                    break
                }
                if index < line.endIndex { index = line.index(after: index) }
            }
        }
        let rest = line[index...].trimmingCharacters(in: .whitespaces)
        return rest.isEmpty ? nil : rest
    }

    /// Splits a line into words: double quotes group (with `\"` inside), `#` outside
    /// quotes starts a comment.
    static func tokenize(_ line: String) -> Result<[String], TokenizeError> {
        var words: [String] = []
        var current = ""
        var inWord = false
        var quoted = false
        var iterator = line.makeIterator()
        while let c = iterator.next() {
            if quoted {
                if c == "\\", let next = iterator.next() {
                    current.append(next)
                } else if c == "\"" {
                    quoted = false
                } else {
                    current.append(c)
                }
            } else if c == "\"" {
                quoted = true
                inWord = true
            } else if c == "#" && !inWord {
                break
            } else if c.isWhitespace {
                if inWord { words.append(current) }
                current = ""
                inWord = false
            } else {
                current.append(c)
                inWord = true
            }
        }
        if quoted { return .failure(TokenizeError(message: "unterminated quote")) }
        if inWord { words.append(current) }
        return .success(words)
    }

    struct TokenizeError: Error { let message: String }
}

extension Result where Failure == ReaderConfig.TokenizeError {
    fileprivate func get(orThrow fail: (String) -> ReaderConfigError) throws -> Success {
        switch self {
        case .success(let value): return value
        case .failure(let error): throw fail(error.message)
        }
    }
}

/// A bad config file line.
///
/// ```swift
/// catch let error as ReaderConfigError { print(error) }   // "config:3: unknown key 'XYZ'"
/// ```
public struct ReaderConfigError: Error, CustomStringConvertible, Equatable {
    public let file: String
    public let line: Int
    public let message: String
    public var description: String { "\(file):\(line): \(message)" }
}

/// A line of the config file that `zeader config check` reports: an error stops the reader, a
/// warning is a line the reader ignores (a newsboat setting without an equivalent).
///
/// ```swift
/// ReaderConfig.check("frobnicate 1\n", file: "config")[0].description   // "config:1: warning: unknown directive …"
/// ```
public struct ConfigProblem: CustomStringConvertible, Equatable, Sendable {
    /// Whether the reader stops on it.
    public let isError: Bool
    /// Where it is and what is wrong.
    public let problem: ReaderConfigError

    init(isError: Bool, _ problem: ReaderConfigError) {
        self.isError = isError
        self.problem = problem
    }

    /// `FILE:LINE: error: MESSAGE` or `…: warning: …`, the form editors read as a location.
    public var description: String {
        "\(problem.file):\(problem.line): \(isError ? "error" : "warning"): \(problem.message)"
    }
}
