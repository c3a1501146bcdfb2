import Feeds
import Foundation
import ZeaderConfig
import ZeaderKit

/// The whole screen as a pure function of ``AppState``: a title bar, the screen on top
/// (feed list, item list, article or help), and the status line (or prompt).
///
/// ```swift
/// let buffer = ReaderView.render(state, keyMap: config.keyMap)
/// backend.draw(buffer)
/// ```
public enum ReaderView {
    /// Draws `state` into a new buffer of its size; `keyMap` feeds help and the key hints.
    public static func render(_ state: AppState, keyMap: KeyMap) -> ScreenBuffer {
        var buffer = ScreenBuffer(width: state.width, height: state.height)
        guard state.width > 0, state.height > 0 else { return buffer }
        drawTitleBar(state, into: &buffer)
        if state.height >= 3 {
            let body = 1..<(state.height - 1)
            switch state.screen {
            case .feeds: FeedListView.draw(state, rows: body, into: &buffer)
            case .items: ItemListView.draw(state, rows: body, into: &buffer)
            case .article: ArticleView.draw(state, rows: body, into: &buffer)
            case .help: HelpView.draw(state, keyMap: keyMap, rows: body, into: &buffer)
            case .picker: PickerView.draw(state, rows: body, into: &buffer)
            }
        }
        if state.height >= 2 { StatusLineView.draw(state, keyMap: keyMap, y: state.height - 1, into: &buffer) }
        // swap-title-and-hints: the title bar at the bottom, the status line and its hints at the top.
        if state.formats.swapTitleAndHints { buffer.swapRows(0, state.height - 1) }
        return buffer
    }

    static func drawTitleBar(_ state: AppState, into buffer: inout ScreenBuffer) {
        let bar = Style(role: .title, bold: true, reverse: !state.colors)
        buffer.fill(y: 0, style: bar)
        let place: String
        switch state.screen {
        case .feeds: place = "Feeds (\(state.totalUnread) unread)"
        case .items: place = state.items.map { "\($0.title) (\($0.ids.count)\($0.isComplete ? "" : "+") items)" } ?? "Items"
        case .article: place = state.article?.title ?? "Article"
        case .help: place = "Help"
        case .picker: place = state.picker?.title ?? ""
        }
        // The feed's or the article's title: feed text, like every other line.
        let title = FormattedRows.title(state) ?? "Zeader \(zeaderVersion) - " + ReaderView.clean(place)
        buffer.write(DisplayWidth.sanitizeForTerminal(title), x: 0, y: 0, style: bar)
    }

    /// `YYYY-MM-DD` in the local time zone, or blanks.
    static func shortDate(_ date: Date?) -> String {
        guard let date else { return "          " }
        let t = LocalTime.parts(of: displayable(date))
        return String(format: "%04d-%02d-%02d", t.tm_year + 1900, t.tm_mon + 1, t.tm_mday)
    }

    /// `YYYY-MM-DD HH:MM` in the local time zone.
    static func longDate(_ date: Date) -> String {
        let t = LocalTime.parts(of: displayable(date))
        return String(
            format: "%04d-%02d-%02d %02d:%02d", t.tm_year + 1900, t.tm_mon + 1, t.tm_mday, t.tm_hour, t.tm_min)
    }

    /// `date` inside ``DateBounds`` by a day, so that any date, in any time zone, has a
    /// four-digit year and keeps the date column's width.
    static func displayable(_ date: Date) -> Date {
        DateBounds.clamped(date, margin: 86_400)
    }

    /// Feed text made safe for the terminal and one line long.
    /// `text` cut to `width` columns at a word's end, with "…" where it was cut: a long
    /// status line is not cut mid-word.
    static func fitted(_ text: String, width: Int) -> String {
        guard width > 1, DisplayWidth.of(text) > width else { return text }
        var cut = ""
        var used = 0
        var next: Character?
        for character in text {
            let w = DisplayWidth.of(character)
            if used + w > width - 1 {
                next = character
                break
            }
            cut.append(character)
            used += w
        }
        // Back to the last word's end when the cut fell inside a word (unless that word is most of the line).
        if let next, !next.isWhitespace, let space = cut.lastIndex(where: \.isWhitespace),
            cut.distance(from: cut.startIndex, to: space) >= cut.count / 2
        {
            cut = String(cut[..<space])
        }
        while let last = cut.last, last.isWhitespace || ",;:".contains(last) { cut.removeLast() }
        return cut + "…"
    }

