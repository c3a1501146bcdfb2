import ZeaderKit

/// The one-line progress bar `zeader refresh` draws on a terminal's stderr.
///
/// ```swift
/// let line = ProgressBar.render(progress, columns: 80)
/// // "\r[##########          ] 100/200 feeds, 3 failed, 4800 new\u{1B}[K"
/// ```
enum ProgressBar {
    /// The bar for `progress`, starting with a carriage return and ending with
    /// erase-to-end-of-line, fitting in `columns`.
    static func render(_ progress: RefreshProgress, columns: Int) -> String {
        var text = " \(progress.completed)/\(progress.total) feeds"
        if progress.failed > 0 { text += ", \(progress.failed) failed" }
        text += ", \(progress.newItems) new"
        let barWidth = max(0, min(40, columns - text.count - 3))
        guard barWidth >= 5 else { return "\r" + String(text.dropFirst().prefix(max(0, columns - 1))) + "\u{1B}[K" }
        let filled = progress.total == 0 ? barWidth : barWidth * progress.completed / progress.total
        return "\r[" + String(repeating: "#", count: filled) + String(repeating: " ", count: barWidth - filled) + "]"
            + text + "\u{1B}[K"
    }

    /// A bar for any count: `[#####     ] 500/1000 items`.
    ///
    /// ```swift
    /// let line = ProgressBar.render(completed: 500, total: 1000, unit: "items", columns: 80)
    /// ```
    static func render(completed: Int, total: Int, unit: String, columns: Int) -> String {
        let text = " \(completed)/\(total) \(unit)"
        let barWidth = max(0, min(40, columns - text.count - 3))
        guard barWidth >= 5 else { return "\r" + String(text.dropFirst().prefix(max(0, columns - 1))) + "\u{1B}[K" }
        let filled = total == 0 ? barWidth : barWidth * min(completed, total) / total
        return "\r[" + String(repeating: "#", count: filled) + String(repeating: " ", count: barWidth - filled) + "]"
            + text + "\u{1B}[K"
    }

    /// Erases the bar (before the summary line is written).
    static let clear = "\r\u{1B}[K"
}
