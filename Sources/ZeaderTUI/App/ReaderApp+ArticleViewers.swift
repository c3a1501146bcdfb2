import Feeds
import Foundation
import ObjectGraph
import ZeaderConfig
import ZeaderKit

/// newsboat's other ways of showing an article: `external-url-viewer` (`U` pipes the article
/// to a program such as urlview), `pager` (the article written to a file a program shows) and
/// `always-display-description` (the feed's description above its content). The commands come
/// from the user's config; they run as `browser` does, through `sh -c`, and what a feed wrote
/// reaches them only as data (the article on standard input, or a file name quoted for the shell).
extension ReaderApp {
    /// `U` with `external-url-viewer`: the article's text, its numbered links included, on the
    /// program's standard input. False when the config names no viewer.
    func showLinksExternally(_ id: ObjectID) -> Bool {
        guard let viewer = config.articleCommands.externalURLViewer, !viewer.isEmpty else { return false }
        guard let article = article(of: id) else {
            state.say(.reader(.needsItem))
            return true
        }
        let text = ArticleExport.text(article, width: max(20, min(state.width - 1, 100)))
        let program = ProgramRun(argv: ShellCommand.argv(viewer), input: Data(text.utf8), purpose: .pipe)
        state.say(ArticleCommands.outcome(program, effects.run(program, backend: backend)))
        return true
    }

    /// The pager's command line for the article written to `file`: `%f` replaced by the
    /// file's name quoted for the shell, or the quoted name appended; nil with `pager internal`
    /// (or none); an empty `pager` is `$PAGER`, else `less`.
    ///
    /// ```swift
    /// try ReaderApp.pagerCommand("less -R %f", file: "/tmp/a b")   // "less -R '/tmp/a b'"
    /// ```
    static func pagerCommand(
        _ configured: String?, file: String, environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(ShellCommand.UnbalancedQuotes) -> String? {
        guard var command = configured else { return nil }
        if command.isEmpty { command = environment["PAGER"].flatMap { $0.isEmpty ? nil : $0 } ?? "less" }
        // newsboat's %f is the place of the file, as %u is a link's in `browser`.
        return try ShellCommand.substituting(file, in: command.replacingOccurrences(of: "%f", with: "%u"))
    }

    /// With `pager`: the article written to a file of its own and shown by the pager, which
    /// has the terminal until it ends; then the reader is back on the list. False without one.
    func showInPager(_ article: ArticleState) -> Bool {
        guard config.articleCommands.pager != nil else { return false }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("zeader-pager-\(getpid())")
        let file = folder.appendingPathComponent("article.txt")
        do {
            try FileManager.default.createDirectory(
                at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            let text = ArticleExport.text(article, width: state.formats.articleWidth(terminalColumns: state.width - 1))
            try Data(text.utf8).write(to: file, options: .atomic)
            defer { try? FileManager.default.removeItem(at: file) }
            guard let line = try Self.pagerCommand(config.articleCommands.pager, file: file.path) else { return false }
            let program = ProgramRun(argv: ShellCommand.argv(line), purpose: .pipe)
            if case .failure(let failure) = effects.run(program, backend: backend) { state.say(.failed(failure.description)) }
        } catch {
            state.say(.failed("pager: \(error)"))
        }
        return true
    }

    /// With `always-display-description`: the feed's description (its plain-text summary)
    /// before the content, when the item has both and they differ.
    func withDescription(_ article: ArticleState, _ id: ObjectID) -> ArticleState {
        guard config.behaviour.alwaysDisplayDescription, let item = model.item(id),
            let summary = item.summary?.trimmingCharacters(in: .whitespacesAndNewlines), !summary.isEmpty,
            let content = item.content, !content.isEmpty, article.bodyHTML == content
        else { return article }
        var article = article
        let escaped = summary.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;")
        article.bodyHTML = "<p>" + escaped + "</p><hr>" + content
        return article
    }

    /// With `search-highlight-colors`: the article's searched words in those colours when it
    /// was opened from search results, none otherwise.
    func highlightSearchedWords() {
        guard let search = config.searchHighlight, state.highlights.indices.contains(search.ruleIndex) else { return }
        let words: String? =
            switch state.items?.source {
            case .search(let text), .feedSearch(let text, _): text
            default: nil
            }
        if let rule = search.rule(for: words) { state.highlights[search.ruleIndex] = rule }
    }

    /// `R`'s feeds: every one (empty), or with `reload-only-visible-feeds` those the list shows.
    func feedsToRefreshAll() -> [ObjectID] {
        guard config.behaviour.reloadOnlyVisibleFeeds else { return [] }
        return state.feeds.compactMap(\.serverID)
    }

    /// With `error-log`: the refresh's failures added to the file; a file that cannot be
    /// written is one line on the status line.
    func logRefreshErrors(_ summary: RefreshSummary) {
        guard let path = config.behaviour.errorLog else { return }
        do { try ErrorLog.append(summary, to: path) } catch { state.say(.failed(error.description)) }
    }
}
