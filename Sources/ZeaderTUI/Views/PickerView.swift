import Feeds
import Foundation
import ZeaderConfig
import ZeaderKit

/// The tag list and the link list: one entry a line, the cursor's highlighted.
enum PickerView {
    static func draw(_ state: AppState, rows: Range<Int>, into buffer: inout ScreenBuffer) {
        guard let picker = state.picker else { return }
        for (offset, y) in rows.enumerated() {
            let index = picker.position.top + offset
            guard index < picker.entries.count else { break }
            buffer.write(ReaderView.clean(picker.entries[index]), x: 1, y: y, maxWidth: buffer.width - 1)
            if index == picker.position.cursor { buffer.restyle(y: y, style: ReaderView.selectionStyle(state)) }
        }
    }
}

/// A prompt whose last answer was refused (a filter that does not parse): the prompt one
/// line up, the error under it on the bottom line.
enum PromptErrorView {
    /// Draws and returns true when `prompt` carries an error; else leaves the line alone.
    static func draw(_ prompt: Prompt, state: AppState, y: Int, into buffer: inout ScreenBuffer) -> Bool {
        guard case .filter(_, let error?) = prompt, y >= 1 else { return false }
        let bar = Style(role: .statusBar, reverse: !state.colors)
        buffer.fill(y: y - 1, style: bar)
        var text = ReaderView.clean(prompt.line)
        while DisplayWidth.of(text) >= buffer.width, !text.isEmpty { text.removeFirst() }
        buffer.write(text + "_", x: 0, y: y - 1, style: Style(role: .statusBar, bold: true))
        let style = Style(role: .error, bold: true, reverse: !state.colors)
        buffer.fill(y: y, style: style)
        buffer.write(ReaderView.clean(error), x: 0, y: y, style: style)
        return true
    }
}
