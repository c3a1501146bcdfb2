import Foundation

/// Where the reader remembers its views between runs (`l`, `L`, `g`/`G` choices):
/// `$XDG_STATE_HOME/zeader/views` (else `~/.local/state/zeader/views`): what the user chose
/// in the reader, in the config file's syntax with the config's value it was chosen over
/// (`show-read-feeds no yes`), read over the config only while the config still says that.
///
/// ```swift
/// try ViewStateFile.write(state.views, to: ViewStateFile.defaultURL())
/// ```
public enum ViewStateFile {
    public static func defaultURL(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        let base =
            environment["XDG_STATE_HOME"].flatMap { $0.hasPrefix("/") ? URL(fileURLWithPath: $0) : nil }
            ?? URL(fileURLWithPath: environment["HOME"] ?? NSHomeDirectory()).appendingPathComponent(".local/state")
        return base.appendingPathComponent("zeader").appendingPathComponent("views")
    }

    /// The four views the file keeps, each as the config line's value (`show-read-feeds no`,
    /// `feed-sort-order title-asc`).
    static func values(_ views: ViewOptions) -> [(directive: String, value: String)] {
        [
            ("show-read-feeds", views.showReadFeeds ? "yes" : "no"),
            ("show-read-articles", views.showReadArticles ? "yes" : "no"),
            ("feed-sort-order", "\(views.feedOrder.field.rawValue)-\(views.feedOrder.ascending ? "asc" : "desc")"),
            ("article-sort-order", "\(views.itemOrder.field.rawValue)-\(views.itemOrder.ascending ? "asc" : "desc")"),
        ]
    }

    /// The file's text: each view the reader was left with that differs from the config's,
    /// with the config's value it was chosen over as the line's last word.
    static func text(_ views: ViewOptions, config: ViewOptions) -> String {
        var text = """
            # Written by zeader: the views chosen in the reader (l, L, g, G), each followed by the
            # config's value it was chosen over. A view holds while the config still says that.

            """
        for (chosen, base) in zip(values(views), values(config)) where chosen.value != base.value {
            text += "\(chosen.directive) \(chosen.value) \(base.value)\n"
        }
        return text
    }

    /// Remembers the views the reader was left with, over the config file's `config`.
    ///
    /// ```swift
    /// try ViewStateFile.write(state.views, over: config.viewsInConfigFile, to: url)
    /// ```
    public static func write(_ views: ViewOptions, over config: ViewOptions, to url: URL) throws {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try text(views, config: config).write(to: url, atomically: true, encoding: .utf8)
    }

    /// `views` (the config's) with the file's choices over them, each only while the config
    /// still says what it said when it was chosen: a change in the config wins. A line of an
    /// older file, without that word, holds only where the config keeps the default. Nil
    /// when there is no readable file.
    public static func read(from url: URL, over views: ViewOptions) -> ViewOptions? {
        guard let text = try? String(contentsOf: url, encoding: .utf8) else { return nil }
        let current = Dictionary(uniqueKeysWithValues: values(views).map { ($0.directive, $0.value) })
        let defaults = Dictionary(uniqueKeysWithValues: values(ViewOptions()).map { ($0.directive, $0.value) })
        var result = views
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            let words = line.split(whereSeparator: \.isWhitespace).map(String.init)
            guard (2...3).contains(words.count), let now = current[words[0]] else { continue }
            let base = words.count == 3 ? words[2] : defaults[words[0]]
            guard base == now, let parsed = try? ReaderConfig.parse("\(words[0]) \(words[1])", file: url.path),
                parsed.warnings.isEmpty
            else { continue }
            switch words[0] {
            case "show-read-feeds": result.showReadFeeds = parsed.views.showReadFeeds
            case "show-read-articles": result.showReadArticles = parsed.views.showReadArticles
            case "feed-sort-order": result.feedOrder = parsed.views.feedOrder
            default: result.itemOrder = parsed.views.itemOrder
            }
        }
        return result
    }
}
