import Feeds
import Foundation
import ZeaderConfig
import ZeaderKit

/// The lists' rows and the title bar through the config's newsboat format strings
/// (``ListFormats``): each field's text from the state, laid out by ``FormatString``.
/// Without a format directive the views draw Zeader's own rows.
///
/// ```swift
/// state.formats.feedList = FormatString("%4i %n %11u %t")
/// let buffer = ReaderView.render(state, keyMap: .default)  // "   1 N     (3/9) Swift"
/// ```
enum FormattedRows {
    /// The feed list drawn through `format`: newsboat's fields of each row.
    static func drawFeeds(_ state: AppState, format: FormatString, rows: Range<Int>, into buffer: inout ScreenBuffer) {
        for (offset, y) in rows.enumerated() {
            let index = state.feedPosition.top + offset
            guard index < state.feeds.count else { break }
            let row = state.feeds[index]
            let line = format.render(width: buffer.width) { feedField($0, row: row, index: index) }
            let style = row.unread > 0 ? Style(role: .unread, bold: true) : Style.normal
            buffer.write(DisplayWidth.sanitizeForTerminal(line), x: 0, y: y, style: style, maxWidth: buffer.width)
            buffer.highlight(y: y, rules: state.highlights, view: .feedlist)
            if index == state.feedPosition.cursor {
                buffer.restyle(y: y, style: ReaderView.selectionStyle(state, unread: row.unread > 0))
            }
        }
    }

    /// The item list drawn through `format`; `showsFeed` gives `%T` the item's feed, as
    /// newsboat does for lists of several feeds.
    static func drawItems(
        _ state: AppState, list: ItemListState, format: FormatString, showsFeed: Bool, rows: Range<Int>,
        into buffer: inout ScreenBuffer
    ) {
        let dates = state.formats.dateTime ?? .newsboatDefault
        let now = Date()
        for (offset, y) in rows.enumerated() {
            let index = list.position.top + offset
            guard index < list.ids.count else { break }
            guard let row = list.rows[list.ids[index]] else {
                buffer.write("  …", x: 0, y: y, style: Style(role: .dim))
                continue
            }
            let line = format.render(width: buffer.width) { name in
                switch name {
                case "D": return row.date.map { ReaderView.clean(dates.string(from: $0, now: now)) } ?? ""
                case "T": return showsFeed ? ReaderView.clean(row.feedTitle) : ""
                default: return itemField(name, row: row, index: index)
                }
            }
            var style = row.read ? Style.normal : Style(role: .unread, bold: true)
            style.highlight = row.highlight
            buffer.write(DisplayWidth.sanitizeForTerminal(line), x: 0, y: y, style: style, maxWidth: buffer.width)
            buffer.highlight(y: y, rules: state.highlights, view: .articlelist)
            if index == list.position.cursor {
                buffer.restyle(y: y, style: ReaderView.selectionStyle(state, unread: !row.read))
            }
        }
    }

    /// newsboat's feed list fields: `%i` index, `%n` unread mark, `%u` "(unread/total)",
    /// `%U` unread, `%c` total, `%t` title, `%T` first tag, `%L` URL, `%S` "x" after a failed
    /// refresh; `%l` and `%d` (the site's link, the description) are not kept: empty.
    static func feedField(_ name: Character, row: FeedRow, index: Int) -> String {
        switch name {
        case "i": return String(index + 1)
        case "n": return row.unread > 0 ? "N" : " "
        case "u": return "(\(row.unread)/\(row.total))"
        case "U": return String(row.unread)
        case "c": return String(row.total)
        case "t": return row.sourceTag + ReaderView.clean(row.title)
        case "T": return ReaderView.clean(row.tags.first)
        case "L": return ReaderView.clean(row.url)
        case "S": return row.lastError != nil ? "x" : " "
        default: return ""
        }
    }

    /// newsboat's item list fields but the date and the feed: `%i` index, `%f` "N" when unread
    /// and "!" when flagged, `%n` unread mark, `%d` deleted mark (never), `%F` flags, `%t` title
    /// (`(untitled)` for none), `%a` author; `%L` and `%e` (length, enclosure URL) are not
    /// in the list's rows: empty.
    static func itemField(_ name: Character, row: ItemRow, index: Int) -> String {
        switch name {
        case "i": return String(index + 1)
        case "f": return (row.read ? " " : "N") + (row.flagged ? "!" : " ")
        case "n": return row.read ? " " : "N"
        case "d": return " "
        case "F": return row.flagged ? "*" : ""
        case "t":
            let title = ReaderView.clean(row.title)
            return title.isEmpty ? "(untitled)" : title
        case "a": return ReaderView.clean(row.author)
        default: return ""
        }
    }