    static func clean(_ text: String?) -> String {
        guard let text, !text.isEmpty else { return "" }
        return DisplayWidth.sanitizeForTerminal(text).split(whereSeparator: { $0 == "\n" || $0 == "\t" }).joined(
            separator: " ")
    }

    static func selectionStyle(_ state: AppState, unread: Bool = false) -> Style {
        Style(role: unread ? .selectedUnread : .selected, bold: true, reverse: true)
    }
}

/// The feed list: unread/total, title, last refresh, and `!` for a feed whose last
/// refresh failed. Smart feeds follow the subscriptions, marked `*`; `[name]` before the
/// title of a feed of the sync account `name` (local feeds show nothing).
enum FeedListView {
    static func draw(_ state: AppState, rows: Range<Int>, into buffer: inout ScreenBuffer) {
        if state.feeds.isEmpty {
            buffer.write("No feeds yet. Press a to add one, or run zeader import FILE.", x: 1, y: rows.lowerBound)
            return
        }
        if let format = state.formats.feedList {
            return FormattedRows.drawFeeds(state, format: format, rows: rows, into: &buffer)
        }
        let numberWidth = max(3, String(state.feedSummary?.maxTotal ?? state.feeds.map(\.total).max() ?? 0).count)
        for (offset, y) in rows.enumerated() {
            let index = state.feedPosition.top + offset
            guard index < state.feeds.count else { break }
            let row = state.feeds[index]
            let isSmart = row.serverID == nil
            let style = row.unread > 0 ? Style(role: .unread, bold: true) : Style.normal
            var x = 0
            let marker = row.lastError != nil ? "!" : (isSmart ? "*" : " ")
            x = buffer.write(marker, x: x, y: y, style: row.lastError != nil ? Style(role: .error, bold: true) : style)
            let counts =
                String(repeating: " ", count: max(0, numberWidth - String(row.unread).count)) + "\(row.unread)/\(row.total)"
                + String(repeating: " ", count: max(0, numberWidth - String(row.total).count))
            x = buffer.write(" \(counts)  ", x: x, y: y, style: style)
            let dateColumn = buffer.width >= 60 && !isSmart ? 11 : 0
            let titleWidth = buffer.width - x - dateColumn
            // Where the feed comes from: its account; a local feed shows nothing.
            let title = row.sourceTag + ReaderView.clean(row.title)
            buffer.write(title, x: x, y: y, style: style, maxWidth: titleWidth)
            if dateColumn > 0, let refreshed = row.lastRefresh {
                buffer.write(ReaderView.shortDate(refreshed), x: buffer.width - 10, y: y, style: Style(role: .dim))
            }
            buffer.highlight(y: y, rules: state.highlights, view: .feedlist)
            if index == state.feedPosition.cursor {
                buffer.restyle(y: y, style: ReaderView.selectionStyle(state, unread: row.unread > 0))
            }
        }
    }
}

