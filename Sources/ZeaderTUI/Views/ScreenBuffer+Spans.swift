import Feeds
import ZeaderConfig

extension ScreenBuffer {
    /// Writes `text` in `style` with its `spans` (``TextSpan``: character runs) bold or
    /// underlined over it; returns the column after the last character written.
    ///
    /// ```swift
    /// buffer.write("A bold word", spans: [TextSpan(line: 0, start: 2, count: 4, bold: true, underline: false)], x: 0, y: 3, style: .normal)
    /// ```
    @discardableResult
    mutating func write(_ text: String, spans: [TextSpan], x: Int, y: Int, style: Style) -> Int {
        guard !spans.isEmpty else { return write(text, x: x, y: y, style: style) }
        let characters = Array(text)
        var column = x
        var offset = 0
        for span in spans.sorted(by: { $0.start < $1.start }) where span.start >= offset && span.start < characters.count {
            column = write(String(characters[offset..<span.start]), x: column, y: y, style: style)
            let end = min(characters.count, span.start + max(0, span.count))
            var emphasized = style
            emphasized.bold = style.bold || span.bold
            emphasized.underline = style.underline || span.underline
            column = write(String(characters[span.start..<end]), x: column, y: y, style: emphasized)
            offset = end
        }
        return write(String(characters[offset...]), x: column, y: y, style: style)
    }
}
