import Foundation
import ZeaderKit

/// newsboat's configuration directives, read where Zeader has an equivalent, so that a
/// newsboat user's `config` works: `browser` (with `%u`), `auto-reload`/`reload-time`,
/// `reload-threads`, `show-read-feeds`, `show-read-articles`, `feed-sort-order`,
/// `article-sort-order`, `bind-key` with newsboat's action names, `color` and `highlight` lines,
/// `max-items` (retention), `notify-program` (ArticleCommandsConfig). newsboat's other directives, and unknown ones, are
/// warnings naming file:line, never a stop.
///
/// ```swift
/// let config = try ReaderConfig.parse("auto-reload yes\nreload-time 30\nshow-read-feeds no", file: "config")
/// config.refreshIntervalMinutes   // 30
/// ```
extension ReaderConfig {
    /// A newsboat directive (or a warning for one Zeader cannot follow).
    mutating func applyNewsboat(_ directive: String, _ arguments: [String], fail: (String) -> ReaderConfigError) throws {
        func one() throws -> String {
            guard arguments.count == 1 else { throw fail("\(directive) needs one value") }
            return arguments[0]
        }
        func yesNo() throws -> Bool {
            switch try one().lowercased() {
            case "yes", "true": return true
            case "no", "false": return false
            default: throw fail("\(directive) needs yes or no")
            }
        }
        func count(_ range: ClosedRange<Int>) throws -> Int {
            guard let value = Int(try one()), range.contains(value) else {
                throw fail("\(directive) needs a number from \(range.lowerBound) to \(range.upperBound)")
            }
            return value
        }
        /// A whole number outside `range` is brought to its nearest end, with a warning: a
        /// newsboat setting too large for Zeader still starts the reader.
        func clamped(_ range: ClosedRange<Int>) throws -> Int {
            guard let value = Int(try one()) else {
                throw fail("\(directive) needs a number from \(range.lowerBound) to \(range.upperBound)")
            }
            let inRange = min(max(value, range.lowerBound), range.upperBound)
            if inRange != value {
                warnings.append(
                    fail("\(directive) \(value) is outside \(range.lowerBound)–\(range.upperBound); \(inRange) is used"))
            }
            return inRange
        }
        switch directive {
        case "auto-reload":
            autoReload = try yesNo()
            refreshIntervalMinutes = autoReload ? reloadTime : 0
        case "reload-time":
            reloadTime = try count(1...100_000)
            if autoReload { refreshIntervalMinutes = reloadTime }
        case "reload-threads": reloadThreads = try clamped(1...64)
        case "scrolloff":
            guard let rows = Int(try one()), rows >= 0 else { throw fail("scrolloff needs a number of rows (0 or more)") }
            scrolling.scrolloff = min(rows, ListScrolling.widestScrolloff)
        case "wrap-scroll": scrolling.wraps = try yesNo()
        case "swap-title-and-hints": formats.swapTitleAndHints = try yesNo()
        case "search-highlight-colors": try applySearchHighlight(arguments, fail: fail)
        case "show-read-feeds": views.showReadFeeds = try yesNo()
        case "show-read-articles": views.showReadArticles = try yesNo()
        // An order Zeader does not know keeps the default, as newsboat does.
        case "feed-sort-order":
            do { views.feedOrder = try FeedSortOrder(newsboat: try one()) } catch let error as ReaderConfigError.Message {
                warnings.append(fail("\(error.text) (the default order is kept)"))
            }
        case "article-sort-order":
            do { views.itemOrder = try ItemSortOrder(newsboat: try one()) } catch let error as ZeaderError {
                warnings.append(fail("\(error) (the default order is kept)"))
            }
        case _ where NotifySettings.directives.contains(directive):
            do { warnings += try notify.apply(directive, arguments).map { fail($0.text) } } catch { throw fail(error.text) }
        case _ where ListFormats.directives.contains(directive):
            try applyFormat(directive, arguments, fail: fail)
        case _ where Self.filterDirectives.contains(directive):
            applyFilterDirective(directive, arguments, fail: fail)
        default:
            // What Zeader does with each newsboat directive is in one table (NewsboatCompatibility).
            let reason =
                switch NewsboatCompatibility.directive(directive) {
                case .ignored(let why): "newsboat's '\(directive)' is not used: \(why) (line ignored)"
                case .honoured, .honouredAs: "'\(directive)' is not read here (line ignored)"
                case nil: "unknown directive '\(directive)' (line ignored)"
                }
            warnings.append(fail(reason))
        }
    }

    /// `reload-time` until `auto-reload yes` uses it (newsboat's default: 60 minutes).
    var reloadTime: Int {
        get { reloadTimeSetting ?? 60 }
        set { reloadTimeSetting = newValue }
    }

