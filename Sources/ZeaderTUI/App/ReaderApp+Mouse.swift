import Foundation
import ZeaderConfig

/// The mouse: the `mouse` setting (the config's, `:set mouse`) and what a report does
/// (``MouseCommand``). Keys work the same with the mouse on or off.
extension ReaderApp {
    /// The `mouse` setting of the config: yes or no as written, else on where the terminal
    /// reports the mouse.
    var configuredMouse: Bool { config.behaviour.mouse ?? backend.terminalHasMouse }

    /// Asks the terminal for mouse reports as the config says. Called when the reader starts.
    func applyMouseSetting() {
        backend.setMouseReporting(configuredMouse)
    }

    /// `:set mouse`: yes, no, `!` (toggle) or `&` (the config's); no value shows it.
    func setMouse(_ value: String?) {
        if let value, !value.isEmpty {
            do {
                backend.setMouseReporting(try Self.yesNo(value, current: backend.mouseReporting, default: configuredMouse))
            } catch {
                state.say(.reader(.cannotSet("mouse", (error as? ReaderConfigError.Message)?.text ?? "\(error)")))
                return
            }
        }
        state.say(.reader(.variable("mouse", backend.mouseReporting ? "yes" : "no")))
    }

    /// Carries out what a mouse report asks. Reports count for nothing while a prompt or a
    /// question waits for keys, or when the mouse is off (a terminal may still send some).
    func handleMouse(_ event: MouseEvent) {
        guard backend.mouseReporting, !quitting, state.prompt == nil, !state.awaitingMacroKey else { return }
        completeFeedList()
        var command = MouseCommand(event, state: state, screen: ReaderView.render(state, keyMap: config.keyMap))
        if case .press = event.kind {
            let press = MouseClick(
                column: event.column, row: event.row, time: ProcessInfo.processInfo.systemUptime, opened: false)
            if let last = lastClick, last.opened, last.isDoubled(by: press) { command = .nothing }
            lastClick = press
            if case .open = command { lastClick?.opened = true }
        }
        carryOut(command)
    }

    private func carryOut(_ command: MouseCommand) {
        switch command {
        case .select(let row): selectRow(row)
        case .open(let row):
            selectRow(row)
            state.message = nil
            perform(.open)
        case .openLink(let number):
            state.pendingLinkNumber = ""
            openLink(number: number)
        case .scroll(let lines): scroll(by: lines)
        case .back:
            state.message = nil
            perform(.quit)
        case .nothing: break
        }
    }

    /// Puts the cursor of the list on top on `row`.
    private func selectRow(_ row: Int) {
        let height = state.listHeight
        switch state.screen {
        case .feeds: state.feedPosition.set(row, count: state.feeds.count, height: height)
        case .items:
            guard var list = state.items else { return }
            list.position.set(row, count: list.ids.count, height: height)
            state.items = list
        case .picker:
            guard var picker = state.picker else { return }
            picker.position.set(row, count: picker.entries.count, height: height)
            state.picker = picker
        case .article, .help: break
        }
    }

    /// Scrolls the screen on top by `lines`: a list moves its window and keeps the cursor in
    /// it; the article and help move as the arrow keys move them.
    private func scroll(by lines: Int) {
        let height = state.listHeight
        switch state.screen {
        case .feeds: state.feedPosition.scroll(by: lines, count: state.feeds.count, height: height)
        case .items:
            guard var list = state.items else { return }
            list.position.scroll(by: lines, count: list.ids.count, height: height)
            state.items = list
        case .picker:
            guard var picker = state.picker else { return }
            picker.position.scroll(by: lines, count: picker.entries.count, height: height)
            state.picker = picker
        case .article, .help:
            for _ in 0..<abs(lines) { state.move(lines > 0 ? .down : .up) }
        }
    }
}

extension ListPosition {
    /// Moves the window by `delta` rows within `count` (no further than the list's ends), the
    /// cursor staying on its row while that is in the window, else on the window's nearest edge.
    ///
    /// ```swift
    /// position.scroll(by: 3, count: list.ids.count, height: state.listHeight)
    /// ```
    public mutating func scroll(by delta: Int, count: Int, height: Int) {
        let height = max(1, height)
        top = max(0, min(top + delta, count - height))
        cursor = min(max(cursor, top), top + height - 1)
        clamp(count: count, height: height)
    }
}