    /// The title bar's text through the screen's title format, nil when the config has none.
    static func title(_ state: AppState) -> String? {
        let common: (Character) -> String? = { name in
            switch name {
            case "N": return "Zeader"
            case "V": return zeaderVersion
            default: return nil
            }
        }
        if let title = fileBrowserTitle(state, common: common) { return title }
        switch state.screen {
        case .feeds:
            guard let format = state.formats.feedListTitle else { return nil }
            let subscriptions = state.feeds.filter { $0.serverID != nil }
            return format.render(width: state.width) { name in
                switch name {
                case "u": return String(subscriptions.filter { $0.unread > 0 }.count)
                case "U": return String(state.totalUnread)
                case "t": return String(subscriptions.count)
                case "T": return ReaderView.clean(state.views.tag)
                case "F": return ReaderView.clean(state.views.feedFilter)
                default: return common(name) ?? ""
                }
            }
        case .items:
            let search: FormatString? =
                switch state.items?.source {
                case .search, .feedSearch: state.formats.searchResultTitle
                default: nil
                }
            guard let format = search ?? state.formats.itemListTitle, let list = state.items else { return nil }
            let feed = feedRow(of: list, in: state)
            return format.render(width: state.width) { name in
                switch name {
                case "T": return ReaderView.clean(list.title)
                case "U": return ReaderView.clean(feed?.url)
                case "u": return String(feed?.unread ?? list.rows.values.filter { !$0.read }.count)
                case "t": return String(feed?.total ?? list.ids.count)
                case "F": return ReaderView.clean(list.filter)
                default: return common(name) ?? ""
                }
            }
        case .article:
            guard let format = state.formats.articleTitle, let article = state.article else { return nil }
            let feed = state.items.flatMap { feedRow(of: $0, in: state) }
            return format.render(width: state.width) { name in
                switch name {
                case "T": return ReaderView.clean(article.title)
                case "F": return ReaderView.clean(article.feedTitle)
                case "u": return feed.map { String($0.unread) } ?? ""
                case "t": return feed.map { String($0.total) } ?? ""
                default: return common(name) ?? ""
                }
            }
        case .help:
            return state.formats.helpTitle?.render(width: state.width, value: common)
        case .picker:
            let format: FormatString? =
                switch state.picker?.kind {
                case .links: state.formats.urlViewTitle
                case .tags: state.formats.selectTagTitle
                case .filters: state.formats.selectFilterTitle
                case .dialogs: state.formats.dialogsTitle
                case .discoveredFeeds, .podcasts, nil: nil
                }
            return format?.render(width: state.width, value: common)
        }
    }

    /// A date of the item list's own row: `datetime-format` when the config has one, else `YYYY-MM-DD`.
    static func date(_ date: Date?, state: AppState) -> String {
        guard let format = state.formats.dateTime else { return ReaderView.shortDate(date) }
        guard let date else { return "" }
        return ReaderView.clean(format.string(from: date))
    }

    private static func feedRow(of list: ItemListState, in state: AppState) -> FeedRow? {
        guard case .server(let id) = list.source else { return nil }
        return state.feeds.first { $0.serverID == id }
    }
}

extension FormattedRows {
    /// `filebrowser-title-format` while a prompt asks for a file to write (`s`, the link list's
    /// save): newsboat's file browser title, `%O` empty (saving, not opening), `%f` the
    /// current folder.
    static func fileBrowserTitle(_ state: AppState, common: (Character) -> String?) -> String? {
        guard let format = state.formats.fileBrowserTitle else { return nil }
        switch state.prompt {
        case .savePath?, .writeLinks?: break
        default: return nil
        }
        let folder = ReaderView.clean(FileManager.default.currentDirectoryPath)
        return format.render(width: state.width) { name in
            switch name {
            case "f": return folder
            case "O": return ""
            default: return common(name) ?? ""
            }
        }
    }
}
