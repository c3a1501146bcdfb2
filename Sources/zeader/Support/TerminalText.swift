import Feeds
import ZeaderKit

/// Feed text made safe for one line of a terminal: sanitized, line breaks and tabs folded
/// to spaces.
///
/// ```swift
/// print(TerminalText.line(server.displayTitle))
/// ```
enum TerminalText {
    /// The sanitized text on one line.
    ///
    /// ```swift
    /// TerminalText.line("a\nb\u{1B}[31m")   // "a b"
    /// ```
    static func line(_ text: String?) -> String {
        guard let text else { return "" }
        let clean = DisplayWidth.sanitizeForTerminal(text)
        guard clean.unicodeScalars.contains(where: { $0 == "\n" || $0 == "\t" || $0 == "\r" }) else { return clean }
        return String(
            String.UnicodeScalarView(clean.unicodeScalars.map { $0 == "\n" || $0 == "\t" || $0 == "\r" ? " " : $0 }))
    }
}

/// `zeader list`'s text form.
extension ServerSummary {
    /// One line per feed: `unread/total  title  <url>` (`[local] ` before the title for a feed
    /// a sync account does not sync), then `[tag, tag]` when it has tags,
    /// then a line `! error` when the last refresh failed.
    ///
    /// ```swift
    /// print(ServerSummary.text(feeds), terminator: "")
    /// ```
    static func text(_ servers: [ServerSummary]) -> String {
        var out = ""
        let width = servers.map { "\($0.unread)/\($0.total)".count }.max() ?? 0
        for server in servers {
            let counts = "\(server.unread)/\(server.total)"
            out += String(repeating: " ", count: width - counts.count) + counts + "  "
            if server.disabled { out += "[disabled] " }
            if server.synced == false { out += "[local] " }
            let url = RedactedURL.text(server.url)
            out += TerminalText.line(server.title?.isEmpty == false ? server.title : url)
            out += "  <" + TerminalText.line(url) + ">"
            if !server.tags.isEmpty { out += "  [" + server.tags.map(TerminalText.line).joined(separator: ", ") + "]" }
            out += "\n"
            if let error = server.lastError {
                out += String(repeating: " ", count: width) + "  ! " + TerminalText.line(error) + "\n"
            }
        }
        return out
    }
}

/// `zeader items`'s text form.
extension ItemSummary {
    /// The feed column's widest, in terminal cells.
    static let feedColumnWidth = 24

    /// One line per item: `YYYY-MM-DD HH:MM  N* feed  title  (author)`, `N` marking unread,
    /// `*` flagged, the feed's title cut or padded to one column (as wide as the longest
    /// listed, at most 24 characters).
    ///
    /// ```swift
    /// print(ItemSummary.text(items), terminator: "")
    /// ```
    static func text(_ items: [ItemSummary]) -> String {
        var out = ""
        let feeds = items.map {
            DisplayWidth.prefix(TerminalText.line($0.feedTitle ?? RedactedURL.text($0.feed)), columns: feedColumnWidth)
        }
        let width = feeds.map { DisplayWidth.of($0) }.max() ?? 0
        for (item, feed) in zip(items, feeds) {
            let date = item.sortDate.map { String(JSONText.timestamp($0).prefix(16)).replacingOccurrences(of: "T", with: " ") }
            out += (date ?? String(repeating: " ", count: 16)) + "  " + (item.read ? " " : "N") + (item.flagged ? "* " : "  ")
            out += DisplayWidth.padded(feed, toColumns: width) + "  "
            out += TerminalText.line(item.title?.isEmpty == false ? item.title : item.link ?? item.id)
            if let author = item.author, !author.isEmpty { out += "  (" + TerminalText.line(author) + ")" }
            out += "\n"
        }
        return out
    }
}
