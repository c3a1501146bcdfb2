import Foundation
import ZeaderConfig

extension ScreenBuffer {
    /// Marks the cells of row `y` that the `rules` for `view` match (``Style/highlight``: the
    /// 1-based index of the rule among all the config's highlight rules; a later rule wins).
    mutating func highlight(y: Int, rules: [HighlightRule], view: HighlightRule.Target) {
        guard y >= 0, y < height, rules.contains(where: { $0.applies(to: view) }) else { return }
        // The row's text and, for each UTF-16 offset, the column it is in.
        var text = ""
        var columns: [Int] = []
        for x in 0..<width {
            let cell = self[x, y].text
            text += cell
            columns += Array(repeating: x, count: cell.utf16.count)
        }
        let whole = NSRange(location: 0, length: (text as NSString).length)
        for (index, rule) in rules.enumerated() where rule.applies(to: view) {
            for match in rule.matcher.regex.matches(in: text, range: whole) where match.range.length > 0 {
                let first = columns[match.range.location]
                let last = columns[match.range.location + match.range.length - 1]
                for x in first...last { self[x, y].style.highlight = index + 1 }
            }
        }
    }
}
