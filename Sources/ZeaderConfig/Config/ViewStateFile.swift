import Foundation

/// Where the reader remembers its views between runs (`l`, `L`, `g`/`G` choices):
/// `$XDG_STATE_HOME/zeader/views` (else `~/.local/state/zeader/views`), in the config
/// file's own syntax (`show-read-feeds no`, `feed-sort-order title`), read over the config.
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

    /// The file's text for `views`.
    static func text(_ views: ViewOptions) -> String {
        """
        # Written by zeader: the views the reader was left with (read over the config file).
        show-read-feeds \(views.showReadFeeds ? "yes" : "no")
        show-read-articles \(views.showReadArticles ? "yes" : "no")
        feed-sort-order \(views.feedOrder.field.rawValue)-\(views.feedOrder.ascending ? "asc" : "desc")
        article-sort-order \(views.itemOrder.field.rawValue)-\(views.itemOrder.ascending ? "asc" : "desc")

        """
    }

    public static func write(_ views: ViewOptions, to url: URL) throws {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try text(views).write(to: url, atomically: true, encoding: .utf8)
    }

    /// `views` with the file's settings over them; nil when there is no readable, valid file.
    public static func read(from url: URL, over views: ViewOptions) -> ViewOptions? {
        guard let text = try? String(contentsOf: url, encoding: .utf8),
            let parsed = try? ReaderConfig.parse(text, file: url.path)
        else { return nil }
        var result = views
        result.showReadFeeds = parsed.views.showReadFeeds
        result.showReadArticles = parsed.views.showReadArticles
        result.feedOrder = parsed.views.feedOrder
        result.itemOrder = parsed.views.itemOrder
        return result
    }
}
