import Foundation
import ZeaderConfig

/// What a mouse event asks of the reader, decided from the state and the screen drawn from it
/// (the update's pure half; ``ReaderApp`` carries it out). A left click on a list's row selects
/// it, on the selected row opens it; a click on a link number `[N]` in the article opens that
/// link; a click on the title bar goes back; the wheel scrolls. Everything else does nothing.
///
/// ```swift
/// let click = MouseEvent(kind: .press(.left), column: 3, row: 2)
/// MouseCommand(click, state: state, screen: ReaderView.render(state, keyMap: .default))  // .select(row: 1)
/// ```
enum MouseCommand: Equatable {
    /// Put the cursor on this row of the list on top (an index into the whole list).
    case select(row: Int)
    /// Open the row of the list on top, as ENTER would.
    case open(row: Int)
    /// Open the article's link with this number, as typing it would.
    case openLink(Int)
    /// Scroll the list, article or help by this many lines (negative: up).
    case scroll(lines: Int)
    /// Leave the screen on top.
    case back
    case nothing

    /// Lines one turn of the wheel scrolls.
    static let wheelLines = 3

    init(_ event: MouseEvent, state: AppState, screen: ScreenBuffer) {
        switch event.kind {
        case .wheelUp: self = .scroll(lines: -Self.wheelLines)
        case .wheelDown: self = .scroll(lines: Self.wheelLines)
        case .press(.left): self = Self.click(column: event.column, row: event.row, state: state, screen: screen)
        case .press(.middle), .press(.right), .release, .other: self = .nothing
        }
    }

    private static func click(column: Int, row: Int, state: AppState, screen: ScreenBuffer) -> MouseCommand {
        // The title bar goes back, but never quits: the feed list has nowhere to go back to.
        if row == 0 { return state.stack.count > 1 ? .back : .nothing }
        // The body lies between the title bar and the status line.
        guard state.height >= 3, row < state.height - 1 else { return .nothing }
        let offset = row - 1
        let position: ListPosition
        let count: Int
        switch state.screen {
        case .feeds: (position, count) = (state.feedPosition, state.feeds.count)
        case .items:
            guard let list = state.items else { return .nothing }
            (position, count) = (list.position, list.ids.count)
        case .picker:
            guard let picker = state.picker else { return .nothing }
            (position, count) = (picker.position, picker.entries.count)
        case .article:
            return linkNumber(atColumn: column, row: row, in: screen).map(MouseCommand.openLink) ?? .nothing
        case .help: return .nothing
        }
        let index = position.top + offset
        guard index < count else { return .nothing }
        return index == position.cursor ? .open(row: index) : .select(row: index)
    }

    /// The number of the `[N]` drawn over the clicked cell, if one is.
    static func linkNumber(atColumn column: Int, row: Int, in screen: ScreenBuffer) -> Int? {
        guard row >= 0, row < screen.height, column >= 0, column < screen.width else { return nil }
        // The cells' characters, each with the column it starts at (a wide one spans two).
        var characters: [(Character, column: Int)] = []
        for x in 0..<screen.width where screen[x, row].width > 0 {
            for character in screen[x, row].text { characters.append((character, x)) }
        }
        var index = 0
        while index < characters.count {
            guard characters[index].0 == "[" else {
                index += 1
                continue
            }
            var end = index + 1
            while end < characters.count, characters[end].0.isASCII, characters[end].0.isNumber { end += 1 }
            if end > index + 1, end < characters.count, characters[end].0 == "]" {
                if column >= characters[index].column, column <= characters[end].column {
                    return Int(String(characters[(index + 1)..<end].map(\.0)))
                }
                index = end + 1
            } else {
                index += 1
            }
        }
        return nil
    }
}

/// The press before this one, to tell a double click: its second press lands where the first
/// did, soon after. When the first opened something, the second is swallowed rather than
/// clicking on the screen that opened.
///
/// ```swift
/// let first = MouseClick(column: 4, row: 2, time: 0, opened: true)
/// first.isDoubled(by: MouseClick(column: 4, row: 2, time: 0.2, opened: false))  // true
/// ```
struct MouseClick: Equatable {
    var column: Int
    var row: Int
    /// Seconds, from any fixed start.
    var time: TimeInterval
    /// Whether this press opened a row.
    var opened: Bool

    /// The longest pause between the two presses of a double click.
    static let doubleClickInterval: TimeInterval = 0.4

    /// Whether `next` is the second press of a double click whose first was this one.
    func isDoubled(by next: MouseClick) -> Bool {
        next.column == column && next.row == row && next.time >= time && next.time - time <= Self.doubleClickInterval
    }
}