/// The item list: read marker (`N` for unread) and flag (`*`), date, title, and the author (or the
/// feed, in search results and smart feeds).
enum ItemListView {
    static func draw(_ state: AppState, rows: Range<Int>, into buffer: inout ScreenBuffer) {
        guard let list = state.items else { return }
        if list.ids.isEmpty {
            let text: String
            if case .search(let query) = list.source {
                text = "No items match \"\(ReaderView.clean(query))\"."
            } else if case .feedSearch(let query, _) = list.source {
                text = "No items of this feed match \"\(ReaderView.clean(query))\"."
            } else {
                text = "No items."
            }
            buffer.write(text, x: 1, y: rows.lowerBound)
            return
        }
        let showFeed: Bool
        if case .server = list.source { showFeed = false } else { showFeed = true }
        if let format = state.formats.itemList {
            return FormattedRows.drawItems(
                state, list: list, format: format, showsFeed: showFeed, rows: rows, into: &buffer)
        }
        for (offset, y) in rows.enumerated() {
            let index = list.position.top + offset
            guard index < list.ids.count else { break }
            guard let row = list.rows[list.ids[index]] else {
                buffer.write("  …", x: 0, y: y, style: Style(role: .dim))
                continue
            }
            var style = row.read ? Style.normal : Style(role: .unread, bold: true)
            style.highlight = row.highlight
            var x = buffer.write((row.read ? " " : "N") + (row.flagged ? "*" : " "), x: 0, y: y, style: style)
            if buffer.width >= 40 {
                x = buffer.write(FormattedRows.date(row.date, state: state) + "  ", x: x, y: y, style: style)
            }
            let extra = showFeed ? row.feedTitle : row.author
            let extraText = ReaderView.clean(extra)
            let extraWidth = extraText.isEmpty || buffer.width < 50 ? 0 : min(24, DisplayWidth.of(extraText) + 3)
            var title = ReaderView.clean(row.title).isEmpty ? "(untitled)" : ReaderView.clean(row.title)
            if row.hasEnclosure { title = "♪ " + title }
            buffer.write(title, x: x, y: y, style: style, maxWidth: buffer.width - x - extraWidth)
            if extraWidth > 0 {
                buffer.write(
                    "(" + DisplayWidth.prefix(extraText, columns: extraWidth - 3) + ")", x: buffer.width - extraWidth + 1, y: y,
                    style: Style(role: .dim))
            }
            buffer.highlight(y: y, rules: state.highlights, view: .articlelist)
            if index == list.position.cursor {
                buffer.restyle(y: y, style: ReaderView.selectionStyle(state, unread: !row.read))
            }
        }
    }
}

/// The article: a header (feed, title, author, date, link, enclosures; see ``ArticleHeader``),
/// the body rendered from HTML and wrapped, then its numbered links.
enum ArticleView {
    static func draw(_ state: AppState, rows: Range<Int>, into buffer: inout ScreenBuffer) {
        guard let article = state.article else { return }
        var lines: [(String, Style, String)] = ArticleHeader.lines(article, width: buffer.width, rows: rows.count).map {
            ($0.label, Style(role: .heading, bold: true), $0.text)
        }
        lines.append(("", .normal, ""))
        // The renderer lists the numbered links after a last "Links:" line.
        let linksStart =
            article.links.isEmpty ? article.lines.count : (article.lines.lastIndex(of: "Links:") ?? article.lines.count)
        let bodyStart = lines.count
        for (index, line) in article.lines.enumerated() {
            let style =
                index > linksStart
                ? Style(role: .link, underline: true) : index == linksStart ? Style(role: .heading, bold: true) : .normal
            lines.append(("", style, DisplayWidth.sanitizeForTerminal(line)))
        }
        let spans = Dictionary(grouping: article.spans, by: \.line)
        for (offset, y) in rows.enumerated() {
            let index = article.scroll + offset
            guard index < lines.count else { break }
            let (label, style, text) = lines[index]
            let x = buffer.write(label, x: 0, y: y, style: label.isEmpty ? style : Style(role: .heading, bold: true))
            buffer.write(text, spans: spans[index - bodyStart] ?? [], x: x, y: y, style: label.isEmpty ? style : .normal)
            buffer.highlight(y: y, rules: state.highlights, view: .article)
        }
    }
}

/// Help: every action with its keys, generated from the key map in use.
enum HelpView {
    /// The lines for the keys of `view` (the screen help was opened from).
    static func lines(keyMap: KeyMap, view: KeyView? = nil) -> [String] {
        Action.allCases.map { action in
            let keys = keyMap.keys(for: action, in: view).map(\.name).joined(separator: " ")
            return DisplayWidth.padded(keys.isEmpty ? "(unbound)" : keys, toColumns: 16) + action.summary
                + " [\(action.rawValue)]"
        } + [
            "", "In the article view, type a link's number then ENTER to open it.",
            "In a list, type an entry's number then ENTER to go to it.",
            "The names in brackets are for bind-key in the config file.",
        ]
    }

    static func draw(_ state: AppState, keyMap: KeyMap, rows: Range<Int>, into buffer: inout ScreenBuffer) {
        // The keys of the screen help was opened from.
        let all = lines(keyMap: keyMap, view: state.stack.dropLast().last.flatMap(AppState.keyView(of:)))
        for (offset, y) in rows.enumerated() {
            let index = state.helpScroll + offset
            guard index < all.count else { break }
            buffer.write(all[index], x: 1, y: y)
        }
    }
}

