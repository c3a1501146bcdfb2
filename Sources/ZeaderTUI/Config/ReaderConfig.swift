import Foundation
import ZeaderKit

/// The reader's settings, read from `$XDG_CONFIG_HOME/zeader/config`: one directive per
/// line, `#` starts a comment, arguments may be double-quoted.
///
/// ```text
/// bind-key x delete-feed        # keys: j, ^R, ENTER, SPACE, UP, PGDN …
/// unbind-key d
/// refresh-interval 30           # minutes; 0 turns auto-refresh off
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
    /// The browser command; nil means `$BROWSER`, else `xdg-open`.
    public var browser: String?
    public var smartFeeds: [SmartFeedDefinition] = []
    public var useColor = true
    /// `save-path`, `bookmark-cmd`, `notify-program`, `macro` (``ArticleCommandsConfig``).
    public var articleCommands = ArticleCommandsConfig()

    public init() {}

    /// The config file's path.
    public static func defaultURL(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        ZeaderPaths.configDirectory(environment: environment).appendingPathComponent("config")
    }

    /// Reads the config file at `url` (default: ``defaultURL(environment:)``); a missing
    /// file gives the defaults, a bad line throws an error naming the file and line.
    public static func load(from url: URL? = nil) throws -> ReaderConfig {
        let url = url ?? defaultURL()
        guard FileManager.default.fileExists(atPath: url.path) else { return ReaderConfig() }
        let text: String
        do { text = try String(contentsOf: url, encoding: .utf8) } catch {
            throw ReaderConfigError(file: url.path, line: 0, message: "cannot be read as UTF-8 text")
        }
        return try parse(text, file: url.path)
    }

    /// Parses config text; `file` names it in errors.
    ///
    /// ```swift
    /// let config = try ReaderConfig.parse("bind-key x quit", file: "test")
    /// ```
    public static func parse(_ text: String, file: String) throws -> ReaderConfig {
        var config = ReaderConfig()
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let lineNumber = index + 1
            func fail(_ message: String) -> ReaderConfigError {
                ReaderConfigError(file: file, line: lineNumber, message: message)
            }
            let words = try tokenize(String(rawLine)).get(orThrow: fail)
            guard let directive = words.first else { continue }
            let arguments = Array(words.dropFirst())
            switch directive {
            case "bind-key":
                guard arguments.count == 2 else { throw fail("bind-key needs a key and an action") }
                guard let key = Key(name: arguments[0]) else { throw fail("unknown key '\(arguments[0])'") }
                guard let action = Action(rawValue: arguments[1]) else {
                    throw fail(
                        "unknown action '\(arguments[1])' (one of: \(Action.allCases.map(\.rawValue).joined(separator: ", ")))")
                }
                config.keyMap.bind(key, to: action)
            case "unbind-key":
                guard arguments.count == 1, let key = Key(name: arguments[0]) else { throw fail("unbind-key needs one key") }
                config.keyMap.unbind(key)
            case "refresh-interval":
                guard arguments.count == 1, let minutes = Int(arguments[0]), minutes >= 0 else {
                    throw fail("refresh-interval needs a number of minutes (0 = off)")
                }
                config.refreshIntervalMinutes = minutes
            case "browser":
                guard arguments.count == 1 else { throw fail("browser needs one command (quote it)") }
                config.browser = arguments[0]
            case "color":
                guard arguments.count == 1, ["yes", "no"].contains(arguments[0]) else { throw fail("color needs yes or no") }
                config.useColor = arguments[0] == "yes"
            case "smart-feed":
                // The predicate is kept as written: its own quotes belong to it.
                guard arguments.count >= 2, let predicate = rawRemainder(of: String(rawLine), afterWords: 2) else {
                    throw fail("smart-feed needs a title and a predicate")
                }
                config.smartFeeds.append(SmartFeedDefinition(title: arguments[0], predicateFormat: predicate))
            default:
                do {
                    if try config.articleCommands.apply(directive, arguments) { continue }
                } catch {
                    throw fail(error.message)
                }
                throw fail("unknown directive '\(directive)'")
            }
        }
        return config
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