    /// Every problem of the config file at `url`: errors (the reader would stop) and
    /// warnings, in line order; `zeader config check` prints them.
    ///
    /// ```swift
    /// for problem in ReaderConfig.check(at: ReaderConfig.defaultURL()) { print(problem) }
    /// ```
    public static func check(at url: URL) -> [ConfigProblem] {
        guard FileManager.default.fileExists(atPath: url.path) else { return [] }
        guard let text = try? String(contentsOf: url, encoding: .utf8) else {
            return [
                ConfigProblem(isError: true, ReaderConfigError(file: url.path, line: 0, message: "cannot be read as UTF-8 text"))
            ]
        }
        return check(text, file: url.path)
    }

    /// Every problem of config `text`, errors and warnings, in line order.
    public static func check(_ text: String, file: String) -> [ConfigProblem] {
        let (config, errors) = parseCollecting(text, file: file)
        let problems = errors.map { ConfigProblem(isError: true, $0) } + config.warnings.map { ConfigProblem(isError: false, $0) }
        // By line within each file; an included file's problems after those of the file that first names one.
        var files: [String] = []
        for problem in problems where !files.contains(problem.problem.file) { files.append(problem.problem.file) }
        func order(_ p: ConfigProblem) -> (Int, Int) { (files.firstIndex(of: p.problem.file) ?? 0, p.problem.line) }
        return problems.sorted { order($0) < order($1) }
    }

    /// Reads the remembered views (``ViewStateFile``) over the config's, and remembers them there from now on.
    mutating func rememberViews(at url: URL?) {
        viewStateURL = url
        viewsInConfigFile = views
        if let url, let remembered = ViewStateFile.read(from: url, over: views) { views = remembered }
    }

    /// newsboat's directives (``NewsboatCompatibility``), for the `:set` command's messages.
    package static let newsboatDirectives = Set(NewsboatCompatibility.directives.map(\.name))
}

extension ReaderConfigError {
    /// A value's problem, before the file and line are known.
    public struct Message: Error, Equatable {
        public let text: String
        public init(_ text: String) { self.text = text }
    }
}

/// A newsboat `color` line: an element of the screen and its colours.
///
/// ```swift
/// let rule = try ColorRule.parse(["listfocus", "yellow", "blue", "bold"]).get()
/// ```
public struct ColorRule: Equatable, Sendable {
    /// newsboat's elements and the roles of Zeader's screen they colour.
    static let elements: [String: [Style.Role]] = [
        "background": [.normal], "listnormal": [.normal], "listfocus": [.selected], "listnormal_unread": [.unread],
        "listfocus_unread": [.selectedUnread], "info": [.title, .statusBar], "article": [.normal], "hint-key": [.statusBar],
        "hint-keys-delimiter": [.statusBar], "hint-separator": [.statusBar], "hint-description": [.statusBar],
        "end-of-text-marker": [.dim], "title": [.title],
    ]
    static let names = ["black", "red", "green", "yellow", "blue", "magenta", "cyan", "white"]

    public var element: String
    /// Colour numbers; -1 is the terminal's default.
    public var foreground: Int16
    public var background: Int16
    public var attributes: [String]

    public var roles: [Style.Role] { Self.elements[element] ?? [] }

    static func parse(_ words: [String]) -> Result<ColorRule, ReaderConfig.TokenizeError> {
        func color(_ word: String) -> Int16? {
            if word == "default" { return -1 }
            if let index = Self.names.firstIndex(of: word) { return Int16(index) }
            if word.hasPrefix("color"), let n = Int16(word.dropFirst(5)), (0...255).contains(n) { return n }
            return nil
        }
        guard Self.elements[words[0]] != nil else {
            return .failure(
                .init(
                    message:
                        "unknown color element '\(words[0])' (one of: \(Self.elements.keys.sorted().joined(separator: ", ")))"))
        }
        guard let fg = color(words[1]), let bg = color(words[2]) else {
            return .failure(
                .init(message: "unknown color in '\(words[1]) \(words[2])' (default, black … white, color0 … color255)"))
        }
        if let bad = words.dropFirst(3).first(where: { TextAttributes(named: $0) == nil }) {
            return .failure(.init(message: "unknown color attribute '\(bad)'"))
        }
        return .success(ColorRule(element: words[0], foreground: fg, background: bg, attributes: Array(words.dropFirst(3))))
    }

    init(element: String, foreground: Int16, background: Int16, attributes: [String]) {
        self.element = element
        self.foreground = foreground
        self.background = background
        self.attributes = attributes
    }
}