/// The bottom line: the prompt when one is open, else the message, refresh progress, the
/// selected feed's last error, or key hints.
enum StatusLineView {
    static func draw(_ state: AppState, keyMap: KeyMap, y: Int, into buffer: inout ScreenBuffer) {
        let bar = Style(role: .statusBar, reverse: !state.colors)
        buffer.fill(y: y, style: bar)
        if let prompt = state.prompt, PromptErrorView.draw(prompt, state: state, y: y, into: &buffer) {
            return
        }
        if let prompt = state.prompt {
            var text = ReaderView.clean(prompt.line)
            // Keep the end of long input visible.
            while DisplayWidth.of(text) >= buffer.width, !text.isEmpty { text.removeFirst() }
            buffer.write(text + (prompt.isTextEntry ? "_" : ""), x: 0, y: y, style: Style(role: .statusBar, bold: true))
            return
        }
        var text: String
        var style = bar
        if let message = state.message {
            text = ReaderView.clean(message)
            if state.messageIsError { style = Style(role: .error, bold: true, reverse: !state.colors) }
        } else if state.screen == .feeds, let error = state.selectedFeed?.lastError {
            text = "Last refresh failed: " + ReaderView.clean(error)
            style = Style(role: .error, bold: true, reverse: !state.colors)
        } else if state.screen == .article, !state.pendingLinkNumber.isEmpty {
            text = "Open link \(state.pendingLinkNumber) (ENTER)"
        } else {
            text = state.showsKeymapHint ? hints(state, keyMap: keyMap) : ""
        }
        if let (done, total) = state.refreshProgress {
            // A sync counts items, and only once it knows how many it pulls.
            let progress =
                state.refreshIsSync
                ? (done == 0 && total <= 1 ? "Syncing" : "Syncing \(done)/\(total) items") : "Refreshing \(done)/\(total)"
            text = progress + (text.isEmpty ? "" : " | " + text)
        }
        guard state.message != nil else {
            buffer.write(ReaderView.fitted(text, width: buffer.width), x: 0, y: y, style: style)
            return
        }
        // A message wider than the screen takes a few lines over the list's end, so that its
        // end (what to do, which file) is read, not cut.
        let lines = messageLines(text, width: buffer.width, maxLines: max(1, min(4, state.height / 3)))
        for (offset, line) in lines.enumerated() {
            let row = y - (lines.count - 1) + offset
            if row != y { buffer.fill(y: row, style: style) }
            buffer.write(line, x: 0, y: row, style: style)
        }
    }

    /// `text` wrapped to `width` in at most `maxLines` lines, the last one cut with "…" when
    /// more would be needed.
    ///
    /// ```swift
    /// StatusLineView.messageLines("config:3: warning: a long line", width: 12, maxLines: 2)
    /// ```
    static func messageLines(_ text: String, width: Int, maxLines: Int) -> [String] {
        guard DisplayWidth.of(text) > width else { return [text] }
        var lines = HTMLText.wrap(text, width: width)
        guard lines.count > maxLines else { return lines }
        let rest = lines[(maxLines - 1)...].joined(separator: " ")
        lines = Array(lines.prefix(maxLines - 1)) + [ReaderView.fitted(rest, width: width)]
        return lines
    }

    static func hints(_ state: AppState, keyMap: KeyMap) -> String {
        let actions: [Action]
        switch state.screen {
        case .feeds: actions = [.quit, .open, .refreshAll, .search, .addFeed, .help]
        case .items: actions = [.quit, .open, .toggleRead, .markFeedRead, .nextUnread, .help]
        case .article: actions = [.quit, .openInBrowser, .nextUnread, .help]
        case .help: actions = [.quit]
        case .picker where state.picker?.kind == .podcasts:
            actions = [
                .quit, .pbDownload, .pbCancel, .pbDelete, .pbPurge, .pbToggleDownloadAll, .pbPlay, .pbMarkAsFinished, .help,
            ]
        case .picker: actions = state.picker?.kind == .links ? [.quit, .open, .save] : [.quit, .open]
        }
        return actions.compactMap { action in
            let keys = keyMap.keys(for: action, in: state.keyView)
            return (keys.contains(.enter) ? Key.enter : keys.first).map { "\($0.name):\(action.rawValue)" }
        }.joined(separator: " ")
    }
}
